"""Engines as implemented (issue 34): each deviation of an engine profile, run as its own game.

A deviation is a real engine's behaviour that breaks a printed rule, declared by the game as data (an id,
its engine, the seeded defect that builds it, the catalogue IDs, the engine's code location). Its game is
the profile with that defect built in (the defect's own bounds and choices): the defect's target check must
fail there, and the shortest failing game, replayed, is the violation reported. A deviation the search does
not show is `unknown`, never `holds` (the behaviour is the engine's; our bounds may be too small).

>>> from model.moritani import GAME
>>> from checks.config import CheckConfig
>>> d = [x for x in GAME.deviations if x.id == "dunebot-offer-to-ecaz"]
>>> [(r.verdict, r.depth, r.rules) for r in run_deviations(GAME, d, GAME.profiles["dunebot"], CheckConfig())]
[('violated', 10, ('R19',))]
"""
from __future__ import annotations

import dataclasses

from checks.config import CheckConfig
from checks.results import CheckResult, DefectResult
from checks.analyses.selftest import run_defect


def where(d) -> str:
    """The engine's code location, as one line: `path:lines, ... @ repository@commit`."""
    return f"{', '.join(d.where)} @ {d.source}"


def run_deviations(game, deviations, proposal, config: CheckConfig) -> list[CheckResult]:
    """One `deviation` result per record: `violated` with the shortest replayed game when its check fails."""
    out = []
    for d in deviations:
        if config.out_of_time():
            out.append(_result(d, "unknown", None, None, f"not run: --timeout {config.timeout:g}s reached"))
            continue
        defect = game.defect(d.defect)
        r = run_defect(game, defect, proposal, dataclasses.replace(config, progress=False))
        if r.verdict == "caught":
            model = game.build(game.with_defect(defect, proposal))
            caught_by = (r.caught_by if isinstance(r, DefectResult) else None) or defect.target
            detail = (f"{d.title} ({d.engine}; breaks {', '.join(d.ids)}; caught by {caught_by}); engine code: "
                      f"{where(d)}")
            out.append(_result(d, "violated", r, model, detail, caught_by))
        elif r.verdict == "error":
            out.append(_result(d, "error", r, None, r.detail))
        else:  # missed after a complete search, or a budget ran out: the engine's behaviour is not shown here
            out.append(_result(d, "unknown", r, None, f"{d.title}: not shown within these bounds ({r.detail})"))
    return out


def _result(d, verdict: str, r, model, detail: str, caught_by: str | None = None) -> CheckResult:
    extra = {"engine": d.engine, "defect": d.defect, "where": list(d.where), "source": d.source,
             "title": d.title, "rule_text": d.rule, "doc": d.doc, "caught_by": caught_by, "target": caught_by}
    if model is not None:
        extra["model"] = model  # the trace belongs to the deviation's own model (its defect and bounds)
    if r is not None and r.observer:
        extra["observer"] = r.observer
    return DefectResult(id=d.id, kind="deviation", verdict=verdict, engine=r.engine if r is not None else "explicit",
                       rules=d.ids, states=None if r is None else r.states, depth=None if r is None else r.depth,
                       seconds=0.0 if r is None else r.seconds, detail=detail,
                       trace=None if r is None or verdict != "violated" else r.trace, extra=extra)
