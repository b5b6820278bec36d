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
from model.moritani.observe import Observer, hidden_faces, swap_faces
from model.expr import Const
from model.trace import Trace

RULES = ("H3", "H4", "H6", "A21")


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


COMPONENTS = ("public board", "Terror tokens on the map", "revealed tokens", "own Karama card",
              "prompt (legal choices)", "engine leak")


def _swap_label(model, label: str, a: int, b: int) -> str:
    act = model.action(label)
    doms = {p.name: p.domain for p in act.rule.params}
    args = []
    for k, v in act.args:
        if doms[k].name == "Face":
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
    secs = time.perf_counter() - t0
    results = []
    for f in rivals:
        name = c.F.labels[f]
        if f in found:
            lk = found[f]
            results.append(CheckResult(
                "hidden-identity", "noninterference", "violated", "product", RULES, len(ex.states),
                lk.game_a.depth, secs,
                f"{name} can tell {c.K.labels[lk.faces[0]]} from {c.K.labels[lk.faces[1]]} after "
                f"{lk.game_a.depth} steps: its {lk.component} differs",
                trace=lk.game_a, extra={"observer": name, "leak": lk}))
        elif ex.complete:
            results.append(CheckResult(
                "hidden-identity", "noninterference", "holds", "product", RULES, len(ex.states), ex.max_depth,
                secs, f"{name} sees the same in every reachable state under every exchange of two hidden faces "
                      f"({pairs:,} state pairs compared)", extra={"observer": name}))
        else:
            results.append(CheckResult(
                "hidden-identity", "noninterference", "unknown", "product", RULES, len(ex.states), None, secs,
                f"search stopped ({ex.stop_reason}); nothing is claimed", extra={"observer": name}))
    return results, {"state_pairs": pairs, "states": len(ex.states), "seconds": secs}


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
