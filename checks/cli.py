"""The `rulecheck` command line. Thin: parse options, call checkers, print, map verdicts to exit codes.

Only this module calls sys.exit (through click). Exit codes follow the product
contract: 0 holds, 12 violation, 2 usage, 3 bad input file, 4 inconclusive,
1 internal error.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import sys
import time
from pathlib import Path

import click

from checks.config import CheckConfig
from checks.interrupt import EXIT_INTERRUPTED, INTERRUPTS, Interrupted
from checks.proposal import resolve
from checks.report import save_traces, to_json, to_text
from checks.results import EXIT, InternalError, summary_verdict
from model.errors import InputError, ModelError

EXIT_INPUT, EXIT_INTERNAL = 3, 1


class Seconds(click.ParamType):
    """A positive, finite number of seconds (nan, inf, zero and negatives are usage errors)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"'{value}' is not a number of seconds", param, ctx)
        if not math.isfinite(x) or x <= 0:
            self.fail(f"'{value}' is not a positive, finite number of seconds", param, ctx)
        return x


SECONDS = Seconds()
COUNT = click.IntRange(min=1)
DEPTH = click.IntRange(min=0)


def _common(f):
    opts = [
        click.option("--proposal", "proposal", default=None, metavar="FILE|PROFILE",
                     help="a proposal file, or an embedded profile name (default: 'default')"),
        click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True),
        click.option("--out", type=click.Path(file_okay=False), default=None,
                     help="write counterexamples and witnesses as scenario files here"),
        click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                     help="recorded in every report"),
        click.option("--max-states", type=COUNT, default=2_000_000, show_default=True),
        click.option("--max-depth", type=DEPTH, default=None),
        click.option("--timeout", type=SECONDS, default=None, help="seconds"),
        click.option("--progress/--no-progress", default=False, help="BFS layers on stderr"),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _config(max_states, max_depth, timeout, seed, progress, **kw) -> CheckConfig:
    return CheckConfig(max_states=max_states, max_depth=max_depth, timeout=timeout, seed=seed,
                       progress=progress, **kw)


def _guard(fn):
    """Turn user-input problems into exit 3 and tool bugs into exit 1, never a traceback."""
    def wrapper(*a, **kw):
        try:
            return fn(*a, **kw)
        except InputError as e:
            click.echo(f"rulecheck: {e}", err=True)
            sys.exit(EXIT_INPUT)
        except ModelError as e:
            click.echo(f"rulecheck: {e}", err=True)
            sys.exit(EXIT_INPUT)
        except InternalError as e:
            click.echo(f"rulecheck: internal error: {e}", err=True)
            sys.exit(EXIT_INTERNAL)
        except Interrupted as e:
            click.echo(f"rulecheck: {e}; stopped, nothing is claimed for the checks that had not finished",
                       err=True)
            sys.exit(EXIT_INTERRUPTED)
        except (click.ClickException, click.exceptions.Exit, SystemExit):
            raise
        except Exception as e:  # a bug in the tool: say so plainly; RULECHECK_DEBUG=1 shows the traceback
            import os
            if os.environ.get("RULECHECK_DEBUG"):
                raise
            click.echo(f"rulecheck: internal error: {type(e).__name__}: {e} (set RULECHECK_DEBUG=1 for details)",
                       err=True)
            sys.exit(EXIT_INTERNAL)
    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _ci_reports(f):
    """--junit FILE and --summary FILE (checks/cireport.py), written by _emit or the command itself.

    The paths travel in click's context so that each command's signature stays as it is.
    """
    def wrapper(*a, junit=None, summary=None, **kw):
        click.get_current_context().meta["rulecheck.ci"] = (junit, summary)
        return f(*a, **kw)
    wrapper.__name__, wrapper.__doc__ = f.__name__, f.__doc__
    wrapper = click.option("--summary", type=click.Path(dir_okay=False), default=None,
                           help="append a Markdown job summary (verdict table, shortest traces) to FILE, "
                                "e.g. $GITHUB_STEP_SUMMARY")(wrapper)
    return click.option("--junit", type=click.Path(dir_okay=False), default=None,
                        help="write JUnit XML to FILE: one test case per check")(wrapper)


