"""The architecture, enforced (docs/architecture.md):

    model (kernel) <- model/<game>          the game package builds models from the kernel
    model <- checks.{config,results,interrupt} <- engines <- analyses <- formats <- pipelines <- cli

Engines and analyses know no game: they never import a game package and never read a model's
`vocabulary` (the game's own context); they read the typed declarations instead. One module binds the
game (checks/pipelines/common.py). Only the CLI ends the process. No import cycles, counting imports
inside functions too. No function is longer than 80 lines. Generated code runs in the lowering module (model/lower.py);
processes start in one module (checks/engines/pool.py). Code reads an interpretation switch by its
declared name, never by catalogue ID or key (NOTE(switches) in model/moritani/config.py).
"""
from __future__ import annotations

import ast
import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {"engines": 1, "analyses": 2, "formats": 3, "pipelines": 4, "cli": 5, "cli_options": 5}
BASE = {"checks.config", "checks.results", "checks.interrupt"}


def modules():
    for path in sorted(list((ROOT / "model").rglob("*.py")) + list((ROOT / "checks").rglob("*.py"))):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        yield ".".join(parts), path


def imports(path: Path, local: bool = True) -> set[str]:
    """Dotted names imported by the module (with `local`, also inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    nodes = ast.walk(tree) if local else tree.body
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def layer(name: str) -> int | None:
    if not name.startswith("checks."):
        return None
    if name in BASE:
        return 0
    head = name.split(".")[1]
    return LAYERS.get(head)


def test_model_is_independent_of_solvers_graphs_and_checkers():
    for name, path in modules():
        if name.startswith("model"):
            assert not {i.split(".")[0] for i in imports(path)} & {"z3", "networkx", "checks"}, path


def test_the_kernel_knows_no_game():
    for name, path in modules():
        if name.startswith("model.") and not name.startswith("model.moritani"):
            assert not any(i.startswith("model.moritani") for i in imports(path)), path


def test_checks_layers_import_only_downwards():
    known = {n for n, _ in modules()}
    for name, path in modules():
        mine = layer(name)
        if mine is None:
            continue
        for imp in imports(path):
            target = next((k for k in (imp, imp.rsplit(".", 1)[0]) if k in known), None)
            other = layer(target) if target else None
            if other is not None and target != name:
                assert other <= mine, f"{name} (layer {mine}) imports {target} (layer {other})"


def test_only_the_binding_module_imports_the_game():
    for name, path in modules():
        if name.startswith("checks") and name != "checks.pipelines.common":
            assert not any(i.startswith("model.moritani") for i in imports(path)), path


def test_engines_and_analyses_never_read_the_game_vocabulary():
    for name, path in modules():
        if name.startswith("checks"):
            assert ".vocabulary" not in path.read_text(encoding="utf-8"), path


def test_no_import_cycles():
    known = {n for n, _ in modules()}
    graph = {}
    for name, path in modules():
        deps = set()
        for imp in imports(path):
            for k in (imp, imp.rsplit(".", 1)[0]):
                if k in known and k != name:
                    deps.add(k)
                    break
        graph[name] = deps
    # A package's __init__ importing its own submodules is not a cycle of behaviour; skip those edges.
    state: dict = {}

    def visit(n, stack):
        state[n] = "open"
        for d in sorted(graph[n]):
            if n.startswith(d + ".") or d.startswith(n + "."):
                continue
            if state.get(d) == "open":
                raise AssertionError(" -> ".join(stack + [n, d]))
            if d not in state:
                visit(d, stack + [n])
        state[n] = "done"

    for n in sorted(graph):
        if n not in state:
            visit(n, [])


def test_only_the_cli_exits():
    for name, path in modules():
        if name == "checks.cli":
            continue
        text = path.read_text(encoding="utf-8")
        assert "sys.exit" not in text and "SystemExit(" not in text, path


def test_only_the_lowering_module_runs_generated_code():
    """`eval` and `exec` only in the lowering module, model/lower.py (`load`, `CodeMemo`: NOTE(generated-code));
    constants are folded there by value, never by evaluating their text (issue 36)."""
    found = []
    for name, path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec"):
                found.append(f"{name}:{node.lineno} {node.func.id}")
    assert found and {f.split(":")[0] for f in found} == {"model.lower"}, found


def test_only_the_pool_module_starts_processes():
    """One process-pool layer (issue 36): `os.fork`, multiprocessing and concurrent.futures' process pool
    only in checks/engines/pool.py; every other module asks it for workers (the benchmarks and tests may
    start subprocesses of the CLI, which is not a pool)."""
    found = []
    for name, path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    (node.value.id, node.attr) in (("os", "fork"), ("mp", "get_context"), ("mp", "Pool"),
                                                   ("mp", "Process")):
                found.append(f"{name}:{node.lineno} {node.value.id}.{node.attr}")
        starts = {"multiprocessing", "concurrent.futures", "concurrent.futures.process"}
        found += [f"{name} imports {m}" for m in imports(path) if m in starts or m.startswith("multiprocessing.")]
    assert found and {f.split(":")[0].split(" ")[0] for f in found} == {"checks.engines.pool"}, found


def test_checks_never_name_the_game_s_secrets():
    """The noninterference code reads the secret kinds the game declares (`Secrets.domain`,
    `Secrets.card_domain`), never their names (issue 36: it branched on "Face" and "Traitor")."""
    from model.moritani import GAME
    sec = GAME.build(GAME.small(GAME.profiles["assassinate-leaders"])).secrets
    names = {sec.domain, sec.card_domain}
    assert "" not in names
    found = [f"{name}:{node.lineno} {node.value!r}" for name, path in modules() if name.startswith("checks.")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and node.value in names]
    assert not found, found


def test_only_few_checks_modules_import_z3():
    # An explicit list: a new z3 user is a deliberate decision, made here.
    users = sorted(name for name, path in modules() if name.startswith("checks") and "z3" in
                   {i.split(".")[0] for i in imports(path)})
    assert users == ["checks.analyses.commute_z3", "checks.analyses.leaks_z3", "checks.engines.agreement",
                     "checks.engines.bmc",
                     "checks.engines.certificates",  # the one verifier of stored proofs (issue 37)
                     "checks.engines.encode", "checks.engines.houdini", "checks.engines.induction",
                     "checks.engines.product", "checks.engines.symmetry",
                     "checks.interrupt"], users  # interrupt: only to switch off Z3's own Ctrl-C handler


def test_no_function_is_longer_than_80_lines():
    long = []
    for name, path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                long.append(f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert not long, long


def test_the_cli_is_thin():
    assert len((ROOT / "checks" / "cli.py").read_text(encoding="utf-8").splitlines()) < 250


# -- switches are read by name (NOTE(switches)) ------------------------------------------------------------

SWITCH_DECLARATIONS = ROOT / "model" / "moritani" / "config.py"
CATALOGUE_ID = re.compile(r"A\d+")


def switch_keys() -> set[str]:
    from model.moritani.config import SWITCHES
    return {sw.key for sw in SWITCHES}


def python_sources():
    """(where, source) of every Python text a reader may copy a switch read from: modules, tests, scenario
    generators and benchmarks, the doctest examples in their docstrings, and the python blocks in docs."""
    tops = ("model", "checks", "tests", "scenarios", "benchmarks")
    paths = sorted(p for top in tops for p in (ROOT / top).rglob("*.py"))
    for path in paths:
        if path == SWITCH_DECLARATIONS:
            continue
        text = path.read_text(encoding="utf-8")
        yield str(path.relative_to(ROOT)), text
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=True)
                examples = doctest.DocTestParser().get_examples(doc) if doc else []
                if examples:
                    where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)} (doctest)"
                    yield where, "\n".join(e.source for e in examples)
    for path in sorted([*(ROOT / "docs").glob("*.md"), ROOT / "README.md", *(ROOT / "scenarios").rglob("*.md")]):
        blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
        for i, block in enumerate(blocks):
            yield f"{path.relative_to(ROOT)} (python block {i + 1})", block


def switch_reads_by_id_or_key(source: str, keys: set[str]) -> list[str]:
    """`x.choice("A20")`, `x.choice("ally-separation")`, `cfg["A20"]`, `cfg["ally-separation"]`: a switch
    read by a string a search for the switch's name does not find and a misspelling of which is found only
    when the line runs."""
    def named(node) -> bool:
        return (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and (CATALOGUE_ID.fullmatch(node.value) is not None or node.value in keys))
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "choice"
                and any(named(a) for a in node.args)):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Subscript) and named(node.slice):
            found.append((node.lineno, ast.unparse(node)))
    return [f"line {line}: {text}" for line, text in sorted(found)]


def test_switches_are_read_by_their_declared_name():
    keys = switch_keys()
    reads = {where: found for where, source in python_sources() if (found := switch_reads_by_id_or_key(source, keys))}
    assert not reads, f"read switches by name (c.chose(ALLY_SEPARATION.BASIC), c.choice(ALLY_SEPARATION)): {reads}"


def test_the_switch_read_check_finds_reads_by_id_and_by_key():
    keys = switch_keys()
    found = switch_reads_by_id_or_key('''
c.choice("A20") == "basic"
interp.choice("ally-separation")
cfg["A4"]
chosen["entry-causes"] = "every-arrival"
c.chose(ALLY_SEPARATION.BASIC)
c.choice(ALLY_SEPARATION)
interpretation.choice(sw.key)
doc["interpretation"]
''', keys)
    assert [f.split(":")[0] for f in found] == ["line 2", "line 3", "line 4", "line 5"], found


def _package(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def private_names(source: str) -> set:
    """Private (one leading underscore) names a module defines: functions, classes, module and class
    variables, and attributes it assigns."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
    return {n for n in out if n.startswith("_") and not n.startswith("__")}


