"""Classify generated mutants (checks/analyses/mutants.py) against the original model's checks.

Each mutant is built with `model.provenance.sibling(edit_rules=...)`, so the game's declarations
(secrets, reactions, lemmas) follow its rules, and explored breadth-first with a state budget of
`BUDGET_FACTOR` times the original's state count. Verdicts (docs/mutation.md):

- `killed`: some check's verdict differs definitely from the original's: an invariant, step
  property or `no-deadlock` violated with a replayed trace, a witness that became unreachable
  (vacuity, decided by a complete search) or reachable, a value outside its declared domain
  (`domain` violated), or, on the game's small bounds, `hidden-identity` or `possibilistic` (when the
  rule writes a slot a rival observes). `killed_by` lists the changed checks, `depth` the shortest replayed trace.
- `equivalent`: decided, never assumed: the mutant's reachable states are the original's (a
  fingerprint of the sorted packed states) and the mutated rule's labelled transitions from every
  one of them are the original rule's (a fingerprint of the sorted (state, label, successor)
  triples). Every other rule is unchanged, so the two labelled transition systems are identical.
- `survived`: complete search, every check gives the original verdict, not equivalent.
- `unknown`: a budget ran out (or a check could not conclude) before any difference: not scored.
- `invalid`: the mutant does not build (ModelError): not scored.
- `error`: its run failed inside the tool (a check's internal error, a worker that raised): neither
  killed nor survived, not scored; the other mutants still run (issue 39).

>>> from checks.analyses.mutants import generate
>>> from model.domains import IntRange
>>> from model.expr import Var
>>> from model.game import GameModel
>>> from model.properties import always, sometimes
>>> from model.rule import Rule
>>> from model.schema import Field, Schema
>>> toy = GameModel("toy", Schema((Field("x", IntRange(0, 3)),)), ((0,),),
...                 (Rule("inc", (), Var("x") < 3, {("x", ()): Var("x") + 1}),),
...                 (always("small", Var("x") <= 3), sometimes("three", fires=("inc",), when=Var("x").eq(2))),
...                 Var("x").eq(3))
>>> ref = reference(toy, None, CheckConfig(), {"inc"})
>>> for m in generate(toy)[:3]:
...     r = check_mutant(m, toy, None, ref, CheckConfig())
...     print(m.id, r.verdict, r.killed_by, r.depth)
drop-effect@inc.x killed ['three'] None
replace-value@inc.x=0 killed ['three'] None
replace-value@inc.x=1 killed ['three'] None
>>> results = run_mutants(Setup(lambda: toy, None, CheckConfig()), ref, generate(toy), jobs=1)
>>> tally(results, ("drop-effect",))["total"]["killed"] == sum(r.verdict == "killed" for r in results)
True
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from checks.analyses.mutants import Mutant, NotApplicable, edit_rules
from checks.analyses.verdicts import explicit_results, make_explorer
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.engines.pool import TaskPool
from checks.results import CheckResult, InternalError, MutantResult, isolated
from model.compile import CompiledModel
from model.errors import ModelError
from model.game import GameModel
from model.expr import And, Const, Eq, Var

BUDGET_FACTOR = 4  # a mutant may explore this many times the original's states before it is `unknown`
SCORED = ("killed", "survived")


class OriginalIncomplete(Exception):
    """The original model's own search did not complete: no mutant can be compared with it."""


@dataclass(frozen=True)
class Reference:
    """What the original model gave, as plain data sent to every worker: each check's verdict and kind,
    the state count, the fingerprints the equivalence test compares, and the leak verdicts on the
    small bounds (None: no leak check) with the fields the rivals observe."""

    verdicts: dict
    kinds: dict
    states: int
    fingerprint: tuple
    transitions: dict
    leak_verdicts: dict | None
    small_states: int
    observed: frozenset


