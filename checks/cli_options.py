"""The command line's option types and shared option groups (parsing only; `checks/cli.py` runs).

>>> Seconds().convert("1.5", None, None)
1.5
"""
from __future__ import annotations

import functools
import math
import os
from pathlib import Path

import click

from checks.pipelines.common import Options


class Seconds(click.ParamType):
    """A positive, finite number of seconds (nan, inf, zero and negatives are usage errors)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"'{value}' is not a number of seconds", param, ctx)
        if not math.isfinite(x) or x <= 0:
            self.fail(f"'{value}' is not a positive, finite number of seconds", param, ctx)
        return x


SECONDS, COUNT, DEPTH, NATURAL = Seconds(), click.IntRange(min=1), click.IntRange(min=0), click.IntRange(min=0)
FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)


def common(f):
    """The options most commands share, gathered into one `Options` argument `opts`."""
    opts = [
        click.option("--proposal", default=None, metavar="FILE|PROFILE",
                     help="a proposal file, or an embedded profile name (default: 'default')"),
        FORMAT,
        click.option("--out", type=click.Path(file_okay=False), default=None,
                     help="write counterexamples and witnesses as scenario files here"),
        click.option("--seed", type=NATURAL, default=0, show_default=True, help="recorded in every report"),
        click.option("--max-states", type=COUNT, default=2_000_000, show_default=True),
        click.option("--max-depth", type=DEPTH, default=None),
        click.option("--timeout", type=SECONDS, default=None, help="seconds"),
        click.option("--progress/--no-progress", default=False, help="BFS layers on stderr"),
    ]

    @functools.wraps(f)
    def wrapper(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, junit=None, summary=None,
                html=None, **kw):
        o = Options(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, junit, summary,
                    click.get_current_context().info_name, html)
        return f(o, **kw)
    for o in reversed(opts):
        wrapper = o(wrapper)
    return wrapper


def ci_reports(f):
    """--junit FILE and --summary FILE (checks/formats/cireport.py)."""
    f = click.option("--summary", type=click.Path(dir_okay=False), default=None,
                     help="append a Markdown job summary (verdict table, shortest traces) to FILE, "
                          "e.g. $GITHUB_STEP_SUMMARY")(f)
    return click.option("--junit", type=click.Path(dir_okay=False), default=None,
                        help="write JUnit XML to FILE: one test case per check")(f)


def writable(path: str, option: str) -> None:
    """Refuse an output path that cannot be written before any work starts (exit 2)."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise click.BadParameter(f"cannot write '{path}'", param_hint=option)


def html_report(f):
    """--html FILE (checks/formats/html.py): the path is checked before the run starts (exit 2)."""
    def check(ctx, param, value):
        if value is not None:
            from checks.formats.html import check_path
            try:
                check_path(value)
            except ValueError as err:
                raise click.BadParameter(str(err), ctx, param) from None
        return value
    return click.option("--html", type=click.Path(dir_okay=False), default=None, callback=check,
                        help="write a self-contained HTML report (boards step by step) to FILE")(f)


def mutate_options(f):
    """The options of `rulecheck mutate` (checks/pipelines/mutate.py, docs/mutation.md)."""
    from checks.analyses.mutants import OPERATORS
    from checks.pipelines.mutate import DEFAULT_MAX_MUTANTS
    opts = [
        click.option("--operator", "operators", multiple=True, type=click.Choice(OPERATORS),
                     help="only these mutation operators (repeatable; default: all six)"),
        click.option("--max-mutants", type=NATURAL, default=DEFAULT_MAX_MUTANTS, show_default=True,
                     help="check a deterministic sample of this many mutants, spread across operators and rules "
                          "(chosen by --seed; 0: every generated mutant)"),
        click.option("--jobs", type=COUNT, default=None, help="worker processes (default: every core)"),
        click.option("--engine", "search_engine", type=click.Choice(["scalar", "vector"]), default="vector",
                     show_default=True, help="explicit search of each mutant (checks/engines/)"),
        click.option("--min-score", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                     help="exit 12 if the mutation score is below this (0: report only)"),
    ]
    for o in reversed(opts):
        f = o(f)
    return f
