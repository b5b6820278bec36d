"""Possibilistic noninterference (`possibilistic`): what a rival can see happen must not depend on a hidden
value (docs/noninterference.md, "Possibilistic noninterference"). The game declares its secrets, exchanges,
public labels and releases (`model.secrets`, model/declarations.py); this module knows no game.

`hidden-identity` compares what a rival observes in s and in σ(s) (two hidden values exchanged), and the
successors of equally labelled steps; it never asks whether a step taken in s exists in σ(s) at all. A choice
the rival does not see (another player's prompt) may then depend on the hidden value while every state looks
alike. This check asks it: for every reachable state s, every exchange σ of two hidden values and every rival o,
every step enabled in s that o does not choose itself has a step with the same public label
(`Secrets.public_key`) enabled in σ(s), unless it reveals one of the two values (declassified) or the game
declares a release for it (`Secrets.released`). o's own choices are o's prompt, which hidden-identity compares.

A violation is two games, both replayed through the reference semantics: game A, the shortest path to s and
then the step; game B, from the start with the two values exchanged, taking game A's public steps until it
cannot take one (`twin_game`: searched over every such game, never assumed). If for every exchange some game B
takes all of game A's steps, that is `PartnerGameError` (an internal error carrying game A), never `holds`.
"""
from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Any
from dataclasses import dataclass

from checks.analyses.leaks import NO_STEP, STEP, Leak, Partner, PartnerGameError
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.results import CheckResult, validated
from model.evaluate import apply, eval_expr, successors
from model.expr import Var, walk
from model.trace import Step, Trace

CHECK = "possibilistic"
RULES = ("H6", "R19", "R21", "A21")


@dataclass
class _Scan:
    """What the comparison found (per observer) and counted."""

    found: dict
    pairs: int = 0      # (s, σ) compared
    steps: int = 0      # steps of s looked up in σ(s)
    revealing: int = 0  # missing steps that reveal an exchanged value (declassified)
    released: int = 0   # missing steps the game's declared release covers
    config: CheckConfig | None = None
    t0: float = 0.0
    cut: str | None = None

    def out_of_time(self, idx: int) -> bool:
        if idx % 512 or self.config is None or not self.config.out_of_time(self.t0):
            return False
        self.cut = f"timeout {self.config.timeout}s reached after {idx:,} states"
        return True


def check_possible(model, config: CheckConfig, observers: list[str] | None = None,
                   exploration=None, compiled=None) -> tuple[list[CheckResult], dict]:
    """One `possibilistic` result per observer (rival faction).

    >>> from model.moritani import GAME
    >>> results, stats = check_possible(GAME.build(GAME.small(GAME.profiles["default"])), CheckConfig())
    >>> [r.verdict for r in results], stats["state_pairs"] > 0
    (['holds', 'holds', 'holds'], True)
    """
    sec = model.secrets
    rivals = [f for f in sec.observers if observers is None or sec.label(f) in observers]
    t0 = time.perf_counter()
    explorer = Explorer(model, config, compiled)
    ex = exploration or explorer.run()
    scan = _Scan({}, config=config, t0=t0)
    _compare(model, ex, explorer.cm, rivals, scan)
    secs = time.perf_counter() - t0
    results = [_verdict(model, ex, f, scan, secs) for f in rivals]
    return results, {"state_pairs": scan.pairs, "steps": scan.steps, "revealing": scan.revealing,
                     "released": scan.released, "states": len(ex.states), "seconds": secs}


def value_sensitive(model) -> list[bool]:
    """Per action: may its availability differ between s and σ(s)? Only if its guard reads a field some
    exchange moves or renames, or some exchange renames the action itself (a parameter over the secret
    domain, a per-value rule family). Any other action is enabled in σ(s) exactly when in s, with the same
    public label: exact, so the scan skips it."""
    sec, sch = model.secrets, model.schema
    touched: set = set()
    for a, b in itertools.combinations(sec.values, 2):
        perm, valued = sec.exchange_slots(a, b)
        touched |= {sch.slot_fields[i].name for i, j in enumerate(perm) if i != j}
        touched |= {sch.slot_fields[i].name for i in valued}
    out = []
    for act in model.actions:
        reads = {n.field for n in walk(act.guard) if isinstance(n, Var)}
        renamed = any(sec.exchange_label(act, a, b) != act.label for a, b in itertools.combinations(sec.values, 2))
        out.append(bool(reads & touched) or renamed)
    return out