def reference(model, small, config: CheckConfig, rules: set) -> Reference:
    """Explore the original (and run the leak check on `small`, if given) once.

    OriginalIncomplete if the original's search stops before the end (raise `--max-states`)."""
    ex = make_explorer(model, _plain(config)).run()
    if not ex.complete:
        raise OriginalIncomplete(f"the original model's search stopped ({ex.stop_reason}); "
                                 f"mutants can only be compared with a complete search")
    results = explicit_results(model, ex)
    mat = state_matrix(ex, model.schema)
    observed: frozenset
    leak_verdicts, small_states, observed = None, 0, frozenset()
    if small is not None and small.secrets is not None:
        small_states, checks = _leak_checks(small, _plain(config))
        leak_verdicts = {(r.id, r.observer): r.verdict for leak_check in checks for r in leak_check()}
        observed = frozenset(f.name for f in small.schema.fields) - frozenset(small.secrets.unobserved_fields())
    return Reference(verdicts={r.id: r.verdict for r in results}, kinds={r.id: r.kind for r in results},
                     states=len(ex.states), fingerprint=state_fingerprint(mat),
                     transitions={r: rule_transitions(model, r, mat) for r in sorted(rules)},
                     leak_verdicts=leak_verdicts, small_states=small_states, observed=observed)


def _plain(config: CheckConfig, max_states: int | None = None, engine: str | None = None) -> CheckConfig:
    """Every state stored as found (the fingerprints compare concrete states), one process per search
    (the pool is the parallelism), `config.engine` unless `engine` says otherwise."""
    return dataclasses.replace(config, fold=False, keep_edges=False, symmetry=False, progress=False, jobs=1,
                               engine=engine or config.engine,
                               max_states=config.max_states if max_states is None else max_states)


# Fingerprints (equivalence) ------------------------------------------------------------------


def state_matrix(ex, schema) -> np.ndarray:
    """The explored states as an (n, slots) integer matrix, from either engine's store (bools as 0/1):
    one byte per slot when every domain fits one, else int64, so that both engines give the same bytes."""
    wide = any(int(f.domain.greatest) > 255 or int(f.domain.least) < 0 for f in schema.slot_fields)
    dtype = np.int64 if wide else np.uint8
    return ex.state_matrix(dtype)


def _digest(rows: list) -> str:
    """A deterministic digest of a set of byte strings (sorted, length-prefixed; no salted hash())."""
    h = hashlib.blake2b(digest_size=16)
    for b in sorted(rows):
        h.update(len(b).to_bytes(4, "big"))
        h.update(b)
    return h.hexdigest()


def state_fingerprint(mat: np.ndarray) -> tuple:
    """(number of states, digest of the states' rows in sorted order) of a state matrix: the same set of
    states in any order gives the same fingerprint.

    >>> a = np.array([[0, 1], [2, 3]], dtype=np.uint8)
    >>> state_fingerprint(a) == state_fingerprint(a[::-1]), state_fingerprint(a)[0]
    (True, 2)
    """
    if not len(mat):
        return 0, hashlib.blake2b(b"", digest_size=16).hexdigest()
    rows = np.ascontiguousarray(mat).view(np.dtype((np.void, mat.dtype.itemsize * mat.shape[1]))).ravel()
    return len(mat), hashlib.blake2b(np.sort(rows).tobytes(), digest_size=16).hexdigest()


def _pinned_values(model):
    """The dispatch values (stages) in which some action of `model` may be enabled, from the guards'
    conjuncts `dispatch = constant` (nested Ands flattened); None if some action is not pinned."""
    if model.dispatch is None:
        return None
    out = set()
    for a in model.actions:
        todo, pin = [a.guard], None
        while todo and pin is None:
            c = todo.pop()
            if isinstance(c, And):
                todo.extend(c.args)
            elif isinstance(c, Eq) and c.a == Var(model.dispatch) and isinstance(c.b, Const):
                pin = c.b.value
        if pin is None:
            return None
        out.add(pin)
    return out


