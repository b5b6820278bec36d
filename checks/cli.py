"""The `rulecheck` command line: parse options, call one pipeline function, print, exit.

Only this module ends the process. Exit codes follow the product contract: 0 holds, 12 violation,
2 usage, 3 bad input file, 4 inconclusive, 130 interrupted, 1 internal error (`checks.results.exit_code`).
"""
from __future__ import annotations

import functools
import os
import sys
from typing import IO, cast

import click

from checks.cli_options import (COUNT, DEPTH, EXIT_INTERNAL, FORMAT, OUT_FILE, SEARCH_STATES, check_options, ci_reports, common,
                                compare_options, engines_options, failure, html_report, leak_options, proof_options,
                                mutate_options, search_options, serve_options, sweep_options, cache_warnings)
from checks.formats.terminal import CleanStream, clean
from checks.interrupt import EXIT_INTERRUPTED, INTERRUPTS, Interrupted
from checks.pipelines import analysis, check as checking, engines as engine_table, explorer, files, mutate as mutation, proofs, sweep as sweeping
from checks.pipelines.common import Options, Run, UsageProblem


def guarded(fn):
    """Run a pipeline; print its output and exit with its code. User-input problems exit 3, tool bugs 1,
    signals 130, never a traceback."""
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        try:
            with cache_warnings():  # NOTE(read-only) in checks/engines/cachedirs.py
                run: Run = fn(*a, **kw)
        except Exception as e:
            if INTERRUPTS.signum is not None and not isinstance(e, Interrupted):  # a failure the cut caused
                e = Interrupted(INTERRUPTS.signum)
            if isinstance(e, UsageProblem):
                raise click.UsageError(clean(str(e))) from None
            if isinstance(e, (click.ClickException, click.exceptions.Exit)) or (
                    os.environ.get("RULECHECK_DEBUG") and failure(e)[1] == EXIT_INTERNAL):
                raise  # click's own; or a bug, with its traceback when RULECHECK_DEBUG is set
            _fail(*failure(e))
        INTERRUPTS.raise_if_interrupted()  # a verdict computed while a signal arrived is not printed
        click.echo(clean(run.stdout))
        for line in run.stderr:
            click.echo(clean(line), err=True)
        sys.exit(run.code)
    return wrapper


def _fail(message: str, code: int):
    INTERRUPTS.quiesce()  # from here on the process only unwinds: no Z3 context is cancelled any more
    click.echo(clean(message), err=True)
    if code == EXIT_INTERRUPTED and INTERRUPTS.installed:
        # Interrupted: every file was already finished or removed while the signal unwound the run; do not
        # spend seconds freeing a large state graph object by object before exiting.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


@click.group()
@click.version_option("0.1.0", prog_name="rulecheck")
def main():
    """Model checker for the Moritani Terror rules (Dune: Ecaz & Moritani)."""


@main.command()
@common(max_states=SEARCH_STATES)
@check_options
@html_report
@ci_reports
@guarded
def check(opts, z3_budget, minimise, symmetry, search_engine, jobs, turns, proof_cache, scenarios, as_printed):
    """Every check on the selected proposal (default: the embedded engine profile)."""
    return checking.check(opts, z3_budget, minimise, symmetry, proof_cache, search_engine, jobs, scenarios, turns, as_printed)


@main.command()
@common(out=False, max_states=SEARCH_STATES)
@click.option("--stats", is_flag=True, help="also the states per depth and which rules fired")
@click.option("--graph", type=OUT_FILE, default=None, help="write the explored graph (.dot or .graphml)")
@click.option("--fold/--no-fold", default=False, help="fold forced system/scheduler chains")
@click.option("--symmetry", is_flag=True, help="one state per orbit of the verified stronghold symmetry")
@search_options
@serve_options
@guarded
def explore(opts, stats, graph, fold, symmetry, search_engine, jobs, turns, serve):
    """Explicit state-graph exploration: its statistics; with --serve, the explorer page (docs/explorer.md)."""
    if serve:
        return explorer.serve(opts, serve, turns)
    return checking.explore(opts, graph, fold, symmetry, search_engine, jobs, stats, turns)


@main.command()
@FORMAT
@click.option("--schema", is_flag=False, flag_value="proposal", default=None,
              type=click.Choice(["proposal", "scenario"]),
              help="print the JSON Schema of proposal files (the default) or scenario files, for editors")
@guarded
def interpretations(fmt, schema):
    """Every interpretation switch: its choices, its default and its catalogue IDs."""
    return files.interpretations(fmt, schema)


@main.command()
@common
@click.option("--defect", "only", multiple=True, help="run only these seeded defects")
@click.option("--engine", type=click.Choice(["explicit", "bmc"]), default="explicit", show_default=True,
              help="bmc: Z3 bounded model checking of the invariant defects (slower)")
@click.option("--minimise", is_flag=True,
              help="shrink each caught defect's trace to the fewest factions, strongholds and faces")
@html_report
@ci_reports
@guarded
def selftest(opts, only, engine, minimise):
    """Run the checker against its catalogue of seeded defects; each must be caught."""
    return analysis.selftest(opts, tuple(only), engine, minimise)


