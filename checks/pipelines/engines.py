"""`rulecheck engines`: the real engines' profiles side by side, and their printed-rule violations.

One table of every interpretation switch: the default's choice and each engine's, with where they agree.
Then, per engine, each of its deviations (behaviours that break a printed rule, declared by the game) run as
its own game, written as a bug report (checks/formats/engines_report.py); `--format json` gives the same
data, `--html` draws each violation as a board replay (checks/formats/html.py). Exit 12 when a violation is
shown, 4 when one is not decided, 0 otherwise.

>>> run = engines(Options(), only_engines=("dunebot",), only=("dunebot-offer-to-ecaz",))
>>> run.code, "Enemy of My Enemy can be offered to Ecaz" in run.stdout
(12, True)
"""
from __future__ import annotations

import time

from checks.analyses.deviations import run_deviations
from checks.formats import engines_report as text
from checks.pipelines.common import GAME, Options, Run, UsageProblem, write_html
from checks.results import exit_code


def engines(opts: Options, only_engines: tuple = (), only: tuple = ()) -> Run:
    """The table and the bug reports (only the named engines and deviations, when given)."""
    names = tuple(e for e in GAME.engines if not only_engines or e in only_engines)
    for e in only_engines:
        if e not in GAME.engines:
            raise UsageProblem(f"--engine {e}: not an engine profile; valid: {', '.join(GAME.engines)}")
    known = {d.id for d in GAME.deviations}
    for i in only:
        if i not in known:
            raise UsageProblem(f"--deviation {i}: unknown; valid: {', '.join(sorted(known))}")
    rows = _rows(names)
    reports, results, t0 = {}, [], time.perf_counter()
    for e in names:
        p = GAME.profiles[e]
        listed = tuple(d for d in GAME.deviations_of(p) if not only or d.id in only)
        rs = run_deviations(GAME, listed, p, opts.config(progress=False))
        results += rs
        reports[e] = [(r, r.trace.narrative(r.model) if r.trace is not None else None) for r in rs]
    run = Run(text.to_json(rows, names, reports) if opts.fmt == "json" else text.to_markdown(rows, names, reports),
              exit_code(r.verdict for r in results))
    write_html(opts, run, lambda h: h.report(results, "engines", GAME.profiles["default"], opts.seed, None,
                                             time.perf_counter() - t0, None,
                                             [f"engines: {', '.join(names)}"]))
    return run


def _rows(names: tuple) -> list:
    """One row per switch: the default, each engine's choice, and who agrees."""
    rows = []
    for s in GAME.switches:
        chosen = {e: GAME.profiles[e].interpretation.choice(s.key) for e in names}
        rows.append({"switch": s.key, "ids": list(s.ids), "default": s.default, "engines": chosen,
                     "agree": text.agreement(s.default, chosen)})
    return rows
