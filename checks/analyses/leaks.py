"""Noninterference (`hidden-identity`): no rival can tell apart two games that differ only in which
secret value lies where (docs/noninterference.md). The game declares its secrets, observations and
exchanges (`model.secrets`, model/declarations.py); this module knows no game.

Explicit check, at every reachable state s and every exchange σ of two hidden values (σ(s) is the
same public board with another secret):

- every rival observes s and σ(s) alike, prompts included;
- step consistency: for every step a from s and the step a' from σ(s) with the same public label,
  every rival observes the two successors alike, and the successors are again equal up to a
  permutation of hidden values (`Secrets.permutation`). The first condition alone misses a
  secret that a step copies into a public field; the second is what makes the state-by-state
  comparison cover every pair of public-equivalent games, as the Z3 relational proof does.

A difference is never discarded. Game A is the shortest path to it; games B are searched for in
lockstep: from a start with two values exchanged, B takes at each step an action with the same
public label as A's. Game A is a leak witness when every such B either shows the rival something
else at some step (the start and the end included) or cannot take one of A's steps at all
(`partner_game`); the pair is cut where the rival tells the games apart. Both games are replayed
through the reference semantics. If, for every exchange, some game B looks like game A at every
step, that is `PartnerGameError` (an internal error) carrying game A and the state it was
compared with, never `holds`: that observer's verdict is `error` with game A (exit 1 unless a check
is violated), and the comparison goes on for the other observers (issue 39).
"""
from __future__ import annotations

import itertools
import time
from typing import Any
from dataclasses import dataclass

from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.results import CheckResult, InternalError, error_result, isolated, validated
from model.evaluate import apply, successors
from model.game import GameModel
from model.expr import Const, Var, walk
from model.trace import Step, Trace

RULES = ("H3", "H4", "H6", "A21")  # and R43 when the Assassinate Leaders module is on
COMPONENTS = ("public board", "Terror tokens on the map", "revealed tokens", "own Karama card",
              "prompt (legal choices)", "engine leak", "public step")
STEP, NO_STEP = COMPONENTS[-1], "no such step"  # a leak shown by a step game B cannot take


@dataclass
class Leak:
    observer: str
    faces: tuple
    game_a: Trace
    game_b: Trace
    component: str
    seen_a: object
    seen_b: object
    model_b: GameModel
    secret: str = "value"  # which secret was exchanged: "value" (Secrets.domain) or "card" (Secrets.card_domain)
    check: str = "hidden-identity"  # or `possibilistic` (checks/analyses/possible.py): a step game B cannot take


class PartnerGameError(InternalError):
    """A difference was found but no public-equivalent game B reproduces it: a bug in the check or
    in its definition, never a verdict. Carries game A and the state it was compared with."""

    def __init__(self, message: str, model, game_a: Trace, state_b: tuple):
        self.game = self.game_a = game_a  # `game`: the report shows it beside the check's `error` verdict
        self.state_b = state_b
        super().__init__(f"{message}\ngame A ({game_a.depth} steps, replayed):\n{game_a.narrative(model)}\n"
                         f"state compared with game A's last state: {model.schema.pretty(state_b)}")

    def __reduce__(self):  # it may cross a process boundary (check's guards run in a forked child)
        return _partner_error, (str(self), self.game_a, self.state_b)


def _partner_error(text: str, game_a: Trace, state_b: tuple) -> PartnerGameError:
    err = PartnerGameError.__new__(PartnerGameError)
    InternalError.__init__(err, text)
    err.game = err.game_a = game_a
    err.state_b = state_b
    return err


@dataclass
class _Search:
    """What the comparison found so far (per observer) and how much it compared."""

    found: dict  # observer -> Leak, or the exception that building its leak pair raised (`_leak`)
    unrelated: list
    pairs: int = 0
    steps: int = 0
    config: CheckConfig | None = None  # its clock (--timeout) bounds the comparison too
    t0: float = 0.0
    cut: str | None = None             # why the comparison stopped before the last state, if it did

    def out_of_time(self, idx: int) -> bool:
        """Checked every 512 states: the budget's clock ran out (the comparison is then incomplete)."""
        if idx % 512 or self.config is None or not self.config.out_of_time(self.t0):
            return False
        self.cut = f"timeout {self.config.timeout}s reached after comparing {idx:,} states"
        return True


