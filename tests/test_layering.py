"""model/ never imports z3, networkx or checks/; only the CLI may call sys.exit."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_model_is_independent_of_solvers_graphs_and_checkers():
    for path in (ROOT / "model").rglob("*.py"):
        assert not imports(path) & {"z3", "networkx", "checks"}, path


def test_only_the_cli_exits():
    for path in list((ROOT / "model").rglob("*.py")) + list((ROOT / "checks").rglob("*.py")):
        if path.name == "cli.py":
            continue
        assert "sys.exit" not in path.read_text(encoding="utf-8"), path


def test_only_few_checks_modules_import_z3():
    # An explicit list: a new z3 user is a deliberate decision, made here.
    users = sorted(p.name for p in (ROOT / "checks").rglob("*.py") if "z3" in imports(p))
    assert set(users) <= {"encode.py", "bmc.py", "induction.py", "agreement.py", "commute_z3.py", "leaks_z3.py",
                          "symmetry.py", "interrupt.py"}, users  # interrupt.py: only to switch off Z3's own Ctrl-C handler