def _compare(model, ex, cm, rivals: list, scan: _Scan) -> None:
    """Every reachable state (breadth-first: the first difference has the shortest game A) against every
    exchange of two hidden values, in the stages where a value-sensitive action may be enabled.

    NOTE(exchanged-step): the partner of step a in σ(s) is first looked up as a's exchanged label
    (`Secrets.exchange_label`, a total involution on the grounded actions: tests/test_leaks.py), whose
    public label is a's by construction; only when that one is disabled are all of σ(s)'s steps compared
    by public label."""
    sec, acts = model.secrets, model.actions
    stage = model.schema.slot(model.dispatch)
    sensitive = value_sensitive(model)
    by_stage = {v: [n for n in idxs if sensitive[n]] for v, idxs in cm.buckets.items()}
    index = {a.label: n for n, a in enumerate(acts)}
    image: dict = {}
    guards, found = cm.guards, scan.found
    for idx, s in enumerate(ex.states):
        if len(found) == len(rivals) or scan.out_of_time(idx):
            return
        cands = by_stage.get(s[stage])
        if not cands:
            continue
        enabled = [n for n in cands if guards[n](s)]
        if not enabled:
            continue
        hidden = sec.hidden(s)
        for pair in itertools.combinations(hidden, 2):
            s2 = sec.swap(s, *pair)
            scan.pairs += 1
            keys2 = None
            for n in enabled:
                scan.steps += 1
                key = (n, pair)
                if key not in image:  # None: grounding dropped the image (its guard is false everywhere)
                    image[key] = index.get(sec.exchange_label(acts[n], *pair))
                m = image[key]
                if m is not None and guards[m](s2):
                    continue
                if keys2 is None:
                    keys2 = {sec.public_key(acts[j], s2) for j, _ in cm.successors(s2)}
                if sec.public_key(acts[n], s) not in keys2:
                    _missing(model, ex, cm, idx, n, pair, s2, rivals, scan)
            if len(found) == len(rivals):
                return


def _missing(model, ex, cm, idx: int, n: int, pair: tuple, s2: tuple, rivals: list, scan: _Scan) -> None:
    """Step n is enabled in state idx and has no public equivalent in s2 = σ(s): exempt, or a leak to every
    rival that does not choose it."""
    sec, s, act = model.secrets, ex.states[idx], model.actions[n]
    if not set(pair) <= set(sec.hidden(cm.effects[n](s))):
        scan.revealing += 1  # the step shows one of the two values: declassified from here on
        return
    if sec.released(act, s, s2):
        scan.released += 1
        return
    actor = eval_expr(act.actor, s, model.schema) if act.actor is not None else None
    who = [f for f in rivals if f != actor and f not in scan.found]
    if who:
        leak = _witness(model, ex, idx, n, pair, s2)
        for f in who:
            scan.found[f] = dataclasses.replace(leak, observer=sec.label(f))


def _witness(model, ex, idx: int, n: int, pair: tuple, s2: tuple) -> Leak:
    """Game A (the shortest path to state idx, then step n) and the game B that follows it the longest from a
    start with two values exchanged (the found pair first, then every other one; `twin_game`), replayed."""
    sec = model.secrets
    game_a = ex.trace_to(idx)
    act = model.actions[n]
    game_a = Trace(game_a.init, game_a.steps + (Step(act.label, apply(act, game_a.states[-1], model.schema)),))
    validated(model, game_a, "the possibilistic witness (game A)")
    pairs = [tuple(pair)] + [p for p in itertools.combinations(sec.values, 2) if p != tuple(pair)]
    for p, model_b in zip(pairs, sec.partner_models(model, pair)):
        found = twin_game(model, game_a, model_b, p)
        if found is None:
            continue
        game_a = Trace(game_a.init, game_a.steps[:found.steps])
        validated(model_b, found.game_b, "the possibilistic witness (game B)")
        pre, last = game_a.states[-2], model.action(game_a.labels[-1])
        return Leak("", p, game_a, found.game_b, STEP, sec.public_label(last, pre), NO_STEP, model_b, check=CHECK)
    raise PartnerGameError(
        f"{CHECK}: '{sec.public_label(act, ex.states[idx])}' is enabled after game A and not once two hidden values "
        f"are exchanged, but from every start with two values exchanged some game takes every public step of "
        f"game A", model, game_a, s2)