def check_leaks(model, config: CheckConfig, observers: list[str] | None = None,
                exploration=None, compiled=None) -> tuple[list[CheckResult], dict]:
    """One `hidden-identity` result per observer (rival faction).

    >>> from model.moritani import GAME
    >>> results, stats = check_leaks(GAME.build(GAME.small(GAME.profiles["default"])), CheckConfig())
    >>> [r.verdict for r in results], stats["state_pairs"]
    (['holds', 'holds', 'holds'], 43530)
    """
    sec = model.secrets
    rivals = [f for f in sec.observers if observers is None or sec.label(f) in observers]
    t0 = time.perf_counter()
    explorer = Explorer(model, config, compiled)  # compiles the rules once, for the search and the exchanges
    ex = exploration or explorer.run()
    watch = {f: sec.observer(f) for f in rivals}
    search = _Search({}, [], config=config, t0=t0)
    _compare_values(model, ex, explorer.cm, watch, search)
    if sec.cards() is not None and len(search.found) < len(rivals) and search.cut is None:
        search.pairs += _traitor_leaks(model, ex, explorer.cm, watch, search)
    secs = time.perf_counter() - t0
    results = [_verdict(model, ex, f, search, secs) for f in rivals]
    return results, {"state_pairs": search.pairs, "step_pairs": search.steps, "states": len(ex.states),
                     "seconds": secs}


def _compare_values(model, ex, cm, watch: dict, search: _Search) -> None:
    """Every reachable state against every exchange of two hidden values, then one step on.

    NOTE(observation-shape): board, values by public ID, revealed values and the own card are the
    same in s and in any exchange of hidden values by construction; only prompts (and seeded engine
    leaks) can differ, and prompts exist only in stages where some rival may act. The stage is
    public, so skipping the other stages is exact, not a sample. Successors can differ only after
    a step that reads a secret or has a partner other than itself (`needs_step_check`).
    """
    sec, acts = model.secrets, model.actions
    stage = model.schema.slot(model.dispatch)
    prompting = {v for v, idxs in cm.buckets.items() if any(_may_prompt(sec, acts[i].actor) for i in idxs)}
    stepped = needs_step_check(model)
    stepping = {v for v, idxs in cm.buckets.items() if any(stepped[i] for i in idxs)}
    every_state = bool(model.provenance.defects)  # seeded engine leaks may show in any stage
    found = search.found
    for idx, s in enumerate(ex.states):
        if len(found) == len(watch) or search.out_of_time(idx):
            return
        if not every_state and s[stage] not in prompting and s[stage] not in stepping:
            continue
        hidden = sec.hidden(s)
        if len(hidden) < 2:
            continue
        succ_s = cm.successors(s)
        en_s = [acts[i] for i, _ in succ_s]
        obs_s = {f: w.observe(s, en_s) for f, w in watch.items() if f not in found}
        check_steps = any(stepped[i] for i, _ in succ_s)
        seen_a: dict = {}  # game A's successors are the same for every exchange at s: observed once
        for a, b in itertools.combinations(hidden, 2):
            s2 = sec.swap(s, a, b)
            succ_2 = cm.successors(s2)
            search.pairs += 1
            en_2 = [acts[i] for i, _ in succ_2]
            for f, o1 in obs_s.items():
                if f not in found and o1 != watch[f].observe(s2, en_2):
                    found[f] = _leak(model, ex, idx, None, (a, b), f, s2)
            if check_steps:
                _compare_steps(model, ex, idx, (s, succ_s), (s2, succ_2), (a, b), stepped, watch, search, seen_a)
            if len(found) == len(watch):
                return


