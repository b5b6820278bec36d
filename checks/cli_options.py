"""The command line's option types and shared option groups (parsing only; `checks/cli.py` runs).

>>> Seconds().convert("1.5", None, None)
1.5
"""
from __future__ import annotations

import functools
import math

import click

from checks.config import CHECK_RLIMIT, LEMMA_SPACER_RLIMIT, PROVE_RLIMIT
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


class OutPath(click.ParamType):
    """An output path (a file, or with `directory` a folder), checked before any work starts
    (checks/formats/outputs.py): a path that cannot be written is a usage error (exit 2) naming the reason."""

    name = "path"

    def __init__(self, directory: bool = False):
        self.directory = directory
        self.name = "dir" if directory else "file"

    def convert(self, value, param, ctx):
        from checks.formats.outputs import OutputError, check_dir, check_file
        try:
            (check_dir if self.directory else check_file)(value)
        except OutputError as err:
            self.fail(str(err), param, ctx)
        return str(value)


EXIT_INPUT, EXIT_INTERNAL = 3, 1


def failure(e: Exception) -> tuple[str, int]:
    """The message and exit code the product contract gives a failure (never a traceback): a bad input
    file 3, an interruption 130, a bug in the tool 1."""
    from checks.interrupt import EXIT_INTERRUPTED, Interrupted
    from checks.results import InternalError
    from model.errors import InputError, ModelError
    if isinstance(e, (InputError, ModelError)):
        return f"rulecheck: {e}", EXIT_INPUT
    if isinstance(e, Interrupted):
        return f"rulecheck: {e}; stopped, nothing is claimed for the checks that had not finished", EXIT_INTERRUPTED
    if isinstance(e, InternalError):
        return f"rulecheck: internal error: {e}", EXIT_INTERNAL
    return f"rulecheck: internal error: {type(e).__name__}: {e} (set RULECHECK_DEBUG=1 for details)", EXIT_INTERNAL


def cache_warnings():
    """Each distinct cache problem of a command once on stderr, cleaned like every other line
    (NOTE(read-only) in checks/engines/cachedirs.py)."""
    from checks.engines.cachedirs import reported
    from checks.formats.terminal import clean
    return reported(lambda line: click.echo(clean(line), err=True))


SECONDS, COUNT, DEPTH, NATURAL = Seconds(), click.IntRange(min=1), click.IntRange(min=0), click.IntRange(min=0)
OUT_FILE, OUT_DIR = OutPath(), OutPath(directory=True)
# check's and explore's default state budget: the three-turn default bounds are 2.4 M states (about 250 MB with
# the vector engine); a budget that runs out ends in inconclusive (exit 4), never in a crash.
SEARCH_STATES = 10_000_000
FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)


def common(f=None, *, out: bool = True, max_states: int = 2_000_000):
    """The options most commands share, gathered into one `Options` argument `opts` (`out=False`: a
    command that writes no traces has no --out; `max_states`: the command's default state budget)."""
    if f is None:
        return functools.partial(common, out=out, max_states=max_states)
    opts = [
        click.option("--proposal", default=None, metavar="FILE|PROFILE",
                     help="a proposal file, or an embedded profile name (default: 'default')"),
        FORMAT,
        *([click.option("--out", type=OUT_DIR, default=None,
                        help="write counterexamples and witnesses as scenario files here")] if out else []),
        click.option("--seed", type=NATURAL, default=0, show_default=True, help="recorded in every report"),
        click.option("--max-states", type=COUNT, default=max_states, show_default=True),
        click.option("--max-depth", type=DEPTH, default=None),
        click.option("--timeout", type=SECONDS, default=None, help="seconds"),
        click.option("--progress/--no-progress", default=False, help="BFS layers on stderr"),
    ]

    @functools.wraps(f)
    def wrapper(proposal, fmt, seed, max_states, max_depth, timeout, progress, out=None, junit=None, summary=None,
                html=None, **kw):
        o = Options(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, junit, summary,
                    click.get_current_context().info_name, html)
        return f(o, **kw)
    for o in reversed(opts):
        wrapper = o(wrapper)
    return wrapper


def ci_reports(f):
    """--junit FILE and --summary FILE (checks/formats/cireport.py)."""
    f = click.option("--summary", type=OUT_FILE, default=None,
                     help="append a Markdown job summary (verdict table, shortest traces) to FILE, "
                          "e.g. $GITHUB_STEP_SUMMARY")(f)
    return click.option("--junit", type=OUT_FILE, default=None,
                        help="write JUnit XML to FILE: one test case per check")(f)


def html_report(f):
    """--html FILE (checks/formats/html.py): the path is checked before the run starts (exit 2)."""
    return click.option("--html", type=OUT_FILE, default=None,
                        help="write a self-contained HTML report (boards step by step) to FILE")(f)