def rule_transitions(model, rule: str, mat: np.ndarray) -> tuple:
    """(count, digest, count, digest): the labelled transitions (state, action label, successor) that the
    actions of `rule` take from the states of `mat` (its guards and effects compiled alone,
    model/compile.py), all of them, then only those that change the state (no self-loops)."""
    sub = CompiledModel.build(model.with_changes(rules=(model.rule(rule),), properties=()))
    acts = range(len(sub.model.actions))
    labels = [a.label.encode() for a in sub.model.actions]
    stages = _pinned_values(sub.model)
    if stages is not None:
        mat = mat[np.isin(mat[:, sub.dispatch_slot], sorted(stages))]
    items, moving = [], []
    for row, s in zip(mat, mat.tolist()):
        for n in acts:
            if sub.guards[n](s):
                t = sub.effects[n](s)
                items.append(row.tobytes() + b"\0" + labels[n] + b"\0" + np.array(t, dtype=mat.dtype).tobytes())
                if list(t) != s:
                    moving.append(items[-1])
    return len(items), _digest(items), len(moving), _digest(moving)


# One mutant -----------------------------------------------------------------------------------


class _FirstChange:
    """Stop condition of a mutant's search: one BFS layer after the first definite change, so that
    every check that changes at the shortest depth is found (and its trace is shortest)."""

    def __init__(self, ref: Reference):
        self.ref, self.shortest, self.seen = ref, None, -1

    def __call__(self, ex) -> bool:
        n = len(ex.violations) + len(ex.deadlocks) + len(ex.out_of_domain) + len(ex.witnesses)
        if n != self.seen:
            self.seen = n
            depths = [d for _, d in changes_so_far(ex, self.ref)]
            self.shortest = min(depths) if depths else None
        return self.shortest is not None and ex.depth[-1] > self.shortest + 1


def changes_so_far(ex, ref: Reference) -> list:
    """(check id, depth) of the differences a search in progress has found."""
    v = ref.verdicts
    out = [(name, ex.depth[i]) for name, i in ex.violations.items() if v.get(name) != "violated"]  # `domain` too
    if ex.deadlocks and v.get("no-deadlock") != "violated":
        out.append(("no-deadlock", ex.depth[ex.deadlocks[0]]))
    for name, (pre, prefix, action) in ex.witnesses.items():
        if v.get(name) == "violated":
            out.append((name, ex.depth[pre] + len(prefix) + (action is not None)))
    return out


def differences(model, ref: Reference, results: list) -> list:
    """[(check id, kind, depth or None, trace or None)]: the checks whose verdict changed definitely."""
    out = []
    for r in results:
        before = ref.verdicts.get(r.id)
        if (before, r.verdict) in (("holds", "violated"), ("violated", "holds")):
            out.append((r.id, r.kind, r.trace.depth if r.trace is not None else None, r.trace))
    return out


class MutantCheckFailed(InternalError):
    """One of a mutant's checks failed inside the tool: the mutant is `error`, neither killed nor survived."""


def _result(mutant: Mutant, verdict: str, t0: float, detail: str, states=None, depth=None, trace=None,
            **extra) -> MutantResult:
    info = {"operator": mutant.operator, "rule": mutant.rule, "change": mutant.change, "killed_by": []}
    return MutantResult(id=mutant.id, kind="mutant", verdict=verdict, engine="explicit", rules=mutant.implements,
                       states=states, depth=depth, seconds=time.perf_counter() - t0, detail=detail, trace=trace,
                       extra=info | extra)


def _killed(mutant, t0, states, kills: list, on: str) -> MutantResult:
    kills = sorted(kills, key=lambda k: (k[2] is None, k[2] or 0, k[0]))
    traced = [k for k in kills if k[3] is not None]
    depth = traced[0][2] if traced else None
    first = kills[0]
    how = f"{first[0]} ({first[1]}) " + (f"after {first[2]} steps" if first[2] is not None else "vacuous")
    return _result(mutant, "killed", t0, f"killed: {how}" + (f" on the {on}" if on != "proposal" else ""),
                   states=states, depth=depth, trace=traced[0][3] if traced else None,
                   killed_by=[k[0] for k in kills],
                   kills=[{"check": k[0], "kind": k[1], "depth": k[2]} for k in kills], trace_on=on)