def _compare_steps(model, ex, idx, side_a, side_b, pair, stepped, watch, search: _Search,
                   seen_a: dict | None = None) -> None:
    """Step consistency at s (`side_a`) and σ(s) (`side_b`): equally labelled steps give successors
    every rival sees alike, and the exchanged step lands on the exchanged successor. `seen_a` keeps
    the observations of game A's successors across the exchanges compared at the same s."""
    seen_a = {} if seen_a is None else seen_a
    sec, acts = model.secrets, model.actions
    (s, succ_s), (s2, succ_2) = side_a, side_b
    partners: dict = {}
    for j, t2 in succ_2:
        partners.setdefault(sec.public_key(acts[j], s2), []).append((j, t2))
    for i, t in succ_s:
        if not stepped[i]:
            continue
        image = sec.exchange_label(acts[i], *pair)
        for j, t2 in partners.get(sec.public_key(acts[i], s), ()):
            search.steps += 1
            for f, w in watch.items():
                if f in search.found:
                    continue
                o1 = seen_a.get((f, i))
                if o1 is None:
                    o1 = seen_a[(f, i)] = w.observe(t, [])
                if o1 != w.observe(t2, []):
                    search.found[f] = _leak(model, ex, idx, i, pair, f, t2)
            # Other steps with the same label differ in another secret (a Traitor card drawn),
            # which `_traitor_leaks` exchanges; the exchanged step must land on the exchanged
            # successor, up to public IDs re-dealt on a return to supply.
            if acts[j].label == image and not search.unrelated and sec.permutation(t, t2) is None:
                search.unrelated.append((idx, acts[i].label, acts[j].label))


def _may_prompt(sec, actor) -> bool:
    """Could a rival be the one to act (so that its prompt is part of what it observes)?"""
    if actor is None:
        return False
    return not isinstance(actor, Const) or actor.value in sec.observers


def _verdict(model, ex, f: int, search: _Search, secs: float) -> CheckResult:
    sec = model.secrets
    name = sec.label(f)
    common: dict[str, Any] = dict(id="hidden-identity", kind="noninterference", engine="product", rules=RULES,
                  states=len(ex.states), seconds=secs)
    if isinstance(search.found.get(f), Exception):  # the leak pair for f could not be built (`_leak`)
        r = error_result(search.found[f], id="hidden-identity", kind="noninterference", engine="product",
                         rules=RULES, what=f"the leak check for {name}", observer=name)
        r.states, r.seconds = len(ex.states), secs
        return r
    if f in search.found:
        lk = search.found[f]
        labels = sec.value_labels if lk.secret == "value" else sec.card_labels
        what = (f"game A's last step ({lk.seen_a}) has no public equivalent once the two are exchanged"
                if lk.component == STEP else f"its {lk.component} differs")
        return CheckResult(**common, verdict="violated", depth=lk.game_a.depth, trace=lk.game_a,
                           detail=f"{name} can tell {labels[lk.faces[0]]} from {labels[lk.faces[1]]} after "
                                  f"{lk.game_a.depth} steps: {what}",
                           extra={"observer": name, "leak": lk})
    if not ex.complete or search.cut:
        return CheckResult(**common, verdict="unknown", depth=None, extra={"observer": name},
                           detail=f"search stopped ({ex.stop_reason or search.cut}); nothing is claimed")
    if search.unrelated:
        idx, la, lb = search.unrelated[0]
        return CheckResult(**common, verdict="unknown", depth=None, extra={"observer": name},
                           detail=f"{name}: after '{la}' (game A) and '{lb}' (game B) from a state {ex.depth[idx]} "
                                  f"steps deep the two games are no longer equal up to an exchange of hidden faces, "
                                  f"although {name} sees them alike; the state-by-state comparison does not cover "
                                  f"what follows, so nothing is claimed")
    cards = sec.cards() is not None
    return CheckResult(**common, verdict="holds", depth=ex.max_depth, extra={"observer": name},
                       detail=f"{name} sees the same in every reachable state under every exchange of two hidden "
                              f"faces, and after every pair of equally labelled steps "
                              + ("(and of Moritani's private Traitor card with a deck card, step by step) "
                                 if cards else "")
                              + f"({search.pairs:,} state pairs, {search.steps:,} step pairs compared)")