def mutate_options(f):
    """The options of `rulecheck mutate` (checks/pipelines/mutate.py, docs/mutation.md)."""
    from checks.analyses.mutants import OPERATORS
    from checks.pipelines.mutate import DEFAULT_MAX_MUTANTS
    opts = [
        click.option("--operator", "operators", multiple=True, type=click.Choice(OPERATORS),
                     help="only these mutation operators (repeatable; default: all seven)"),
        click.option("--max-mutants", type=NATURAL, default=DEFAULT_MAX_MUTANTS, show_default=True,
                     help="check a deterministic sample of this many mutants, spread across operators and rules "
                          "(chosen by --seed; 0: every generated mutant)"),
        click.option("--jobs", type=COUNT, default=None, help="worker processes (default: every core)"),
        click.option("--engine", "search_engine", type=click.Choice(["scalar", "vector"]), default="vector",
                     show_default=True, help="explicit search of each mutant (checks/engines/)"),
        click.option("--min-score", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                     help="exit 12 if the mutation score is below this (0: report only)"),
    ]
    return _stacked(f, opts)


def proof_options(f):
    """`prove`'s Z3 budget and its lemma cache."""
    f = click.option("--spacer-rlimit", type=NATURAL, default=LEMMA_SPACER_RLIMIT, show_default=True,
                     help="auto: Spacer's rlimit per property once inferred lemmas are its facts; a proof is "
                          "stored with the lemmas (docs/lemmas.md), so a larger budget paid once serves later runs")(f)
    f = click.option("--proof-cache", default=None, metavar="DIR|off",
                     help="the proof store's directory: lemmas and certificates per model, re-proved on every "
                          "use (off: none); default $RULECHECK_CACHE or ~/.cache/rulecheck")(f)
    return click.option("--rlimit", type=NATURAL, default=PROVE_RLIMIT, show_default=True,
                        help="Z3's deterministic resource limit per query (0: none)")(f)


def check_options(f):
    """The options of `rulecheck check` beyond the common ones (checks/pipelines/check.py)."""
    opts = [
        click.option("--z3-budget", type=NATURAL, default=CHECK_RLIMIT, show_default=True,
                     help="rlimit per Spacer proof attempted by check (0: explicit checks only)"),
        click.option("--minimise", is_flag=True,
                     help="shrink each counterexample to the fewest factions, strongholds and faces that still fail"),
        click.option("--symmetry", is_flag=True,
                     help="explore one state per orbit of the model's stronghold symmetry (verified first; refused "
                          "with exit 3 when the bounds tell strongholds apart)"),
        search_options,
        click.option("--proof-cache", default=None, metavar="DIR|off",
                     help="the proof store's directory: Spacer attempts per model, proofs as re-checked "
                          "certificates (off: none); default $RULECHECK_CACHE or ~/.cache/rulecheck"),
        click.option("--scenarios", type=click.Path(exists=True, file_okay=False), default=None, metavar="DIR",
                     help="also replay every *.scenario.yaml under DIR recorded with this proposal's setup"),
        click.option("--as-printed", is_flag=True,
                     help="an engine profile without its deviations (the engine's behaviours that break a printed "
                          "rule, each otherwise reported as a violation: docs/engines.md)"),
    ]
    return _stacked(f, opts)


def sweep_options(f):
    """The options of `rulecheck sweep` (checks/pipelines/sweep.py, docs/sweep.md)."""
    opts = [
        click.option("--switch", "switches", multiple=True, metavar="ID[=CHOICE,...]",
                     help="a switch to sweep, by key or catalogue ID, optionally with the choices to try "
                          "(repeatable; default: every switch, every choice)"),
        click.option("--jobs", type=COUNT, default=None, help="local worker processes (default: every core)"),
        click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="run on the Dask cluster of this scheduler (tcp://host:8786) instead of local processes"),
        click.option("--resume", is_flag=True,
                     help="continue the sweep in --out/sweep.jsonl: combinations already there are not run again"),
        click.option("--prove", is_flag=True,
                     help="also prove every invariant for games of any length on every distinct model (as "
                          "'rulecheck prove'), with a \"proved iff\" statement per invariant"),
        click.option("--proof-cache", default=None, metavar="DIR|off",
                     help="with --prove: the proof store's directory (default: the user cache; off: none)"),
    ]
    return _stacked(f, opts)


