"""Run the Z3 engines over the invariants and turn their outcomes into honest verdicts.

Proofs run on the model built with `unbounded=True`, so `proved` covers games of any length.
`auto` tries Spacer first; where Spacer gives up within its resource limit, BMC establishes
`bounded` to the requested depth and the verdict says so (never `proved`, never `holds`).
"""
from __future__ import annotations

import time

from checks.bmc import get_bmc
from checks.induction import HornSystem, classify_cti, k_induction, spacer, strengthened_induction
from checks.results import CheckResult
from model.game import GameModel

ENGINES = ("auto", "spacer", "k-induction", "bmc")


def prove(model: GameModel, names: list[str], engine: str = "auto", depth: int = 12, seed: int = 0,
          rlimit: int = 0, explored: dict | None = None, fallback: bool = True,
          timeout: float | None = None) -> list[CheckResult]:
    """One CheckResult per invariant name. `timeout` (seconds) bounds the whole run: what it cuts
    short is `unknown` with that reason, never `proved` or `bounded` beyond what finished."""
    props = {p.name: p for p in model.invariants}
    out: list[CheckResult] = []
    need_bmc: list[str] = []
    notes: dict = {}
    t_start = time.perf_counter()

    def left() -> float | None:
        return None if timeout is None else timeout - (time.perf_counter() - t_start)

    def ms() -> int | None:
        rest = left()
        return None if rest is None else max(1, int(rest * 1000))

    system = HornSystem(model) if engine in ("auto", "spacer") else None
    for name in names:
        p = props[name]
        if timeout is not None and left() <= 0:
            out.append(CheckResult(name, "invariant", "unknown", engine, p.rules, None, None, 0.0,
                                   f"--timeout {timeout}s reached before this invariant was attempted"))
            continue
        if engine in ("auto", "spacer"):
            r = spacer(model, name, seed=seed, rlimit=rlimit, system=system, timeout_ms=ms())
            if r.verdict == "proved":
                out.append(CheckResult(name, "invariant", "proved", "spacer", p.rules, None, None, r.seconds,
                                       "proved for games of any length: " + r.reason))
                continue
            facts = model.info.get("strengthening") or ()
            if engine == "auto" and facts:
                # The model's stage-consistency lemmas rule out the unreachable states that stop a
                # plain induction; the conjunction is proved, nothing is assumed.
                verdict, why, secs = strengthened_induction(system, name, facts, seed=seed, rlimit=rlimit,
                                                            timeout_ms=ms())
                if verdict == "proved":
                    out.append(CheckResult(name, "invariant", "proved", "k-induction", p.rules, None, 1,
                                           r.seconds + secs, "proved for games of any length: " + why))
                    continue
            notes[name] = (r.reason, r.seconds)
            if engine == "spacer" and not fallback:
                out.append(CheckResult(name, "invariant", "unknown", "spacer", p.rules, None, None, r.seconds,
                                       r.reason))
                continue
            need_bmc.append(name)
        elif engine == "k-induction":
            r = k_induction(model, name, max_k=depth, seed=seed, rlimit=rlimit, timeout=left())
            if r.verdict == "proved":
                out.append(CheckResult(name, "invariant", "proved", "k-induction", p.rules, None, r.k, r.seconds,
                                       f"proved for games of any length ({r.reason})"))
            elif r.verdict == "violated":
                need_bmc.append(name)
            else:
                detail = r.reason
                extra = {}
                if r.cti is not None:
                    detail += "; " + classify_cti(r.cti, explored)
                    extra = {"induction_failure": {"pre": model.schema.pretty(r.cti.pre), "action": r.cti.action,
                                                   "post": model.schema.pretty(r.cti.post)}}
                out.append(CheckResult(name, "invariant", "unknown", "k-induction", p.rules, None, r.k, r.seconds,
                                       detail, extra=extra))
        else:
            need_bmc.append(name)
    if need_bmc:
        # The rlimit is a per-query budget for the proof engines; under auto, BMC is bounded by depth.
        rest = left()
        bmc = get_bmc(model, need_bmc, depth, seed=seed, rlimit=(rlimit or None) if engine == "bmc" else None,
                      timeout=None if rest is None else max(rest, 0.001))
        for name in need_bmc:
            b, p = bmc[name], props[name]
            why, spent = notes.get(name, ("", 0.0))
            secs = b.seconds + spent
            if b.verdict == "violated":
                out.append(CheckResult(name, "invariant", "violated", "bmc", p.rules, None, b.depth, secs,
                                       f"violated after {b.depth} steps (Z3 trace, replayed)", trace=b.trace))
            elif b.verdict == "bounded":
                lead = f"no unbounded proof ({why}); " if why else ""
                out.append(CheckResult(name, "invariant", "bounded", "bmc", p.rules, None, b.depth, secs,
                                       f"{lead}no violation in any game's first {b.depth} steps"))
            else:
                out.append(CheckResult(name, "invariant", "unknown", "bmc", p.rules, None, b.depth, secs,
                                       b.reason))
    order = {n: i for i, n in enumerate(names)}
    return sorted(out, key=lambda r: order[r.id])
