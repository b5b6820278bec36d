"""The model in Promela, generated from the rule data, and SPIN as an external referee.

`to_promela(model)` writes the same transition system the explicit explorer
(`checks.engines.explicit`) searches, so that SPIN's "states, stored" equals our state
count (issue 8; docs/performance.md):

- every state slot is one global scalar (`bit` for Bool, else `byte`/`short`)
  with the initial value as its initialiser, so the initial state needs no
  setup step (a setup step would be one more stored state);
- every grounded action (`model.actions`, in action order, faults included,
  since the explorer expands them too) is one `d_step { guard -> effects }`
  option of a single `do ... od`: a d_step is one transition, its
  intermediate states are never stored, and the loop head is the only
  control state of the process, so SPIN's states are exactly our tuples;
- effects are simultaneous (NOTE(frame) in model/rule.py): a right-hand side
  that reads a slot another effect of the same action writes goes through a
  `hidden` temporary (hidden variables are not part of the state vector);
- array reads at a state-dependent index become a conditional expression over
  the index values (Promela has no initialiser for non-uniform arrays);
- every `always` invariant, and the slots' domains, are checked by a monitor
  process that stays blocked (its control state never changes, so it adds no
  states) until some invariant is false, then asserts. The assertion names the
  invariant by number (`failed!=N`); the header comment lists the numbers.

Both the main loop and the monitor carry `end` labels: a state where no rule is
enabled is not an error for SPIN. Our explorer reports deadlocks itself (a
state where only engine faults are enabled counts as stuck, which SPIN cannot
see); the referee's job here is the state count and the invariants.

`run_spin` compiles and runs the verifier the way the performance notes
prescribe (`spin -o2 -a`, since SPIN's default drops variables nothing reads;
`gcc -O2 -DSAFETY -DNOREDUCE`; `./pan -mDEPTH`) and parses its report.

Usage: `run_spin(to_promela(model)).states` equals `len(Explorer(model).run().states)`
(tests/test_promela.py); `rulecheck export --promela FILE` writes the text.
"""
from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from model.domains import Bool
from model.expr import Expr
from model.game import GameModel
from model.lower import Gather, Kind, Lit, Low, Op, Read, lower, render, slots_read

# Words Promela (or the C it is compiled to through `now.`) reserves; a slot named like one gets a
# trailing underscore.
RESERVED = frozenset("""
active assert atomic bit bool break byte chan d_step D_proctype do else empty enabled eval fi for full
get_priority goto hidden if in init inline int len local ltl mtype nempty never nfull np_ od of pc_value
pid print printf printm priority proctype provided run select set_priority short show skip timeout
trace notrace typedef unless unsigned xr xs true false c_code c_decl c_expr c_state c_track
""".split())
DOMAIN_FAILURE = "in-domain"  # the monitor's name for "a slot left its declared domain"


@dataclass(frozen=True)
class PromelaModel:
    """Generated Promela text plus what is needed to read SPIN's answer.

    `assertions[n]` is the property whose failure makes pan report `failed!=n`.
    `extra_states` is what SPIN stores beyond our states: 0 with one initial
    state, 1 with several (the state before the nondeterministic initial choice).
    """

    text: str
    assertions: tuple
    variables: tuple
    extra_states: int
    action_lines: dict = field(default_factory=dict)  # line of the file -> index into model.actions
    init_lines: dict = field(default_factory=dict)    # line -> index into model.init (several inits)


def _ident(label: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]+", "_", label).strip("_")
    if not s or s[0].isdigit():
        s = "v_" + s
    return s + "_" if s in RESERVED else s


class _Layout:
    """Slot -> Promela variable name and type; reads of array fields at any index."""

    def __init__(self, model: GameModel):
        sch = self.schema = model.schema
        names, seen = [], set()
        for i, f in enumerate(sch.slot_fields):
            base = _ident(sch.slot_names[i].replace("[", "_").replace("]", ""))
            name, k = base, 1
            while name in seen:  # two labels that sanitise alike: keep both, distinctly
                k += 1
                name = f"{base}_{k}"
            seen.add(name)
            names.append(name)
        self.names = tuple(names)
        self.bool_slot = tuple(isinstance(f.domain, Bool) for f in sch.slot_fields)

    def ptype(self, slot: int) -> str:
        dom = self.schema.slot_fields[slot].domain
        if isinstance(dom, Bool):
            return "bit"
        vals = dom.values
        if 0 <= vals[0] and vals[-1] <= 255:
            return "byte"
        if -32768 <= vals[0] and vals[-1] <= 32767:
            return "short"
        return "int"

    def slots_read(self, e: Expr) -> set:
        """Slots an expression may read (`model.lower.slots_read`)."""
        return slots_read(e, self.schema)


