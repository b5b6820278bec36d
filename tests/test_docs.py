"""Generated documentation is current, and every catalogue ID is implemented or explained."""
from __future__ import annotations

from pathlib import Path

import pytest

from checks.formats.docgen import rules_md
from model.moritani import GAME
from model.moritani.catalogue import ALL_IDS, NOT_MODELLED

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_rules_md_is_current():
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_md(GAME), \
        "docs/rules.md is stale: run rulecheck docs rules"


@pytest.mark.heavy
def test_ambiguities_md_is_current():
    """docs/ambiguities.md is what `rulecheck docs ambiguities` writes for today's model (it went stale twice
    unnoticed: once after issue 33's model fixes, once because it recorded the seconds the search took)."""
    from checks.pipelines.files import docs
    run = docs("ambiguities", check_only=True)
    assert run.code == 0, run.stdout


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_every_catalogue_id_is_modelled_or_explained():
    text = rules_md(GAME)
    assert "MISSING" not in text
    for i in ALL_IDS:
        assert f"| {i} |" in text
    assert set(NOT_MODELLED) <= set(ALL_IDS)


def test_architecture_lists_every_module_and_only_modules_that_exist():
    import re
    arch = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `((?:model|checks)/[\w/]+\.py)` \|", arch, re.M))
    actual = {p.relative_to(ROOT).as_posix() for p in list((ROOT / "model").rglob("*.py"))
              + list((ROOT / "checks").rglob("*.py")) if p.name != "__init__.py" or p.parent.name == "moritani"}
    assert actual - listed == set(), "modules missing from docs/architecture.md"
    assert listed - actual == set(), "docs/architecture.md lists modules that do not exist"
    assert "later)" not in arch