def _html_report(f):
    """--html FILE (checks/formats/html.py): checked before the run starts, written atomically after it."""
    def check(ctx, param, value):
        if value is not None:
            from checks.formats.html import check_path
            try:
                check_path(value)
            except ValueError as err:
                raise click.BadParameter(str(err), ctx, param) from None
        return value

    @functools.wraps(f)  # keeps the options already declared below this decorator
    def wrapper(*a, html=None, **kw):
        click.get_current_context().meta["rulecheck.html"] = html
        return f(*a, **kw)
    return click.option("--html", type=click.Path(dir_okay=False), default=None, callback=check,
                        help="write a self-contained HTML report (boards step by step) to FILE")(wrapper)


def _write_html(render) -> None:
    """Write the --html report, if asked for, from `render(checks.formats.html)`; the verdict is out already."""
    path = click.get_current_context().meta.get("rulecheck.html")
    if not path:
        return
    from checks.formats import html
    try:
        html.write(path, render(html))
    except OSError as err:
        click.echo(f"rulecheck: cannot write the HTML report '{path}': {err.strerror or err}", err=True)
        sys.exit(2)


def _write_ci(results, proposal, seed, states, seconds, model) -> None:
    junit, summary = click.get_current_context().meta.get("rulecheck.ci", (None, None))
    if junit or summary:
        from checks.cireport import write_reports
        write_reports(results, click.get_current_context().info_name, proposal, seed, states, seconds, model,
                      junit, summary)


@click.group()
@click.version_option("0.1.0", prog_name="rulecheck")
def main():
    """Model checker for the Moritani Terror rules (Dune: Ecaz & Moritani)."""


def _emit(results, proposal, seed, states, seconds, fmt, out, model, extra=None, notes=(), leaks=()):
    if out:
        save_traces(results, model, proposal, Path(out))
    if fmt == "json":
        click.echo(to_json(results, proposal, seed, states, seconds, extra))
    else:
        click.echo(to_text(results, proposal, seed, states, seconds, model, notes))
        if extra and extra.get("coverage", {}).get("never_fired"):
            click.echo("rules that never fired: " + ", ".join(extra["coverage"]["never_fired"]))
    _write_ci(results, proposal, seed, states, seconds, model)
    _write_html(lambda h: h.report(results, click.get_current_context().info_name, proposal, seed, states, seconds,
                                   model, notes, leaks))
    verdict = summary_verdict(results)
    sys.exit(EXIT[verdict])


@main.command()
@_common
@click.option("--z3-budget", type=click.IntRange(min=0), default=3_000_000, show_default=True,
              help="rlimit per Spacer proof attempted by check (0: explicit checks only)")
@click.option("--minimise", is_flag=True,
              help="shrink each counterexample to the fewest factions, strongholds and faces that still fail")
@click.option("--symmetry", is_flag=True,
              help="explore one state per orbit of the model's stronghold symmetry (verified first; refused "
                   "with exit 3 when the bounds tell strongholds apart)")
@click.option("--proof-cache", default=None, metavar="DIR|off",
              help="where Spacer attempts are cached (proofs as re-checked certificates); default "
                   "$RULECHECK_CACHE or ~/.cache/rulecheck")
