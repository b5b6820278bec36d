"""Noninterference (`hidden-identity`): no rival can tell apart two games that differ only in which
hidden face lies where (docs/noninterference.md).

Explicit check: for every reachable state s and every exchange σ of two hidden faces, σ(s) is the
same public board with another secret; every rival's observation of s and of σ(s), prompts
included, must be equal. The first (shortest) state where they differ gives a pair of games:
game A reaches s, game B replays the same public steps from the initial state with the two faces
exchanged. Both games are replayed through the reference semantics before they are shown.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from checks.config import CheckConfig
from checks.explore import Explorer
from checks.results import CheckResult, InternalError
from model.moritani.build import build_model
from model.moritani.observe import (Observer, hidden_faces, hidden_traitor_pairs, swap_faces, swap_traitors,
                                    traitor_public)
from model.expr import walk
from model.expr import Const
from model.trace import Trace

RULES = ("H3", "H4", "H6", "A21")  # and R43 when the Assassinate Leaders module is on


@dataclass
class Leak:
    observer: str
    faces: tuple
    game_a: Trace
    game_b: Trace
    component: str
    seen_a: object
    seen_b: object
    model_b: object
    secret: str = "Face"  # the domain of the exchanged secrets: Terror faces, or Traitor cards


COMPONENTS = ("public board", "Terror tokens on the map", "revealed tokens", "own Karama card",
              "prompt (legal choices)", "engine leak")


def _swap_label(model, label: str, a: int, b: int, domain: str = "Face") -> str:
    act = model.action(label)
    doms = {p.name: p.domain for p in act.rule.params}
    args = []
    for k, v in act.args:
        if doms[k].name == domain:
            v = b if v == a else a if v == b else v
        args.append((k, v))
    if not args:
        return label
    return f"{act.rule.name}(" + ", ".join(f"{k}={doms[k].show(v)}" for k, v in args) + ")"


def check_leaks(proposal, config: CheckConfig, observers: list[str] | None = None,
                exploration=None) -> tuple[list[CheckResult], dict]:
    """One `hidden-identity` result per observer (rival faction)."""
    model = build_model(proposal.bounds, proposal.interpretation, proposal.defects)
    c = model.info["ctx"]
    rivals = [f for f in c.rivals if observers is None or c.F.labels[f] in observers]
    t0 = time.perf_counter()
    explorer = Explorer(model, config)  # compiles the rules once, for the search and for the exchanges
    ex = exploration or explorer.run()
    cm = explorer.cm
    watch = {f: Observer(model, f) for f in rivals}
    acts = model.actions
    found: dict = {}
    pairs = 0
    # NOTE(observation-shape): board, tokens-by-ID, revealed tokens and the own card are the same
    # in s and in any exchange of hidden faces by construction; only prompts (and seeded engine
    # leaks) can differ, and prompts exist only in stages where some rival may act. The stage is
    # public, so skipping the other stages is exact, not a sample.
    stage = model.schema.slot("stage")
    prompting = {v for v, idxs in cm.buckets.items()
                 if any(acts[i].actor is not None and acts[i].actor != Const(c.M) for i in idxs)}
    every_state = bool(model.info["defects"])
    for idx, s in enumerate(ex.states):
        if len(found) == len(rivals):
            break
        if not every_state and s[stage] not in prompting:
            continue
        hidden = hidden_faces(model, s)
        if len(hidden) < 2:
            continue
        en_s = [acts[i] for i, _ in cm.successors(s)]
        obs_s = {f: w.observe(s, en_s) for f, w in watch.items() if f not in found}
        for a, b in itertools.combinations(hidden, 2):
            s2 = swap_faces(model, s, a, b)
            en_2 = [acts[i] for i, _ in cm.successors(s2)]
            pairs += 1
            for f, o1 in obs_s.items():
                if f in found:
                    continue
                o2 = watch[f].observe(s2, en_2)
                if o1 != o2:
                    leak = _witness(model, ex, idx, a, b, f, o1, o2)
                    if leak is not None:
                        found[f] = leak
    if c.module and len(found) < len(rivals):
        pairs += _traitor_leaks(model, ex, cm, watch, found)
    secs = time.perf_counter() - t0
    results = []
    for f in rivals:
        name = c.F.labels[f]
        if f in found:
            lk = found[f]
            dom = c.K if lk.secret == "Face" else c.T
            results.append(CheckResult(
                "hidden-identity", "noninterference", "violated", "product", RULES, len(ex.states),
                lk.game_a.depth, secs,
                f"{name} can tell {dom.labels[lk.faces[0]]} from {dom.labels[lk.faces[1]]} after "
                f"{lk.game_a.depth} steps: its {lk.component} differs",
                trace=lk.game_a, extra={"observer": name, "leak": lk}))
        elif ex.complete:
            results.append(CheckResult(
                "hidden-identity", "noninterference", "holds", "product", RULES, len(ex.states), ex.max_depth,
                secs, f"{name} sees the same in every reachable state under every exchange of two hidden faces "
                      + ("(and of Moritani's private Traitor card with a deck card, step by step) " if c.module else "")
                      + f"({pairs:,} state pairs compared)", extra={"observer": name}))
        else:
            results.append(CheckResult(
                "hidden-identity", "noninterference", "unknown", "product", RULES, len(ex.states), None, secs,
                f"search stopped ({ex.stop_reason}); nothing is claimed", extra={"observer": name}))
    return results, {"state_pairs": pairs, "states": len(ex.states), "seconds": secs}


def _traitor_leaks(model, ex, cm, watch, found) -> int:
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
    Returns the number of state pairs compared; adds a Leak per observer to `found`.
    """
    c, acts = model.info["ctx"], model.actions
    stage = model.schema.slot("stage")

    def reads(a) -> bool:
        exprs = [a.guard] + [e for _, idx, e in a.effects] + [i for _, idx, _ in a.effects for i in idx]
        return any(getattr(n, "field", None) == "trz" for x in exprs for n in walk(x))

    stages = {v for v, idxs in cm.buckets.items() if any(reads(acts[i]) for i in idxs)}
    board = lambda t: (tuple(t[i] for i in next(iter(watch.values())).public), traitor_public(model, t))  # noqa: E731
    pairs = 0
    for idx, s in enumerate(ex.states):
        if len(found) == len(watch):
            break
        if s[stage] not in stages:
            continue
        succ_s = cm.successors(s)
        en_s = [acts[i] for i, _ in succ_s]
        for a, b in hidden_traitor_pairs(model, s):
            pairs += 1
            s2 = swap_traitors(model, s, a, b)
            succ_2 = cm.successors(s2)
            en_2 = [acts[i] for i, _ in succ_2]
            twin = {acts[i].label: t for i, t in succ_2}
            for f, w in watch.items():
                if f not in found and w.observe(s, en_s) != w.observe(s2, en_2):
                    leak = _traitor_witness(model, ex, idx, a, b, f, None, None)
                    if leak is not None:
                        found[f] = leak
            for i, t in succ_s:
                lab2 = _swap_label(model, acts[i].label, a, b, "Traitor")
                if lab2 == acts[i].label and lab2 in twin and board(swap_traitors(model, t, a, b)) != board(twin[lab2]):
                    for f in watch:
                        if f not in found:
                            leak = _traitor_witness(model, ex, idx, a, b, f, acts[i].label, lab2)
                            if leak is not None:
                                found[f] = leak
                    break
            if len(found) == len(watch):
                break
    return pairs