def expr_source(e: Expr, lay: _Layout) -> str:
    """Promela source of `e`, printed from its lowering (`model.lower`) as model.compile prints Python (C
    semantics: && and || short-circuit; a boolean is 0/1)."""
    return promela_source(lower(e, lay.schema), lay)


def promela_source(x: Low, lay: _Layout) -> str:
    """The Promela printer of a lowered expression."""
    t = lambda y: promela_source(y, lay)  # noqa: E731
    match x:
        case Lit(value=v):
            return str(int(v))
        case Read(slot=i):
            return lay.names[i]
        case Gather(dims=dims, slots=slots, index=idx):
            # A state-dependent index: test each index combination; the last is the fallback (an index
            # outside the field's domains cannot be stored by a correct model; the explorer would raise).
            keys = [t(i) for i in idx]
            combos = list(itertools.product(*dims))
            out = lay.names[slots[-1]]
            for combo, slot in reversed(list(zip(combos[:-1], slots[:-1]))):
                cond = " && ".join(f"({k}) == {int(v)}" for k, v in zip(keys, combo))
                out = f"(({cond}) -> {lay.names[slot]} : {out})"
            return out
        case Op(args=xs):
            return render(x, [t(y) for y in xs], PROMELA)
    raise TypeError(f"unknown lowered node {x!r}")


PROMELA = {Op.INT: "{0}", Op.TRUTH: "({0} != 0)", Op.NOT: "(!{0})", Op.DIV: "({0} / {k})", Op.ITE: "({0} -> {1} : {2})",
           Op.AND: " && ", Op.OR: " || "}


def _effects_source(action, lay: _Layout) -> tuple[list, int]:
    """Statements of one action's simultaneous effects, and how many temporaries they use."""
    sch = lay.schema
    writes = []
    for name, idx, value in action.effects:
        slot = sch.slot(name, tuple(i.value for i in idx))
        low = lower(value, sch)
        src = promela_source(low, lay)
        if lay.bool_slot[slot] and low.kind is not Kind.BOOL:
            src = f"(({src}) != 0)"  # the explorer stores bool(value) (model.evaluate.apply)
        writes.append((slot, value, src))
    written = [w[0] for w in writes]
    via_tmp: list = []
    direct: list = []
    for k, (slot, value, src) in enumerate(writes):
        others = set(written[:k] + written[k + 1:])
        (via_tmp if lay.slots_read(value) & others else direct).append((slot, src))
    stmts = [f"tmp{j} = {src}" for j, (_, src) in enumerate(via_tmp)]
    stmts += [f"{lay.names[slot]} = {src}" for slot, src in direct]
    stmts += [f"{lay.names[slot]} = tmp{j}" for j, (slot, _) in enumerate(via_tmp)]
    return stmts or ["skip"], len(via_tmp)


def _domain_source(lay: _Layout) -> str:
    parts = []
    for i, f in enumerate(lay.schema.slot_fields):
        if isinstance(f.domain, Bool):
            continue
        vals = f.domain.values
        lo_ok = vals[0] <= 0 and lay.ptype(i) in ("byte",)  # an unsigned byte cannot be below 0
        parts.append(f"{lay.names[i]} <= {vals[-1]}" if lo_ok else f"({vals[0]} <= {lay.names[i]} && "
                     f"{lay.names[i]} <= {vals[-1]})")
    return "(" + " && ".join(parts) + ")" if parts else "1"