def needs_step_check(model) -> list[bool]:
    """Per action: may its successors from s and from σ(s) differ beyond the exchange itself?

    Only if one of its effects reads a field the public does not see (a secret, ghost or engine
    field: the step may copy it into what the rival sees), or the public cannot tell it from
    another action (its partner in σ(s) may be that other action, with other effects).
    """
    sec = model.secrets
    hidden = sec.unobserved_fields()
    groups: dict = {}
    for a in model.actions:
        g = sec.public_group(a)
        groups[g] = groups.get(g, 0) + 1
    out = []
    for a in model.actions:
        reads = {n.field for _, idx, e in a.effects for x in (e,) + tuple(idx) for n in walk(x) if isinstance(n, Var)}
        out.append(bool(reads & hidden) or groups[sec.public_group(a)] > 1)
    return out


def _traitor_leaks(model, ex, cm, watch, search: _Search) -> int:
    """Exchanges of Moritani's private Traitor card with a deck card (Assassinate Leaders module).

    Two conditions, at every reachable state s where Moritani holds a private card, for every
    exchange σ of it with a deck card: every rival observes s and σ(s) alike (as for faces), and
    (step consistency) every action a enabled in both s and σ(s) that names neither card leads to
    public boards that agree: board(σ(succ(s, a))) = board(succ(σ(s), a)). The second
    catches a decision whose very existence depends on the card (the rivals see the stage), which
    a comparison of s with σ(s) alone cannot. Only stages where some rule reads Traitor custody
    are visited: elsewhere every step is the same in s and σ(s) (exact, the stage is public).
    An action naming one of the two cards is Moritani revealing it (a normal call or an Assassinate
    Leaders reveal): a deliberate declassification, skipped.
    Returns the number of state pairs compared; adds a Leak per observer to `search.found`.
    """
    sec, acts, found = model.secrets, model.actions, search.found
    stage = model.schema.slot(model.dispatch)
    card_field = model.schema.slot_names[sec.cards()[0][0]].split("[")[0]

    def reads(a) -> bool:
        exprs = [a.guard] + [e for _, idx, e in a.effects] + [i for _, idx, _ in a.effects for i in idx]
        return any(getattr(n, "field", None) == card_field for x in exprs for n in walk(x))

    stages = {v for v, idxs in cm.buckets.items() if any(reads(acts[i]) for i in idxs)}
    public = sec.public_slots()
    board = lambda t: (tuple(t[i] for i in public), sec.public_cards(t))  # noqa: E731
    pairs = 0
    for idx, s in enumerate(ex.states):
        if len(found) == len(watch) or search.out_of_time(idx):
            break
        if s[stage] not in stages:
            continue
        succ_s = cm.successors(s)
        en_s = [acts[i] for i, _ in succ_s]
        for a, b in sec.card_pairs(s):
            pairs += 1
            s2 = sec.swap_cards(s, a, b)
            succ_2 = cm.successors(s2)
            en_2 = [acts[i] for i, _ in succ_2]
            twin = {acts[i].label: t for i, t in succ_2}
            for f, w in watch.items():
                if f not in found and w.observe(s, en_s) != w.observe(s2, en_2):
                    found[f] = _leak(model, ex, idx, None, (a, b), f, s2, "card")
            for i, t in succ_s:
                lab = acts[i].label
                if _names_card(acts[i], (a, b), sec.card_domain) or lab not in twin:
                    continue
                if board(sec.swap_cards(t, a, b)) != board(twin[lab]):
                    for f in watch:
                        if f not in found:
                            found[f] = _leak(model, ex, idx, i, (a, b), f, twin[lab], "card")
                    break
            if len(found) == len(watch):
                break
    return pairs


def _names_card(action, cards, domain: str) -> bool:
    doms = {p.name: p.domain for p in action.rule.params}
    return any(doms[k].name == domain and v in cards for k, v in action.args)


def _leak(model, ex, idx: int, step: int | None, pair: tuple, f: int, state_b: tuple,
          secret: str = "value") -> Leak | Exception:
    """`_leak_pair`, or the exception it raised: that observer's verdict is then `error` (with game A when
    the exception carries it) and the comparison goes on for the other observers (issue 39)."""
    return isolated(lambda: _leak_pair(model, ex, idx, step, pair, f, state_b, secret), lambda e: e)