def build_mutant(model, mutant: Mutant):
    """The mutant of `model`: rebuilt by the game (`provenance.sibling(edit_rules=...)`), so that every
    declaration is made over the mutated rules; a model without provenance gets its rules replaced."""
    edit = edit_rules(mutant)
    if model.provenance is not None and model.provenance.rebuild is not None:
        return model.provenance.sibling(edit_rules=edit)
    return model.with_changes(rules=tuple(edit(list(model.rules))))


def check_mutant(mutant: Mutant, model, small, ref: Reference, config: CheckConfig) -> MutantResult:
    """Build, explore and classify one mutant of `model` (`small`: the game's small bounds, for the
    leak check; None to skip it)."""
    t0 = time.perf_counter()
    try:
        mm = build_mutant(model, mutant)
        ex = _explore(mm, _plain(config, BUDGET_FACTOR * ref.states), ref)
    except ModelError as e:
        return _result(mutant, "invalid", t0, f"does not build: {e}")
    except (ArithmeticError, LookupError) as e:  # e.g. an index expression outside its domain
        return _result(mutant, "invalid", t0, f"cannot be evaluated: {type(e).__name__}: {e}")
    # From here on the mutant builds and explores: a failure is the tool's (`error`), never a kill or a survival.
    return isolated(lambda: _classify(mutant, mm, ex, model, small, ref, config, t0),
                    lambda e: _failed(mutant, t0, e, states=len(ex.states)))


def _failed(mutant: Mutant, t0: float, exc: BaseException, states=None) -> MutantResult:
    """A mutant whose run failed inside the tool: `error`, with the message (issue 39)."""
    text = str(exc) if isinstance(exc, InternalError) else f"{type(exc).__name__}: {exc}"
    return _result(mutant, "error", t0, f"internal error: {text.splitlines()[0] if text else ''}", states=states,
                   error=type(exc).__name__)


def _classify(mutant: Mutant, mm, ex, model, small, ref: Reference, config: CheckConfig, t0: float) -> MutantResult:
    """Killed, unknown, equivalent or survived: the explored mutant `mm` against the original."""
    results = explicit_results(mm, ex)
    kills = differences(mm, ref, results)
    if kills:  # a replayed difference decides, whatever another check did
        return _killed(mutant, t0, len(ex.states), kills, "proposal")
    failed = [r for r in results if r.verdict == "error"]
    if failed:  # a verdict the tool failed to reach: the mutant's run ends in `error`, never `survived`
        raise MutantCheckFailed(failed[0].detail)
    if not ex.complete:
        return _result(mutant, "unknown", t0, f"no difference before the search stopped: {ex.stop_reason}",
                       states=len(ex.states))
    leak = _leak_check(mutant, small, ref, config)
    if isinstance(leak, list):
        return _killed(mutant, t0, len(ex.states), leak, "small bounds")
    if leak is not None and leak.startswith("inconclusive"):
        return _result(mutant, "unknown", t0, f"leak check {leak}", states=len(ex.states))
    note = f"; leak check: {leak}" if leak else ""
    mat = state_matrix(ex, mm.schema)
    same = state_fingerprint(mat) == ref.fingerprint
    n, digest, moved, moving = rule_transitions(mm, mutant.rule, mat)
    original = ref.transitions.get(mutant.rule) or (None,) * 4
    if same and (n, digest) == original[:2]:
        return _result(mutant, "equivalent", t0,
                       f"equivalent: the same {len(ex.states):,} reachable states and the same {n:,} labelled "
                       f"transitions of {mutant.rule}; every other rule is unchanged" + note,
                       states=len(ex.states), how={"states": ref.fingerprint[1], "transitions": digest})
    if same and mm.rule(mutant.rule).kind == "fault" and (moved, moving) == original[2:]:
        # NOTE(stutter): a fault (a reload, a retried action: environment events the engine must reject
        # without change, H9) differs only in steps that change nothing; each was checked by every step
        # property (none failed, or the mutant would be killed), and no state invariant or witness can
        # see them. Not for game rules: there a step that changes nothing can hide a livelock.
        return _result(mutant, "equivalent", t0,
                       f"equivalent up to stuttering: the same {len(ex.states):,} reachable states and the same "
                       f"{moved:,} state-changing transitions of {mutant.rule}; only steps that change nothing "
                       f"were added or removed" + note,
                       states=len(ex.states), how={"states": ref.fingerprint[1], "moving_transitions": moving})
    what = "its own transitions differ" if same else "its reachable states differ"
    return _result(mutant, "survived", t0, f"every check gives the original verdict; {what}" + note,
                   states=len(ex.states))