def private_reads_across_packages(sources: dict) -> list:
    """`obj._name` (obj neither `self` nor `cls`) where `_name` is defined by our code only in packages other
    than the reader's: a reach-in past another package's public interface. `sources`: {(module, package): text}.
    A private name our code never defines (`os._exit`) is the standard library's business."""
    defined: dict = {}
    for (_, pkg), text in sources.items():
        for n in private_names(text):
            defined.setdefault(n, set()).add(pkg)
    found = []
    for (mod, pkg), text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                    and node.attr in defined and pkg not in defined[node.attr]):
                found.append(f"{mod}:{node.lineno} {ast.unparse(node)} (defined in {sorted(defined[node.attr])})")
    return found


def test_no_private_attribute_is_read_across_packages():
    """Issue 36: a package uses another through its public names (`Schema.slots_of`, `Encoder.define`), never
    its private ones."""
    sources = {(name, _package(name, path)): path.read_text(encoding="utf-8") for name, path in modules()}
    assert not private_reads_across_packages(sources)


def test_the_private_read_check_finds_a_reach_in():
    sources = {("model.schema", "model"): "class Schema:\n    def __init__(self):\n        self._slots = {}\n",
               ("model.lower", "model"): "def f(schema):\n    return schema._slots\n",
               ("checks.engines.columns", "checks.engines"): "def g(sch):\n    return sch._slots, os._exit, self._x\n"}
    found = private_reads_across_packages(sources)
    assert [f.split(" (")[0] for f in found] == ["checks.engines.columns:2 sch._slots"], found