def search_options(f):
    """--engine, --jobs and --turns of the explicit search (check, explore; checks/engines/)."""
    f = click.option("--jobs", type=COUNT, default=None,
                     help="worker processes: the vector engine's, and (check, 2 or more) the small-bounds "
                          "guards beside the main search (default: every core)")(f)
    f = click.option("--turns", type=COUNT, default=None,
                     help="Shipment & Movement phases to search (default: 3 on the default bounds, otherwise "
                          "the proposal's)")(f)
    return click.option("--engine", "search_engine", type=click.Choice(["auto", "scalar", "vector"]), default="auto",
                        show_default=True,
                        help="explicit search: vector (NumPy), scalar (compiled Python per state), or auto: "
                             "vector unless --symmetry, --fold or --graph asks for the scalar engine")(f)


def serve_options(f):
    """--serve and its options (`explore --serve`, checks/pipelines/explorer.py): gathered into one
    `ServeOptions` argument `serve`, None without --serve (the options need it)."""
    from checks.pipelines.explorer import DEFAULT_PORT, ServeOptions
    opts = [
        click.option("--serve", is_flag=True, help="open the explorer: a local web page to walk the model by hand "
                                                   "and save scenario files (docs/explorer.md)"),
        click.option("--port", type=click.IntRange(0, 65535), default=None,
                     help=f"--serve: the port on 127.0.0.1 (default {DEFAULT_PORT}; 0: any free port)"),
        click.option("--from", "source", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="--serve: start from this scenario file (a counterexample or witness of check --out), "
                          "with its setup"),
        click.option("--out", "serve_out", metavar="DIR", default=None, help="--serve: save scenario files here"),
        click.option("--compare", "against", default=None, metavar="FILE|PROFILE",
                     help="--serve: also offer this proposal to compare with (the embedded profiles always are)"),
    ]

    @functools.wraps(f)
    def wrapper(*a, serve, port, source, serve_out, against, **kw):
        out = serve_out  # not `out`: common() takes that name for the commands that save traces
        given = [n for n, v in (("--port", port), ("--from", source), ("--out", out), ("--compare", against))
                 if v is not None]
        if given and not serve:
            raise click.UsageError(f"{', '.join(given)} only go with --serve")
        if out is not None:  # checked (and created) only once --serve is known to be given
            ctx = click.get_current_context()
            out = OUT_DIR.convert(out, next(p for p in ctx.command.params if p.name == "serve_out"), ctx)
        options = ServeOptions(DEFAULT_PORT if port is None else port, source, out, against) if serve else None
        return f(*a, serve=options, **kw)
    return _stacked(wrapper, opts)


def leak_options(f):
    """The options of `rulecheck leaks` (checks/pipelines/proofs.py, docs/noninterference.md)."""
    return _stacked(f, [
        click.option("--observer", "observers", multiple=True, help="rival faction(s) to check (default: every rival)"),
        click.option("--engine", type=click.Choice(["explicit", "z3", "both"]), default="both", show_default=True,
                     help="explicit state pairs, Z3 self-composition (BMC + relational induction), or both"),
        click.option("--z3-depth", type=DEPTH, default=6, show_default=True, help="BMC depth of the Z3 self-composition"),
        click.option("--z3-proof/--no-z3-proof", default=True, show_default=True,
                     help="after a clean BMC, attempt the unbounded relational proof (about 60 s on the default bounds)"),
        click.option("--check", "only", multiple=True, type=click.Choice(["hidden-identity", "possibilistic"]),
                     help="run only these checks (default: both; possibilistic is explicit only)"),
    ])


def compare_options(f):
    """The options of `rulecheck compare` (checks/pipelines/analysis.py)."""
    return _stacked(f, [
        FORMAT,
        click.option("--out", type=OUT_DIR, default=None, help="write each distinguishing game as a scenario file here"),
        click.option("--seed", type=NATURAL, default=0, show_default=True, help="recorded in every report"),
        click.option("--max-states", type=COUNT, default=2_000_000, show_default=True),
        click.option("--timeout", type=SECONDS, default=None, help="seconds"),
        click.option("--per-switch", is_flag=True, help="also A against A with each differing switch set as in B"),
        click.option("--bounds-of", type=click.Choice(["A", "B"], case_sensitive=False), default=None,
                     help="compare both interpretations on the bounds of A (or B); without it the bounds must be equal"),
    ])


def _stacked(f, options: list):
    """`f` with `options` applied so that they are listed in this order in --help."""
    for o in reversed(options):
        f = o(f)
    return f


def engines_options(f):
    """The options of `rulecheck engines` (checks/pipelines/engines.py)."""
    return _stacked(f, [
        FORMAT,
        click.option("--engine", "only_engines", multiple=True, metavar="PROFILE",
                     help="only this engine profile (repeatable; default: every engine)"),
        click.option("--deviation", "only", multiple=True, metavar="ID", help="only this deviation (repeatable)"),
        click.option("--timeout", type=SECONDS, default=None, help="seconds"),
        click.option("--html", type=OUT_FILE, default=None,
                     help="write each violation as a board replay to this self-contained HTML file"),
    ])