def _explore(mm, config: CheckConfig, ref: Reference):
    """Search the mutant with `config.engine`; the scalar engine if the vector one refuses the model."""
    if config.engine == "vector":
        try:
            return make_explorer(mm, config).run(stop_when=_FirstChange(ref))
        except ModelError:
            config = dataclasses.replace(config, engine="scalar")
    return Explorer(mm, config).run(stop_when=_FirstChange(ref))


def _leak_check(mutant: Mutant, small, ref: Reference, config: CheckConfig):
    """None (not applicable), a note (not run, or holds), 'inconclusive: ...', or the kills."""
    if small is None or ref.leak_verdicts is None:
        return None
    written = {k[0] for k in small.rule(mutant.rule).effects} if mutant.rule in {r.name for r in small.rules} \
        else set()
    if not written & ref.observed:
        return "not run (the rule writes no slot a rival observes)"
    results: list = []
    try:
        sm = build_mutant(small, mutant)
        # hidden-identity first: a kill there needs no possibilistic run (and no failure of it can hide it).
        for leak_check in _leak_checks(sm, _plain(config, BUDGET_FACTOR * ref.small_states))[1]:
            results += leak_check()
            kills = [(r.id, r.kind, r.depth, r.trace) for r in results if r.verdict == "violated"
                     and ref.leak_verdicts.get((r.id, r.observer)) != "violated"]
            if kills:
                return kills[:1]
    except NotApplicable as e:
        return f"not run ({e})"
    except (ModelError, ArithmeticError, LookupError) as e:
        return f"not run (the mutant does not build or evaluate on the small bounds: {e})"
    except InternalError as e:  # e.g. a difference without a partner game: never read as `holds`
        raise MutantCheckFailed(f"the small-bounds leak check failed: {str(e).splitlines()[0]}") from None
    # A leak check that failed inside the tool is never read as `holds`: unless another rival's leak kills the
    # mutant (returned above), its run ends in `error`.
    failed = [r for r in results if r.verdict == "error"]
    if failed:
        raise MutantCheckFailed(f"the small-bounds leak check failed: {failed[0].detail}")
    if any(r.verdict == "unknown" for r in results):
        return "inconclusive: " + next(r.detail for r in results if r.verdict == "unknown")
    return None


def _leak_checks(small, config: CheckConfig) -> tuple[int, tuple]:
    """(states explored, the calls): `hidden-identity`, then `possibilistic`, for every rival on `small`, from
    one exploration; each call returns its results."""
    from checks.analyses.leaks import check_leaks
    from checks.analyses.possible import check_possible
    explorer = Explorer(small, config)
    ex = explorer.run()
    return len(ex.states), (lambda: check_leaks(small, config, exploration=ex, compiled=explorer.cm)[0],
                            lambda: check_possible(small, config, exploration=ex, compiled=explorer.cm)[0])