def _leak_pair(model, ex, idx: int, step: int | None, pair: tuple, f: int, state_b: tuple,
               secret: str = "value") -> Leak:
    """The pair of games behind a difference found at state `idx` (then action `step`), replayed.

    Game A is the shortest path to the difference; `partner_game` decides, per start with two
    values exchanged, whether every public-equivalent game B fails to match it (a witness, which
    may end earlier than the difference: both games are then cut where the rival tells them
    apart). Raises PartnerGameError when, for every exchange, some game B matches game A's
    observations at every step: a found difference is never dropped (docs/noninterference.md,
    "Counterexamples").
    """
    sec = model.secrets
    game_a = ex.trace_to(idx)
    if step is not None:
        s = model.actions[step]
        game_a = Trace(game_a.init, game_a.steps + (Step(s.label, apply(s, game_a.states[-1], model.schema)),))
    validated(model, game_a, "the leak witness (game A)")
    # For the Traitor card, game B starts where game A does: a secret draw's public label hides the
    # card, so B may simply draw another one (NOTE(traitor-secret) in checks/analyses/leaks_z3.py).
    # The draw of either card is then exchanged: game B draws the other card where game A draws one.
    candidates = sec.partner_models(model, pair) if secret == "value" else (model,)
    drawn = None
    if secret != "value":
        drawn = [sec.exchange_label(a, *pair, domain=sec.card_domain) if _names_card(a, pair, sec.card_domain) else None
                 for a in map(model.action, game_a.labels)]
    chosen = None  # the first exchange with an observed difference; else the first with a missing step
    for model_b in candidates:
        found = partner_game(model, game_a, model_b, f, drawn, pair if secret == "value" else None)
        if found is not None and (chosen is None or chosen[1].stuck and not found.stuck):
            chosen = (model_b, found)
            if not found.stuck:
                break
    if chosen is None:
        raise PartnerGameError(
            f"hidden-identity: {sec.label(f)} sees a difference after game A, but a game with the same public "
            f"steps from every start with two {'faces' if secret == 'value' else 'cards'} exchanged shows "
            f"the same at every step", model, game_a, state_b)
    model_b, found = chosen
    game_a = Trace(game_a.init, game_a.steps[:found.steps])
    game_b = found.game_b
    validated(model_b, game_b, "the leak witness (game B)")
    if found.stuck:  # game B cannot take game A's last step: the public step itself differs
        pre, act = game_a.states[-2], model.action(game_a.labels[-1])
        return Leak(sec.label(f), pair, game_a, game_b, STEP, sec.public_label(act, pre), NO_STEP, model_b, secret)
    o1, o2 = _observe_end(model, game_a, f), _observe_end(model_b, game_b, f)
    comp = next(i for i, (x, y) in enumerate(zip(o1, o2)) if x != y)
    seen_a, seen_b = o1[comp], o2[comp]
    if comp == 0:  # name the public slots that differ rather than print the whole board
        end_a, end_b, sch = game_a.states[-1], game_b.states[-1], model.schema
        slots = [i for i in sec.public_slots() if end_a[i] != end_b[i]]
        seen_a = {sch.slot_names[i]: sch.show(i, end_a[i]) for i in slots} or seen_a
        seen_b = {sch.slot_names[i]: sch.show(i, end_b[i]) for i in slots} or seen_b
    return Leak(sec.label(f), pair, game_a, game_b, COMPONENTS[comp], seen_a, seen_b, model_b, secret)


def _observe_end(model, game: Trace, f: int) -> tuple:
    end = game.states[-1]
    return model.secrets.observer(f).observe(end, [a for a, _ in successors(model, end)])


@dataclass
class Partner:
    """A game B that shows rival f a difference from game A: after `steps` of game A's steps B's
    state looks different (`stuck` False; B has `steps` steps), or B cannot take game A's step
    number `steps` (`stuck` True; B has `steps - 1` steps)."""

    game_b: Trace
    steps: int
    stuck: bool