@main.command()
@click.argument("file")
@FORMAT
@guarded
def replay(file, fmt):
    """Replay a scenario file step by step and check its expectation."""
    return files.replay(file, fmt)


@main.command()
@common
@click.option("--check", "only", multiple=True, help="prove only these invariants")
@click.option("--engine", type=click.Choice(["auto", "spacer", "k-induction", "bmc"]), default="auto",
              show_default=True, help="auto: Spacer, then BMC to --depth where Spacer gives up")
@click.option("--depth", type=DEPTH, default=12, show_default=True, help="BMC depth / largest k for k-induction")
@proof_options
@ci_reports
@guarded
def prove(opts, only, engine, depth, rlimit, proof_cache, spacer_rlimit):
    """Z3: unbounded proofs (Spacer, k-induction) and bounded model checking of the invariants."""
    return proofs.prove(opts, tuple(only), engine, depth, rlimit, proof_cache, spacer_rlimit)


@main.command()
@common
@leak_options
@html_report
@ci_reports
@guarded
def leaks(opts, observers, engine, z3_depth, z3_proof, only):
    """Noninterference: no rival can tell which hidden face lies where before it is revealed."""
    return proofs.leaks(opts, tuple(observers), engine, z3_depth, z3_proof, tuple(only))


@main.command()
@common
@html_report
@ci_reports
@guarded
def ambiguities(opts):
    """Order-sensitivity of the reactions the printed rules leave unordered (A1, A2, A5)."""
    return analysis.ambiguities(opts)


@main.command()
@common
@mutate_options
@ci_reports
@guarded
def mutate(opts, operators, max_mutants, jobs, search_engine, min_score):
    """Mutants generated from the rule data, each checked: the mutation score and the survivors."""
    return mutation.mutate(opts, tuple(operators), max_mutants, jobs, min_score, search_engine)


@main.command()
@common
@sweep_options
@html_report
@guarded
def sweep(opts, switches, jobs, scheduler, resume, prove, proof_cache):
    """Every combination of switches' choices (process pool or Dask): matrix and "holds iff" (docs/sweep.md)."""
    return sweeping.sweep(opts, tuple(switches), jobs, scheduler, resume, prove=prove, proof_cache=proof_cache)


@main.command()
@click.option("--promela", type=OUT_FILE, required=True,
              help="write the model in Promela here (invariants as assertions; checks/formats/promela.py)")
@click.option("--proposal", default=None, metavar="FILE|PROFILE",
              help="a proposal file, or an embedded profile name (default: 'default')")
@click.option("--spin", "with_spin", is_flag=True,
              help="also run SPIN on it and require its state count to equal the explicit explorer's")
@click.option("--max-states", type=COUNT, default=2_000_000, show_default=True)
@guarded
def export(promela, proposal, with_spin, max_states):
    """The selected model in Promela, for SPIN as an external referee."""
    return files.export(promela, proposal, with_spin, max_states)


@main.command()
@engines_options
@guarded
def engines(fmt, only_engines, only, timeout, html):
    """The three engines' switches side by side, and each engine's printed-rule violations as bug reports."""
    return engine_table.engines(Options(fmt=fmt, timeout=timeout, html=html, command="engines"), only_engines, only)


@main.command()
@click.argument("proposal_a", metavar="A")
@click.argument("proposal_b", metavar="B")
@compare_options
@html_report
@guarded
def compare(proposal_a, proposal_b, fmt, out, seed, max_states, timeout, per_switch, bounds_of, html):
    """Two proposals (files or profiles) side by side, and the shortest game on which they disagree.

    Exit 0: no game within the bounds tells them apart (identical or bisimilar); 12: a distinguishing game;
    1: none was found but a check failed inside the tool; 4: unknown (a search stopped early), nothing is claimed.
    """
    opts = Options(fmt=fmt, out=out, seed=seed, max_states=max_states, timeout=timeout, command="compare", html=html)
    return analysis.compare(opts, proposal_a, proposal_b, per_switch, bounds_of)


@main.command()
@click.argument("which", type=click.Choice(["rules", "ambiguities"]))
@click.option("--check", "check_only", is_flag=True, help="exit 1 if the file is stale instead of writing it")
@guarded
def docs(which, check_only):
    """Regenerate the generated documentation (docs/rules.md, docs/ambiguities.md)."""
    return files.docs(which, check_only)


def run() -> None:
    """The console script: SIGINT and SIGTERM stop every engine and exit 130 (checks/interrupt.py); click's
    own messages (which quote option values) are cleaned of terminal escapes like everything else."""
    INTERRUPTS.install()
    try:
        main(standalone_mode=False)
    except Interrupted as e:  # outside a guarded command (e.g. while click parses options)
        _fail(f"rulecheck: {e}; stopped", EXIT_INTERRUPTED)
    except click.ClickException as e:
        e.show(file=cast(IO[str], CleanStream(sys.stderr)))  # show() only writes to it
        sys.exit(e.exit_code)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.Abort:
        sys.exit(1)


if __name__ == "__main__":
    run()