def to_promela(model: GameModel) -> PromelaModel:
    """The model as one Promela file; see the module docstring for how it keeps state counts equal."""
    lay = _Layout(model)
    sch = model.schema
    init = model.init[0]
    out = [f"/* {model.name}: generated by rulecheck from the rule data (checks/formats/promela.py).",
           f"   {len(sch)} state slots, {len(model.actions)} grounded actions, "
           f"{len(model.invariants)} invariants.",
           "   Verify: spin -o2 -a FILE && gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -m1000000",
           "   A failed assertion `failed!=N` names the property N:"]
    assertions = tuple(p.name for p in model.invariants) + (DOMAIN_FAILURE,)
    for n, name in enumerate(assertions):
        out.append(f"     {n}: {name}")
    out.append("*/")
    out.append("")
    for i, name in enumerate(lay.names):
        v = init[i]
        out.append(f"{lay.ptype(i)} {name} = {int(v)};")
    out.append("")
    effects, n_tmp = [], 0
    for a in model.actions:
        stmts, k = _effects_source(a, lay)
        effects.append(stmts)
        n_tmp = max(n_tmp, k)
    for j in range(n_tmp):
        out.append(f"hidden int tmp{j};  /* simultaneous effects (NOTE(frame)); not part of the state */")
    out.append("hidden byte failed;")
    out.append("")
    out.append("active proctype monitor() {")
    out.append("  /* Blocked (one control state) until an invariant is false. */")
    out.append("end_monitor:")
    out.append("  atomic {")
    out.append("    if")
    for n, p in enumerate(model.invariants):
        out.append(f"    :: !{expr_source(p.predicate, lay)} -> failed = {n}; assert(failed != {n})  /* {p.name} */")
    n = len(model.invariants)
    out.append(f"    :: !{_domain_source(lay)} -> failed = {n}; assert(failed != {n})  /* {DOMAIN_FAILURE} */")
    out.append("    fi")
    out.append("  }")
    out.append("}")
    out.append("")
    out.append("active proctype rules() {")
    extra, init_lines, action_lines = 0, {}, {}
    if len(model.init) > 1:
        # Several initial states: SPIN stores the state before this choice as one extra state.
        extra = 1
        out.append("  if")
        for k, s in enumerate(model.init):
            sets = "; ".join(f"{lay.names[i]} = {int(v)}" for i, v in enumerate(s))
            out.append(f"  :: d_step {{ {sets} }}")
            init_lines[len(out)] = k
        out.append("  fi;")
    out.append("end_rules:")
    out.append("  do")
    for n, (a, stmts) in enumerate(zip(model.actions, effects)):
        out.append(f"  /* {a.label} [{a.rule.kind}] {' '.join(a.rule.implements)} */")
        out.append(f"  :: d_step {{ {expr_source(a.guard, lay)} -> {'; '.join(stmts)} }}")
        action_lines[len(out)] = n  # one action per line: SPIN's trail names lines, so steps map back
    out.append("  od")
    out.append("}")
    return PromelaModel("\n".join(out) + "\n", assertions, lay.names, extra, action_lines, init_lines)


# -- running SPIN -------------------------------------------------------------------------------

class SpinUnavailable(RuntimeError):
    """spin or gcc is not installed; callers skip (tests) or say so (benchmarks)."""


@dataclass
class SpinResult:
    """What pan reported. `complete` is False when the search was cut (depth, memory)."""

    states: int | None
    transitions: int | None
    errors: int | None
    violated: str | None          # the property named by a failed assertion, if any
    complete: bool
    search_seconds: float | None  # pan's own "elapsed time"
    compile_seconds: float        # spin -a plus gcc
    wall_seconds: float           # compile plus the pan run, as a user waits for it
    memory_mb: float | None       # pan's "total actual memory usage" (hash table and DFS stack included)
    vector_bytes: int | None
    states_mb: float | None = None  # pan's "actual memory usage for states" (the stored states alone)
    depth: int | None = None        # deepest DFS level pan reached
    output: str = field(repr=False, default="")
    trail: str = field(repr=False, default="")  # `spin -t -p` replay of pan's error trail, if any


def spin_available() -> bool:
    return shutil.which("spin") is not None and shutil.which("gcc") is not None


def parse_pan(output: str, assertions: tuple = ()) -> dict:
    """The figures of one pan report.

    >>> parse_pan("State-vector 28 byte, depth reached 10, errors: 0\\n  20 states, stored\\n"
    ...           "  35 transitions (= stored+matched)\\n  132.773\\ttotal actual memory usage\\n"
    ...           "pan: elapsed time 0.01 seconds")["states"]
    20
    """
    def num(pattern, conv=int):
        m = re.search(pattern, output)
        return conv(m.group(1)) if m else None
    violated = None
    m = re.search(r"assertion violated \(failed!=(\d+)\)", output)
    if m:
        k = int(m.group(1))
        violated = assertions[k] if k < len(assertions) else f"assertion {k}"
    elif "assertion violated" in output:
        violated = "assertion"
    cut = ("max search depth too small" in output or "Search not completed" in output
           or "out of memory" in output)
    return {"states": num(r"(\d+) states, stored"), "transitions": num(r"(\d+) transitions \("),
            "errors": num(r"errors: (\d+)"), "violated": violated,
            "complete": not cut and num(r"errors: (\d+)") == 0,
            "search_seconds": num(r"elapsed time ([\d.e+-]+) seconds", float),
            "memory_mb": num(r"([\d.]+)\s+total actual memory usage", float),
            "states_mb": num(r"([\d.]+)\s+actual memory usage for states", float),
            "depth": num(r"depth reached (\d+)"),
            "vector_bytes": num(r"State-vector (\d+) byte")}