@_html_report
@_ci_reports
@_guard
def check(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, z3_budget, minimise, symmetry=False,
          proof_cache=None):
    """Every check on the selected proposal (default: the embedded engine profile)."""
    from checks.run import coverage, run_explicit
    from model.moritani.build import build_model
    prop = resolve(proposal)
    model = build_model(prop.bounds, prop.interpretation, prop.defects)
    t0 = time.perf_counter()
    results, ex = run_explicit(model, _config(max_states, max_depth, timeout, seed, progress, symmetry=symmetry))
    extra = {"coverage": coverage(model, ex), "exploration": _stats(ex)}
    notes = []
    if ex.reduction is not None:
        notes.append(f"{ex.reduction.description}; the state count is orbits, counterexamples are mapped back "
                     f"to concrete games and replayed")
    if minimise:
        from checks.minimise import minimise_results
        notes = minimise_results(results, prop.bounds, prop.interpretation, prop.defects,
                                 _config(max_states, None, timeout, seed, False))
    from checks.check_z3 import small_leak_results
    results += small_leak_results(prop, seed)
    if z3_budget:
        from checks.check_z3 import agreement_result, quick_proofs
        results.append(agreement_result(prop, seed))
        cache_dir = "default" if proof_cache is None else (None if proof_cache == "off" else Path(proof_cache))
        cache_stats: dict = {}
        proofs, attempted = quick_proofs(prop, seed, z3_budget, cache_dir, cache_stats)
        results += proofs
        extra["proofs"] = {"rlimit": z3_budget, "attempted": attempted,
                           "proved": [r.id for r in proofs],
                           "note": "invariants not listed as proved were not proved within check's budget; "
                                   "run rulecheck prove for the full attempt"} | cache_stats
        if cache_stats.get("known_unknown_skipped"):
            notes.append(f"Spacer not re-run on {len(cache_stats['known_unknown_skipped'])} invariant(s) it could "
                         f"not prove within rlimit {z3_budget:,} on this identical encoding before (proof cache; "
                         f"--proof-cache off retries them); their verdicts above are the explicit ones")
    _emit(results, prop, seed, len(ex.states), time.perf_counter() - t0, fmt, out, model, extra, notes)


def _stats(ex) -> dict:
    out = {"states": len(ex.states), "transitions": ex.transitions, "depth": ex.max_depth,
           "complete": ex.complete, "stop_reason": ex.stop_reason, "seconds": round(ex.seconds, 3),
           "folded_states": ex.folded}
    if ex.reduction is not None:
        out["symmetry"] = ex.reduction.description
    return out


@main.command()
@_common
@click.option("--stats", is_flag=True, help="print exploration statistics only")
@click.option("--graph", "graph", type=click.Path(dir_okay=False), default=None,
              help="write the explored graph (.dot or .graphml)")
@click.option("--fold/--no-fold", default=False, help="fold forced system/scheduler chains")
@click.option("--symmetry", is_flag=True, help="one state per orbit of the verified stronghold symmetry")
@_guard
def explore(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, stats, graph, fold, symmetry=False):
    """Explicit state-graph exploration only."""
    import json

    from checks.explore import Explorer
    from model.moritani.build import build_model
    prop = resolve(proposal)
    model = build_model(prop.bounds, prop.interpretation, prop.defects)
    if graph and not graph.endswith((".dot", ".graphml")):
        raise click.UsageError("--graph needs a .dot or .graphml file name")
    cfg = _config(max_states, max_depth, timeout, seed, progress, keep_edges=bool(graph), fold=fold,
                  symmetry=symmetry)
    ex = Explorer(model, cfg).run()
    st = _stats(ex) | {"states_per_second": round(len(ex.states) / max(ex.seconds, 1e-9))}
    if graph:
        import networkx as nx
        g = ex.to_graph()
        if graph.endswith(".graphml"):
            for _, _, d in g.edges(data=True):
                d["args"] = json.dumps(d["args"])
            nx.write_graphml(g, graph)
        else:
            _write_dot(g, graph)
        st["graph"] = graph
    if fmt == "json":
        click.echo(json.dumps({"schema_version": 1, "tool": "rulecheck", "seed": seed,
                               "proposal": prop.to_json(), "exploration": st}, indent=2))
    else:
        for k, v in st.items():
            click.echo(f"{k}: {v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{k}: {v}")
    depth_cut = ex.stop_reason is not None and ex.stop_reason.startswith("depth bound")
    sys.exit(0 if ex.complete or (depth_cut and max_depth is not None) else 4)  # a budget is never success