# Many mutants ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """How a worker gets the models: `build()` the original, `small()` the small-bounds model (or None),
    both picklable callables (the pipeline binds them to the game and the proposal)."""

    build: Callable[[], GameModel]
    small: Callable[[], GameModel] | None
    config: CheckConfig


_WORKER: dict = {}


def _init_worker(setup: Setup, ref: Reference) -> None:
    # Run by the task pool after `become_worker` (checks/engines/pool.py, NOTE(workers)): the parent
    # decides what a signal means and terminates the pool, so a worker never raises Interrupted halfway
    # through a mutant, nor outlives a parent that was killed.
    _WORKER.update(model=setup.build(), small=setup.small() if setup.small else None, ref=ref,
                   config=setup.config)


def _work(job: tuple):
    i, mutant = job
    w = _WORKER
    try:
        return i, check_mutant(mutant, w["model"], w["small"], w["ref"], w["config"]), None
    except Exception:  # noqa: BLE001 - the parent reports that mutant as `error`, with the traceback's last line
        return i, None, traceback.format_exc()


def run_mutants(setup: Setup, ref: Reference, mutants: list, jobs: int | None = None,
                progress=None, models: tuple | None = None) -> list[MutantResult]:
    """Classify every mutant; results in the order of `mutants`, whatever `jobs` is.

    `jobs` 1 runs here (with `models` = (model, small) if already built); more use a forked process
    pool. `progress(text)` receives a line after each mutant. An interrupt stops the pool at once
    and propagates (checks/interrupt.py)."""
    jobs = min(jobs or os.cpu_count() or 1, max(len(mutants), 1))
    out: list = [None] * len(mutants)
    tally = _Progress(len(mutants), progress)
    if jobs == 1:
        model, small = models or (setup.build(), setup.small() if setup.small else None)
        for i, m in enumerate(mutants):
            t0 = time.perf_counter()
            out[i] = isolated(lambda m=m: check_mutant(m, model, small, ref, setup.config),
                              lambda e, m=m: _failed(m, t0, e))
            tally.done(out[i])
        return out
    # An interrupt (or the pool itself failing) leaves the `with` block: no worker is left behind.
    with TaskPool(jobs, init=_init_worker, initargs=(setup, ref)) as pool:
        for (i, mutant), done, died in pool.map(_work, list(enumerate(mutants))):
            r: MutantResult | None
            _, r, err = done if died is None else (i, None, died)
            if err is not None:  # one mutant's failure in a worker is that mutant's `error` (issue 39)
                last = err.strip().splitlines()[-1] if err.strip() else "no traceback"
                r = _failed(mutant, time.perf_counter(), InternalError(f"in a worker: {last}"))
                r.traceback = err
            out[i] = r
            tally.done(out[i])
    return out


class _Progress:
    """done/total, killed so far and an estimate of the time left, on each finished mutant."""

    def __init__(self, total: int, sink):
        self.total, self.sink, self.n, self.killed, self.t0 = total, sink, 0, 0, time.perf_counter()

    def done(self, r: MutantResult) -> None:
        self.n += 1
        self.killed += r.verdict == "killed"
        if self.sink is None:
            return
        secs = time.perf_counter() - self.t0
        eta = secs / self.n * (self.total - self.n)
        self.sink(f"mutate: {self.n}/{self.total} done, {self.killed} killed, {secs:.0f}s elapsed, "
                  f"ETA {eta:.0f}s ({r.verdict}: {r.id})")


def tally(results: list[MutantResult], operators: tuple) -> dict:
    """Counts per operator and in total, and the score killed / (killed + survived) (None if no mutant
    was scored), with its range if every `unknown` (or `error`) mutant turned out either way.

    >>> r = [MutantResult(id="a", kind="mutant", verdict=v, engine="explicit", extra={"operator": "x"})
    ...      for v in ("killed", "killed", "survived", "unknown")]
    >>> t = tally(r, ("x",)); t["score"], t["score_range"]
    (0.667, [0.5, 0.75])
    """
    verdicts = ("killed", "survived", "equivalent", "unknown", "invalid", "error")
    per = {op: {v: 0 for v in verdicts} | {"checked": 0} for op in operators}
    for r in results:
        row = per.setdefault(r.operator, {v: 0 for v in verdicts} | {"checked": 0})
        row[r.verdict] += 1
        row["checked"] += 1
    total = {v: sum(row[v] for row in per.values()) for v in verdicts + ("checked",)}
    # An `error` mutant is neither killed nor survived; like an unknown one it could have been either.
    k, s, u = total["killed"], total["survived"], total["unknown"] + total["error"]

    def ratio(a, b):
        return round(a / b, 3) if b else None
    return {"operators": per, "total": total, "score": ratio(k, k + s),
            "score_range": [ratio(k, k + s + u), ratio(k + u, k + s + u)] if u else None}