def run_spin(pm: PromelaModel, workdir: str | Path | None = None, depth: int = 1_000_000,
             timeout: float | None = None, hash_bits: int | None = None, optimize: bool = True) -> SpinResult:
    """Generate pan from `pm`, compile it, run it, and parse the report.

    Raises SpinUnavailable when spin or gcc is missing. `complete` is False when pan stopped at an
    error or cut the search (depth `-m` too small, memory): its state count is then no full count.
    `optimize=False` compiles pan with `-O0`: the same search and report, but on a model of a few
    thousand states gcc's `-O2` took 8 s where pan's search took 0.1 s (the tests' parity runs).
    """
    if not spin_available():
        raise SpinUnavailable("spin and gcc are needed (Debian: apt-get install -y spin gcc)")
    own = workdir is None
    wd = Path(tempfile.mkdtemp(prefix="rulecheck-spin-")) if workdir is None else Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    try:
        (wd / "model.pml").write_text(pm.text, encoding="utf-8")
        t0 = time.perf_counter()
        _run(["spin", "-o2", "-a", "model.pml"], wd, timeout)
        _run(["gcc", "-O2" if optimize else "-O0", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c"], wd, timeout)
        t1 = time.perf_counter()
        args = ["./pan", f"-m{depth}"] + ([f"-w{hash_bits}"] if hash_bits else [])
        out = _run(args, wd, timeout, check=False)
        t2 = time.perf_counter()
        f = parse_pan(out, pm.assertions)
        trail = ""
        if (wd / "model.pml.trail").exists():
            trail = _run(["spin", "-t", "-p", "model.pml"], wd, timeout, check=False)
        return SpinResult(f["states"], f["transitions"], f["errors"], f["violated"], f["complete"],
                          f["search_seconds"], t1 - t0, t2 - t0, f["memory_mb"], f["vector_bytes"],
                          f["states_mb"], f["depth"], out, trail)
    finally:
        if own:
            shutil.rmtree(wd, ignore_errors=True)


def _run(cmd: list, cwd: Path, timeout: float | None, check: bool = True) -> str:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {(p.stderr or p.stdout)[-2000:]}")
    return p.stdout + p.stderr


def trail_steps(trail: str, pm: PromelaModel) -> tuple[int, list[int]]:
    """(index into model.init, action indices) of a `spin -t -p` replay, in order.

    >>> pm = PromelaModel("", (), (), 0, {7: 0, 9: 1})
    >>> lines = ["  1:  proc  1 (rules:1) model.pml:9 (state 6)  [x]",
    ...          "  1:  proc  1 (rules:1) model.pml:9 (state 2)  [y = 1]",
    ...          "  2:  proc  1 (rules:1) model.pml:7 (state 9)  [z]"]
    >>> trail_steps(chr(10).join(lines), pm)
    (0, [1, 0])
    """
    init, acts, last = 0, [], None
    for m in re.finditer(r"^\s*(\d+):\s+proc\s+\d+ \(rules:\d+\) \S+:(\d+) ", trail, re.M):
        step, line = int(m.group(1)), int(m.group(2))
        if step == last:  # the further statements of the same d_step
            continue
        last = step
        if line in pm.init_lines:
            init = pm.init_lines[line]
        elif line in pm.action_lines:
            acts.append(pm.action_lines[line])
    return init, acts


def spin_counterexample(model: GameModel, pm: PromelaModel, result: SpinResult):
    """SPIN's error trail as our Trace, replayed through the concrete semantics (model.evaluate).

    Returns the Trace when every step is enabled and the last state violates the property SPIN
    named; raises ModelError otherwise (SPIN and our semantics disagree: a bug on one side). SPIN's
    depth-first trail is a counterexample, not a shortest one; the explorer gives the shortest.
    """
    from model.errors import ModelError
    from model.evaluate import holds
    from model.trace import Trace
    if result.violated is None or not result.trail:
        raise ModelError("SPIN reported no assertion violation with a trail")
    k, acts = trail_steps(result.trail, pm)
    trace = Trace.from_actions(model, model.init[k], [model.actions[n].label for n in acts])
    last = trace.states[-1]
    if result.violated == DOMAIN_FAILURE:
        ok = bool(model.schema.check(last))
    else:
        prop = next((p for p in model.invariants if p.name == result.violated), None)
        ok = prop is not None and not holds(model, prop.predicate, last)
    if not ok:
        raise ModelError(f"SPIN's trail ({trace.depth} steps) does not violate '{result.violated}' "
                         f"under the concrete semantics")
    return trace