def extra_reads(source: str) -> list:
    """Uses of a result's `extra` payload other than writing it (`r.extra[k] = v`, `r.extra.update(...)`, the
    `extra=` keyword): code reads it through its typed entries (`checks.results.Entry`: `r.observer`, ...)."""
    tree = ast.parse(source)
    parent = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr == "extra"):
            continue
        up = parent.get(node)
        if isinstance(up, ast.Subscript) and isinstance(up.ctx, ast.Store):
            continue
        if isinstance(up, ast.Attribute) and up.attr == "update" and isinstance(parent.get(up), ast.Call):
            continue
        found.append((node.lineno, ast.unparse(up if up is not None else node)))
    return [f"line {line}: {text}" for line, text in sorted(found)]


def test_results_are_read_through_typed_entries():
    """Issue 36: no `r.extra["observer"]`, `r.extra.get(...)`, `"x" in r.extra`; the entries of checks/results.py."""
    found = {name: f for name, path in modules()
             if name.startswith("checks") and name != "checks.results"
             and (f := extra_reads(path.read_text(encoding="utf-8")))}
    assert not found, found


def test_the_extra_read_check_finds_reads():
    found = extra_reads('r.extra["a"] = 1\nr.extra.update(b=2)\nx = r.extra["a"]\nr.extra.get("a")\n"a" in r.extra\n'
                        'y = r.extra\nr.extra.pop("a", None)\n')
    assert [f.split(":")[0] for f in found] == ["line 3", "line 4", "line 5", "line 6", "line 7"], found
