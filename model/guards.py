"""Why an action is refused: its guard split into top-level conjuncts, each evaluated by the reference
interpreter (model/evaluate.py) and spelled with the model's own labels and field docs.

A ground action's guard is a conjunction (`stage = terror and not eome_refused`); when the action is
not enabled, at least one conjunct is false, and that conjunct is *why* the rules refuse it. The
explorer (checks/formats/explorer_api.py) shows it, and a `blocked_at` scenario records it
(`expect.because.guard`, docs/scenario-format.md) so that replay can tell the expected refusal from
one for another reason. A conjunct is named by `text`: the expression with enumeration values as
their labels and array indices as their index labels, stable for a given model (what a scenario
records and replay compares). `words` says it for a reader: the text, then what the slots it reads
hold here, each with the field's doc (or the board's words for that value, when the game's `board`
declaration offers `value_words(field, label)`).

>>> from model.domains import Bool, Enum
>>> from model.expr import Var
>>> from model.game import GameModel
>>> from model.rule import Rule
>>> from model.schema import Field, Schema
>>> sch = Schema((Field("stage", Enum("Stage", ("storm", "terror"))), Field("refused", Bool(), doc="the offer was refused")))
>>> decline = Rule("decline", (), Var("stage").eq(1) & ~Var("refused"), {("stage", ()): 0})
>>> m = GameModel("m", sch, ((1, True),), (decline,), (), Var("refused"))
>>> [c.text for c in explain(m, m.action("decline"), m.init[0])]
['stage = terror', 'not refused']
>>> print(refusal(m, m.action("decline"), m.init[0])[0].words)
not refused does not hold: here refused is yes (the offer was refused)
"""
from __future__ import annotations

from dataclasses import dataclass

from model.domains import Bool, Enum
from model.evaluate import eval_expr
from model.expr import Add, And, Const, Div, Eq, Expr, Ite, Le, Lt, Not, Or, Sub, Var

MAX_READS = 6  # slots named in a conjunct's words; a long disjunction reads many more
SHORT = 160  # a conjunct's text in its words is cut here (the full text is `Conjunct.text`)


@dataclass(frozen=True)
class Conjunct:
    """One top-level conjunct of a ground action's guard, evaluated in one state."""

    text: str       # the conjunct in the model's labels (what a scenario records)
    holds: bool
    reads: tuple    # ((slot name, value as shown), ...): the slots it reads here, in order of appearance
    words: str      # `text`, what those slots hold here and what they mean


def conjuncts(guard: Expr) -> tuple:
    """The top-level conjuncts of `guard` (nested conjunctions flattened, in order).

    >>> from model.expr import Var
    >>> [type(x).__name__ for x in conjuncts(Var("a") & (Var("b") & ~Var("c")))]
    ['Var', 'Var', 'Not']
    """
    if isinstance(guard, And):
        return tuple(y for x in guard.args for y in conjuncts(x))
    return (guard,)


def explain(model, action, state, only_false: bool = False) -> tuple:
    """Every conjunct of `action`'s guard in `state` (with `only_false`, the false ones): its text,
    whether it holds, what it reads."""
    sch = model.schema
    fields = sch.by_name
    out = []
    for x in conjuncts(action.guard):
        holds = bool(eval_expr(x, state, sch))
        if holds and only_false:
            continue
        reads = _reads(x, state, sch)
        text = _spell(x, fields)
        out.append(Conjunct(text, holds, reads, _words(model, text, holds, reads)))
    return tuple(out)


def refusal(model, action, state) -> tuple:
    """The conjuncts of `action`'s guard that are false in `state` (empty when it is enabled)."""
    return explain(model, action, state, only_false=True)


# -- spelling an expression with the model's labels --------------------------------------------------

def _domain(e: Expr, sch):
    """The domain of the values `e` takes, when it is a field (or a choice between fields)."""
    if isinstance(e, Var) and e.field in sch:
        return sch[e.field].domain
    if isinstance(e, Ite):
        return _domain(e.then, sch) or _domain(e.other, sch)
    return None


def _value(e: Expr, dom, sch) -> str:
    """A constant compared with a field of an enumeration (or a flag) is spelled by its label."""
    if isinstance(e, Const) and isinstance(dom, (Enum, Bool)) and dom.contains(e.value):
        return dom.show(e.value)
    return _spell(e, sch)