def _write_dot(g, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("digraph explored {\n")
        for n, d in g.nodes(data=True):
            fh.write(f'  s{n} [label="{n}\\nd={d["depth"]}"];\n')
        for u, v, k in g.edges(keys=True):
            fh.write(f'  s{u} -> s{v} [label="{k.replace(chr(34), chr(39))}"];\n')
        fh.write("}\n")


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--schema", is_flag=True, help="print a JSON Schema for proposal files (for editors)")
def interpretations(fmt, schema):
    """Every interpretation switch: its choices, its default and its catalogue IDs."""
    import json

    from model.moritani.config import SWITCHES
    if schema:
        from checks.proposal import json_schema
        click.echo(json.dumps(json_schema(), indent=2))
        return
    if fmt == "json":
        click.echo(json.dumps([{"switch": s.key, "ids": list(s.ids), "choices": list(s.choices),
                                "default": s.default, "question": s.question, "source": s.source}
                               for s in SWITCHES], indent=2))
        return
    for s in SWITCHES:
        click.echo(f"{s.key} ({', '.join(s.ids)}): {s.question}")
        for c in s.choices:
            mark = "*" if c == s.default else " "
            click.echo(f"   {mark} {c}")
        click.echo(f"     default from: {s.source}")


@main.command()
@_common
@click.option("--defect", "only", multiple=True, help="run only these seeded defects")
@click.option("--engine", type=click.Choice(["explicit", "bmc"]), default="explicit", show_default=True,
              help="bmc: Z3 bounded model checking of the invariant defects (slower)")
@click.option("--minimise", is_flag=True,
              help="shrink each caught defect's trace to the fewest factions, strongholds and faces")
@_html_report
@_ci_reports
@_guard
def selftest(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, only, engine, minimise):
    """Run the checker against its catalogue of seeded defects; each must be caught."""
    from checks.selftest import run_selftest
    from model.moritani.build import build_model
    from model.moritani.defects import check_defects
    check_defects(only)
    prop = resolve(proposal)
    t0 = time.perf_counter()
    results = run_selftest(prop, _config(max_states, max_depth, timeout, seed, progress), tuple(only), engine)
    caught = sum(r.verdict == "caught" for r in results)
    extra = {"summary_counts": {"caught": caught, "total": len(results)}}
    notes = []
    if minimise:
        from checks.minimise import minimise_results
        notes = minimise_results(results, prop.bounds, prop.interpretation, (),
                                 _config(max_states, None, timeout, seed, False))
    for r in results:
        if r.trace is not None and "model" not in r.extra:  # a minimised trace brings its own model
            d = r.id
            b = dataclasses.replace(prop.bounds, **dict(_defect(d).bounds))
            r.extra["model"] = build_model(b, prop.interpretation, (d,))
    secs = time.perf_counter() - t0
    if out:
        for r in results:
            if r.trace is not None:
                save_traces([r], r.extra.get("model"), prop, Path(out))
    _write_ci(results, prop, seed, None, secs, None)
    _write_html(lambda h: h.report(results, "selftest", prop, seed, None, secs, None, notes))
    for r in results:
        r.extra.pop("model", None)
    if fmt == "json":
        import json
        doc = json.loads(to_json(results, prop, seed, None, secs))
        doc["summary"].update({"caught": caught, "total": len(results)})
        click.echo(json.dumps(doc, indent=2))
    else:
        for r in results:
            states = f"{r.states:>8,} states" if r.states is not None else ""
            click.echo(f"{r.verdict:<7} {r.id:<34} -> {r.extra.get('caught_by') or '-':<20} "
                       f"depth {r.depth if r.depth is not None else '-':>3}  {states}")
            if r.extra.get("minimised"):
                click.echo(f"        minimised: {r.extra['minimised']['note']}")
        for n in notes:
            click.echo(f"note: {n}")
        click.echo(f"caught {caught}/{len(results)} seeded defects ({secs:.1f}s)")
    # A defect not caught because a budget ran out says nothing about the checker: inconclusive.
    missed = sum(r.verdict == "missed" for r in results)
    sys.exit(0 if caught == len(results) else 12 if missed else 4)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_guard
def replay(file, fmt):
    """Replay a scenario file step by step and check its expectation."""
    import json

    from checks.scenario import replay_file
    res = replay_file(file)
    if fmt == "json":
        click.echo(json.dumps({"schema_version": 1, "tool": "rulecheck", "scenario": file, "ok": res.ok,
                               "problem": res.problem or None, "line": res.line,
                               "steps": [{"step": s.number, "do": s.action, "line": s.line, "ok": s.ok,
                                          "says": s.says, "problem": s.problem or None} for s in res.steps]},
                              indent=2))
    else:
        for s in res.steps:
            click.echo(f"{'ok  ' if s.ok else 'FAIL'} {s.number:>3}. {s.says or s.action}"
                       + (f"  <- {s.problem}" if s.problem else ""))
        if res.ok:
            click.echo(f"{file}: replayed {len(res.steps)} steps; expectation met")
        else:
            click.echo(f"{file}:{res.line}: {res.problem}")
    sys.exit(0 if res.ok else 12)


@main.command()
@_common
@click.option("--check", "only", multiple=True, help="prove only these invariants")
@click.option("--engine", type=click.Choice(["auto", "spacer", "k-induction", "bmc"]), default="auto",
              show_default=True, help="auto: Spacer, then BMC to --depth where Spacer gives up")
@click.option("--depth", type=DEPTH, default=12, show_default=True, help="BMC depth / largest k for k-induction")
@click.option("--rlimit", type=click.IntRange(min=0), default=150_000_000, show_default=True,
              help="Z3's deterministic resource limit per query (0: none)")
@_ci_reports
@_guard
def prove(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, only, engine, depth, rlimit):
    """Z3: unbounded proofs (Spacer, k-induction) and bounded model checking of the invariants."""
    from checks.prove import prove as run_prove
    from model.moritani.build import build_model
    prop = resolve(proposal)
    model = build_model(prop.bounds, prop.interpretation, prop.defects, unbounded=True)
    names = [p.name for p in model.invariants]
    for n in only:
        if n not in names:
            raise click.UsageError(f"unknown invariant '{n}'; valid: {', '.join(sorted(names))}")
    explored = None
    if engine == "k-induction":
        from checks.explore import Explorer
        bounded = build_model(prop.bounds, prop.interpretation, prop.defects)
        ex = Explorer(bounded, _config(max_states, None, timeout, seed, progress)).run()
        explored = dict.fromkeys(ex.states)
    if max_depth is not None:
        depth = min(depth, max_depth)
    t0 = time.perf_counter()
    results = run_prove(model, list(only) or names, engine, depth, seed, rlimit, explored, timeout=timeout)
    _emit(results, prop, seed, None, time.perf_counter() - t0, fmt, out, model,
          {"z3": {"engine": engine, "depth": depth, "rlimit": rlimit, "seed": seed, "model": "unbounded turns"}})


@main.command()
@_common
@click.option("--observer", "observers", multiple=True, help="rival faction(s) to check (default: every rival)")
@click.option("--engine", "leak_engine", type=click.Choice(["explicit", "z3", "both"]), default="both",
              show_default=True, help="explicit state pairs, Z3 self-composition (BMC + relational induction), or both")
@click.option("--z3-depth", type=DEPTH, default=6, show_default=True, help="BMC depth of the Z3 self-composition")
@click.option("--z3-proof/--no-z3-proof", default=True, show_default=True,
              help="after a clean BMC, attempt the unbounded relational proof (about 60 s on the default bounds)")
@_html_report
@_ci_reports
@_guard
def leaks(proposal, fmt, out, seed, max_states, max_depth, timeout, progress, observers, leak_engine="both",
          z3_depth=6, z3_proof=True):
    """Noninterference: no rival can tell which hidden face lies where before it is revealed."""
    from checks.leaks import check_leaks, side_by_side
    from checks.leaks_z3 import check_leaks_z3
    from model.moritani.build import build_model
    prop = resolve(proposal)
    model = build_model(prop.bounds, prop.interpretation, prop.defects)
    valid = model.info["ctx"].F.labels[1:]
    for o in observers:
        if o not in valid:
            raise click.UsageError(f"unknown observer '{o}'; valid: {', '.join(valid)}")
    t0 = time.perf_counter()
    results, stats = [], {"states": None}
    if leak_engine in ("explicit", "both"):
        results, stats = check_leaks(prop, _config(max_states, max_depth, timeout, seed, progress),
                                     list(observers) or None)
    extra = {"product": stats}
    if leak_engine in ("z3", "both"):
        z3_results, extra["z3"] = check_leaks_z3(prop, z3_depth, seed, list(observers) or None, prove=z3_proof,
                                                 timeout=timeout)
        results += z3_results
    notes, pairs = [], []
    for r in results:
        leak = r.extra.pop("leak", None)
        if leak is not None:
            pairs.append(leak)
            notes.append(side_by_side(leak, model))
            if out:
                _save_leak_pair(leak, model, prop, Path(out), "-z3" if r.engine == "z3" else "")
                who = leak.observer.replace(" ", "-") + ("-z3" if r.engine == "z3" else "")
                r.trace_path = str(Path(out) / "leaks" / f"hidden-identity-{who}-A.scenario.yaml")
    if fmt == "text":
        for n in notes:
            click.echo(n + "\n")
    _emit(results, prop, seed, stats["states"], time.perf_counter() - t0, fmt, None, model, extra, leaks=pairs)


def _save_leak_pair(leak, model, prop, out: Path, tag: str = "") -> None:
    """Both games of a leak as scenario files that `rulecheck replay` accepts."""
    from checks.scenario import trace_to_scenario, write_scenario
    for side, trace, m in (("A", leak.game_a, model), ("B", leak.game_b, leak.model_b)):
        doc = trace_to_scenario(m, trace, prop, f"hidden-identity leak to {leak.observer}: game {side}",
                                {"reachable": True}, ("H3", "H6"))
        if side == "B":
            doc["setup"]["initial_pids"] = [m.get(m.init[0], "pid", k) for k in m.info["ctx"].faces]
        who = leak.observer.replace(" ", "-") + tag
        write_scenario(out / "leaks" / f"hidden-identity-{who}-{side}.scenario.yaml", doc)


@main.command()
@_common
@_html_report
@_ci_reports
@_guard
def ambiguities(proposal, fmt, out, seed, max_states, max_depth, timeout, progress):
    """Order-sensitivity of the reactions the printed rules leave unordered (A1, A2, A5)."""
    from checks.ambiguity import analyse
    prop = resolve(proposal)
    t0 = time.perf_counter()
    results, model = analyse(prop, _config(max_states, max_depth, timeout, seed, progress), with_model=True)
    _emit(results, prop, seed, results[0].states if results else None, time.perf_counter() - t0, fmt, out, model)


@main.command()
@click.option("--promela", "promela", type=click.Path(dir_okay=False), required=True,
              help="write the model in Promela here (invariants as assertions; checks/promela.py)")
@click.option("--proposal", "proposal", default=None, metavar="FILE|PROFILE",
              help="a proposal file, or an embedded profile name (default: 'default')")
@click.option("--spin", "with_spin", is_flag=True,
              help="also run SPIN on it and require its state count to equal the explicit explorer's")
@click.option("--max-states", type=COUNT, default=2_000_000, show_default=True)
@_guard
def export(promela, proposal, with_spin, max_states):
    """The selected model in Promela, for SPIN as an external referee."""
    from checks.promela import SpinUnavailable, run_spin, to_promela
    from model.moritani.build import build_model
    prop = resolve(proposal)
    model = build_model(prop.bounds, prop.interpretation, prop.defects)
    pm = to_promela(model)
    try:
        Path(promela).write_text(pm.text, encoding="utf-8")
    except OSError as e:
        raise click.BadParameter(f"cannot write '{promela}': {e.strerror}", param_hint="--promela") from None
    click.echo(f"wrote {promela}: {len(pm.variables)} state variables, {len(model.actions)} actions, "
               f"{len(pm.assertions)} assertions")
    if not with_spin:
        return
    from checks.explore import Explorer
    try:
        r = run_spin(pm)
    except SpinUnavailable as e:
        click.echo(f"rulecheck: {e}; nothing compared", err=True)
        sys.exit(4)
    ex = Explorer(model, _config(max_states, None, None, 0, False)).run()
    ours = len(ex.states) + pm.extra_states
    spin_states = f"{r.states:,}" if r.states is not None else "?"
    click.echo(f"explicit: {len(ex.states):,} states ({ex.seconds:.2f}s); SPIN: {spin_states} states stored "
               f"({r.search_seconds}s search, {r.wall_seconds:.1f}s with the compile)")
    if r.violated:
        ours_v = ", ".join(sorted(ex.violations)) or "none"
        click.echo(f"SPIN: assertion violated: {r.violated} (explicit explorer's violations: {ours_v})")
        from checks.promela import spin_counterexample
        trace = spin_counterexample(model, pm, r)  # replayed through the concrete semantics first
        click.echo(f"SPIN's trail, {trace.depth} steps (depth-first, not shortest), replayed:")
        click.echo(trace.narrative(model))
        sys.exit(12)
    if not (r.complete and ex.complete):
        click.echo("a search was cut short; the counts are not compared", err=True)
        sys.exit(4)
    if r.states != ours:
        click.echo(f"rulecheck: internal error: state counts differ (ours {ours:,}, SPIN {r.states:,})", err=True)
        sys.exit(1)
    click.echo("state counts equal")


@main.command()
@click.argument("proposal_a", metavar="A")
@click.argument("proposal_b", metavar="B")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="write each distinguishing game as a scenario file here")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="recorded in every report")
@click.option("--max-states", type=COUNT, default=2_000_000, show_default=True)
@click.option("--timeout", type=SECONDS, default=None, help="seconds")
@_html_report
@_guard
def compare(proposal_a, proposal_b, fmt, out, seed, max_states, timeout):
    """Two proposals (files or profiles) side by side, and the shortest game on which they disagree.

    Exit 0: no game within the bounds tells them apart; 12: a distinguishing game was found;
    4: a search stopped early, nothing is claimed.
    """
    import json

    from checks.compare import compare_proposals, save
    from checks.compare import to_json as compare_json
    from checks.compare import to_text as compare_text
    a, b = resolve(proposal_a), resolve(proposal_b)
    c = compare_proposals(a, b, _config(max_states, None, timeout, seed, False))
    paths = save(c, out) if out else {}
    if fmt == "json":
        click.echo(json.dumps(compare_json(c, seed, paths), indent=2))
    else:
        click.echo(compare_text(c, seed))
        for p in paths.values():
            click.echo(f"wrote {p}")
    _write_html(lambda h: h.comparison(c, seed))
    sys.exit({"differ": 12, "same": 0, "inconclusive": 4}[c.verdict])


def _defect(d):
    from model.moritani.defects import DEFECT_BY_ID
    return DEFECT_BY_ID[d]


def run() -> None:
    """The console script: SIGINT and SIGTERM stop every engine and exit 130 (checks/interrupt.py)."""
    INTERRUPTS.install()
    try:
        main()
    except Interrupted as e:  # outside a guarded command (e.g. while click parses options)
        click.echo(f"rulecheck: {e}; stopped", err=True)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    run()