class _Matched(Exception):
    """Some game B takes every public step of game A and shows rival f the same at every step."""


def partner_game(model, game_a: Trace, model_b, f: int, labels: list | None = None,
                 pair: tuple | None = None) -> Partner | None:
    """Whether every game of `model_b` with game A's public steps shows rival f a difference, and
    the witness if so; None if some such game looks the same as game A at every step.

    A game B takes, at each step, an action whose public key (`Secrets.public_key`) is that of
    A's step. It diverges (a) at step i if f's observation of B's state (prompts included) is not
    its observation of A's state i (i = 0 is the start), or (b) at step i + 1 if no enabled action
    of B has the key of A's step i + 1. Game A is a leak witness when every B diverges; the witness
    is the B that diverges by (a) the earliest, else the B stuck (b) the latest. Depth-first in
    action order, each state of B expanded once per step number: what follows depends only on
    those two, so the answer and the witness are deterministic. `labels[i]`, where not None, is the
    one action B must take at step i (a secret draw of an exchanged Traitor card: the other card).

    NOTE(declassified): from the first state of game A where a value of the exchanged `pair` is no
    longer hidden (a reveal; an Extortion can later return to supply hidden again), B may differ
    because the rules made the secret public, not because of a leak. Such a divergence is never a
    witness; if it is all there is, no witness exists and the caller reports PartnerGameError (an
    internal error carrying game A), never a violation it cannot substantiate.
    """
    sec = model.secrets
    limit = len(game_a.states)
    if pair is not None:
        limit = next((i for i, s in enumerate(game_a.states) if not set(pair) <= set(sec.hidden(s))), limit)
    keys = [sec.public_key(model.action(lab), pre) for lab, pre in zip(game_a.labels, game_a.states)]
    watch_a, watch = sec.observer(f), model_b.secrets.observer(f)
    seen_a = [watch_a.observe(s, [a for a, _ in successors(model, s)]) for s in game_a.states]
    public_key = model_b.secrets.public_key
    best: dict = {}  # "diverges": (i, steps) earliest; "stuck": (i, steps) latest
    seen: set = set()

    def search(i: int, s: tuple, steps: list) -> None:
        succ = successors(model_b, s)
        if watch.observe(s, [a for a, _ in succ]) != seen_a[i]:
            if i >= limit:
                return  # the rules declassified the pair before this difference: not a witness
            if "diverges" not in best or i < best["diverges"][0]:
                best["diverges"] = (i, steps)
            return
        if i == len(keys):
            raise _Matched
        nxt = [(act, t) for act, t in succ if public_key(act, s) == keys[i]
               and (labels is None or labels[i] is None or act.label == labels[i])]
        if not nxt and i + 1 < limit and ("stuck" not in best or i > best["stuck"][0]):
            best["stuck"] = (i, steps)
        for act, t in nxt:
            if (i + 1, t) not in seen:
                seen.add((i + 1, t))
                search(i + 1, t, steps + [Step(act.label, t)])

    s0 = model_b.init[0]
    try:
        search(0, s0, [])
    except _Matched:
        return None
    if "diverges" in best:
        i, steps = best["diverges"]
        return Partner(Trace(s0, tuple(steps)), i, False)
    if "stuck" in best:
        i, steps = best["stuck"]
        return Partner(Trace(s0, tuple(steps)), i + 1, True)
    return None


def side_by_side(leak: Leak, model) -> str:
    """The two games in game words, step by step, then what the observer saw differently."""
    a = leak.game_a.narrative(model).splitlines()
    b = leak.game_b.narrative(leak.model_b).splitlines()
    w = max(len(x) for x in a) if a else 10
    lines = [f"{'game A':<{w}}  |  game B"]
    lines += [f"{x:<{w}}  |  {y}" for x, y in itertools.zip_longest(a, b, fillvalue="")]
    if leak.component == STEP:
        lines.append(f"game B cannot take game A's step {leak.game_a.depth}: no enabled step has its public label")
    lines.append(f"{leak.observer} sees a different {leak.component}: A={leak.seen_a!r}  B={leak.seen_b!r}")
    return "\n".join(lines)