class _Matched(Exception):
    """Some game B takes every public step of game A."""


def twin_game(model, game_a: Trace, model_b, pair: tuple) -> Partner | None:
    """The game of `model_b` (a start with `pair` exchanged) that takes game A's public steps the longest and
    then cannot take the next one, or None if some game takes all of them (or every game that stops does so
    at a step the rules declassify).

    A game B takes, at each step, an enabled action with the public key of game A's step. It is stuck at step
    i + 1 when none is enabled; that is a witness unless the step reveals one of the pair's values (the rules
    made it public: NOTE(declassified) in checks/analyses/leaks.py) or a declared release covers it
    (`Secrets.released`). Depth-first in action order, each state of B expanded once per step number, so the
    witness is deterministic.
    """
    sec = model.secrets
    limit = next((i for i, s in enumerate(game_a.states) if not set(pair) <= set(sec.hidden(s))),
                 len(game_a.states))
    acts_a = [model.action(lab) for lab in game_a.labels]
    keys = [sec.public_key(a, pre) for a, pre in zip(acts_a, game_a.states)]
    public_key = model_b.secrets.public_key
    best: list = []  # [(i, steps)] of the game B stuck the latest
    seen: set = set()

    def search(i: int, s: tuple, steps: list) -> None:
        if i == len(keys):
            raise _Matched
        nxt = [(act, t) for act, t in successors(model_b, s) if public_key(act, s) == keys[i]]
        if not nxt:
            if i + 1 < limit and not sec.released(acts_a[i], game_a.states[i], s) and (not best or i > best[0][0]):
                best[:] = [(i, steps)]
            return
        for act, t in nxt:
            if (i + 1, t) not in seen:
                seen.add((i + 1, t))
                search(i + 1, t, steps + [Step(act.label, t)])

    s0 = model_b.init[0]
    try:
        search(0, s0, [])
    except _Matched:
        return None
    if not best:
        return None
    i, steps = best[0]
    return Partner(Trace(s0, tuple(steps)), i + 1, True)


def _verdict(model, ex, f: int, scan: _Scan, secs: float) -> CheckResult:
    sec = model.secrets
    name = sec.label(f)
    common: dict[str, Any] = dict(id=CHECK, kind="noninterference", engine="product", rules=RULES, states=len(ex.states),
                  seconds=secs)
    if f in scan.found:
        lk = scan.found[f]
        a, b = (sec.value_labels[x] for x in lk.faces)
        return CheckResult(**common, verdict="violated", depth=lk.game_a.depth, trace=lk.game_a,
                           detail=f"{name} can tell {a} from {b} after {lk.game_a.depth} steps: game A's last step "
                                  f"({lk.seen_a}) cannot be taken once the two are exchanged (game B), and {name} "
                                  f"does not choose it",
                           extra={"observer": name, "step": lk.seen_a, "exchanged": [a, b], "leak": lk})
    if not ex.complete or scan.cut:
        return CheckResult(**common, verdict="unknown", depth=None, extra={"observer": name},
                           detail=f"search stopped ({ex.stop_reason or scan.cut}); nothing is claimed")
    released = f"; {scan.released:,} exempt by a declared release" if scan.released else ""
    return CheckResult(**common, verdict="holds", depth=ex.max_depth, extra={"observer": name},
                       detail=f"every public step {name} does not choose itself is available under every exchange "
                              f"of two hidden faces, unless it reveals one of them ({scan.pairs:,} state pairs, "
                              f"{scan.steps:,} steps compared; {scan.revealing:,} without an exchanged twin reveal an "
                              f"exchanged face{released})")