def spell(e: Expr, sch) -> str:
    """`e` as text, enumeration constants and indices by their labels (cf. model.expr.show, which
    prints numbers).

    >>> from model.domains import Enum
    >>> from model.schema import Field, Schema
    >>> S = Enum("Stage", ("storm", "terror"))
    >>> sch = Schema((Field("stage", S), Field("n", Enum("F", ("A", "B")), (S,))))
    >>> spell(Var("stage").eq(1) & Var("n", (Const(0),)).ne(1), sch)
    'stage = terror and n[storm] != B'
    """
    return _spell(e, sch.by_name)


def _spell(e: Expr, sch: dict) -> str:
    """`spell` with the schema's fields by name (`Schema.by_name` builds that dict on each call)."""
    match e:
        case Const(value=v):
            return str(v).lower() if isinstance(v, bool) else str(v)
        case Var(field=f, index=idx):
            dims = sch[f].dims if f in sch else ()
            return f + "".join(f"[{_index(i, dims[j] if j < len(dims) else None, sch)}]" for j, i in enumerate(idx))
        case Not(arg=Eq(a=a, b=b)):
            return _compare(a, b, "!=", sch)
        case Not(arg=Var() as v):
            return f"not {_spell(v, sch)}"
        case Not(arg=a):
            return f"not ({_spell(a, sch)})"
        case And(args=xs):
            return " and ".join(f"({_spell(x, sch)})" if isinstance(x, Or) else _spell(x, sch) for x in xs)
        case Or(args=xs):
            return " or ".join(f"({_spell(x, sch)})" if isinstance(x, Or) else _spell(x, sch) for x in xs)
        case Eq(a=a, b=b):
            return _compare(a, b, "=", sch)
        case Lt(a=a, b=b):
            return _compare(a, b, "<", sch)
        case Le(a=a, b=b):
            return _compare(a, b, "<=", sch)
        case Add(args=xs):
            return "(" + " + ".join(_spell(x, sch) for x in xs) + ")"
        case Sub(a=a, b=b):
            return f"({_spell(a, sch)} - {_spell(b, sch)})"
        case Div(a=a, k=k):
            return f"({_spell(a, sch)}) div {k}"
        case Ite(cond=c, then=t, other=o):
            return f"(if {_spell(c, sch)} then {_spell(t, sch)} else {_spell(o, sch)})"
    return repr(e)  # Post, Fired, Arg, Param never remain in a ground guard


def _index(i: Expr, dim, sch) -> str:
    if isinstance(i, Const) and dim is not None and dim.contains(i.value):
        return dim.show(i.value)
    return _spell(i, sch)


def _compare(a: Expr, b: Expr, op: str, sch) -> str:
    da, db = _domain(a, sch), _domain(b, sch)
    return f"{_value(a, db, sch)} {op} {_value(b, da, sch)}"


# -- what a conjunct reads, in words ----------------------------------------------------------------

def _reads(e: Expr, state, sch) -> tuple:
    out: dict = {}

    def visit(x):
        if isinstance(x, Var):
            try:
                slot = sch.slot(x.field, tuple(eval_expr(i, state, sch) for i in x.index))
            except Exception:  # noqa: BLE001 - an index outside its field: nothing to name
                slot = None
            if slot is not None and slot not in out:
                out[slot] = (sch.slot_names[slot], sch.slot_fields[slot].domain.show(state[slot]))
            for i in x.index:
                visit(i)
            return
        for k in _kids(x):
            visit(k)
    visit(e)
    return tuple(out.values())


def _kids(x: Expr) -> tuple:
    match x:
        case Not(arg=a) | Div(a=a):
            return (a,)
        case And(args=xs) | Or(args=xs) | Add(args=xs):
            return tuple(xs)
        case Eq(a=a, b=b) | Lt(a=a, b=b) | Le(a=a, b=b) | Sub(a=a, b=b):
            return (a, b)
        case Ite(cond=c, then=t, other=o):
            return (c, t, o)
    return ()


def _words(model, text: str, holds: bool, reads: tuple) -> str:
    fields = model.schema.by_name
    value_words = getattr(model.board, "value_words", None)
    said = []
    for name, shown in reads[:MAX_READS]:
        field = fields[name.split("[", 1)[0]]
        meaning = value_words(field.name, shown) if value_words is not None else None
        meaning = meaning or field.doc
        said.append(f"{name} is {shown}" + (f" ({meaning})" if meaning else ""))
    more = f", and {len(reads) - MAX_READS} more" if len(reads) > MAX_READS else ""
    verdict = "holds" if holds else "does not hold"
    text = text if len(text) <= SHORT else text[:SHORT - 3] + "..."
    return f"{text} {verdict}" + (f": here {'; '.join(said)}{more}" if said else "")