def _traitor_witness(model, ex, idx, a, b, f, step_a, step_b) -> Leak | None:
    """Game A reaches s (then takes step_a); game B plays the same public steps with Traitor cards a
    and b exchanged (then step_b). Both are replayed; None if game B is not playable."""
    c = model.info["ctx"]
    game_a = ex.trace_to(idx)
    labels_a = list(game_a.labels) + ([step_a] if step_a else [])
    try:
        labels_b = [_swap_label(model, lab, a, b, "Traitor") for lab in game_a.labels] + ([step_b] if step_b else [])
        game_a = Trace.from_actions(model, model.init[0], labels_a)
        game_b = Trace.from_actions(model, model.init[0], labels_b)
    except Exception:
        return None
    for t in (game_a, game_b):
        problems = t.replay(model)
        if problems:
            raise InternalError(f"leak witness does not replay: {problems[0]}")
    from model.evaluate import successors
    end_a, end_b = game_a.states[-1], game_b.states[-1]
    w = Observer(model, f)
    o1 = w.observe(end_a, [x for x, _ in successors(model, end_a)])
    o2 = w.observe(end_b, [x for x, _ in successors(model, end_b)])
    if o1 == o2:
        return None
    comp = next(i for i, (x, y) in enumerate(zip(o1, o2)) if x != y)
    return Leak(c.F.labels[f], (a, b), game_a, game_b, COMPONENTS[comp], o1[comp], o2[comp], model, "Traitor")


def _witness(model, ex, idx, a, b, f, o1, o2) -> Leak | None:
    """Build and replay the pair of games; None if game B is not public-equivalent (skip it)."""
    c = model.info["ctx"]
    game_a = ex.trace_to(idx)
    pids = [model.get(model.init[0], "pid", k) for k in c.faces]
    pids[a], pids[b] = pids[b], pids[a]
    model_b = build_model(c.bounds, c.interp, tuple(model.info["defects"]), pids=tuple(pids))
    try:
        labels_b = [_swap_label(model, lab, a, b) for lab in game_a.labels]
        game_b = Trace.from_actions(model_b, model_b.init[0], labels_b)
    except Exception:
        return None
    for m, t in ((model, game_a), (model_b, game_b)):
        problems = t.replay(m)
        if problems:
            raise InternalError(f"leak witness does not replay: {problems[0]}")
    # The witness counts only if the observer really sees the two replayed games differently.
    from model.evaluate import successors
    end_a, end_b = game_a.states[-1], game_b.states[-1]
    o1 = Observer(model, f).observe(end_a, [x for x, _ in successors(model, end_a)])
    o2 = Observer(model_b, f).observe(end_b, [x for x, _ in successors(model_b, end_b)])
    if o1 == o2:
        return None
    comp = next(i for i, (x, y) in enumerate(zip(o1, o2)) if x != y)
    return Leak(c.F.labels[f], (a, b), game_a, game_b, COMPONENTS[comp], o1[comp], o2[comp], model_b)


def side_by_side(leak: Leak, model) -> str:
    """The two games in game words, step by step, then what the observer saw differently."""
    a = leak.game_a.narrative(model).splitlines()
    b = leak.game_b.narrative(leak.model_b).splitlines()
    w = max(len(x) for x in a) if a else 10
    lines = [f"{'game A':<{w}}  |  game B"]
    lines += [f"{x:<{w}}  |  {y}" for x, y in zip(a, b)]
    lines.append(f"{leak.observer} sees a different {leak.component}: A={leak.seen_a!r}  B={leak.seen_b!r}")
    return "\n".join(lines)
