"""Trace exports: ITF JSON (read back with the itf-py library), Markdown, DOT, and the files --out writes."""
from __future__ import annotations

import json
import re
from pathlib import Path

import itf_py
import pytest

from checks.config import CheckConfig
from checks.formats.export import itf_value, to_dot, to_itf, to_markdown, write_new
from checks.formats.report import save_traces
from checks.formats.scenario import load_scenario, replay_file, trace_to_scenario, write_scenario
from checks.analyses.selftest import run_defect
from model.domains import Bool, Enum, IntRange
from model.moritani.build import build_model
from model.moritani.config import Interpretation
from model.moritani.defects import DEFECT_BY_ID
from model.moritani.profiles import PROFILES
from model.trace import Trace
from model.moritani import GAME

ROOT = Path(__file__).resolve().parent.parent
ROBBERY = ROOT / "scenarios" / "acceptance" / "robbery-after-payment.scenario.yaml"


@pytest.fixture(scope="module")
def robbery():
    """(model, trace) of the hand-written Robbery game."""
    model, steps = load_scenario(GAME, str(ROBBERY))[:2]
    return model, Trace.from_actions(model, model.init[0], [label for label, _, _ in steps])


def decode(model, itf_state) -> tuple:
    """An itf-py state back into the model's tuple (enum labels to indices)."""
    out = []
    for name, f in zip(model.schema.slot_names, model.schema.slot_fields):
        v = itf_state.values[name]
        out.append(f.domain.index(v) if isinstance(f.domain, Enum) else v)
    return tuple(out)


def test_itf_parses_with_itf_py_and_round_trips_every_state(robbery):
    model, trace = robbery
    text = json.dumps(to_itf(model, trace, "robbery", "scenarios/acceptance"))
    t = itf_py.trace_from_json(json.loads(text))
    assert t.meta["format"] == "ITF" and t.meta["description"] == "robbery" and t.meta["source"]
    assert t.vars == list(model.schema.slot_names)
    assert len(t.states) == trace.depth + 1
    assert [decode(model, s) for s in t.states] == trace.states
    assert t.states[0].meta == {"index": 0}
    last = t.states[10].meta
    assert last == {"index": 10, "action": "rob_spice(e=Atreides)", "rule": "rob_spice", "args": {"e": "Atreides"}}


def test_itf_values_are_typed_by_domain(robbery):
    model, trace = robbery
    final = to_itf(model, trace)["states"][-1]
    assert final["spice[Atreides]"] == 1 and final["tstatus[Robbery]"] == "removed"
    assert final["karama[Atreides]"] is True and final["ally[Moritani]"] == "Ecaz"
    assert itf_value(Bool(), True) is True and itf_value(IntRange(0, 9), 7) == 7
    big = itf_value(IntRange(0, 2**60), 2**60)
    assert big == {"#bigint": str(2**60)} and itf_py.value_from_json(big) == 2**60


def test_markdown_has_setup_table_and_sequence_diagram(robbery):
    model, trace = robbery
    md = to_markdown(model, trace, "Robbery after payment", PROFILES["default"])
    assert md.startswith("# Robbery after payment\n")
    assert "- proposal: `default`" in md and "- interpretation: engine defaults" in md
    assert "| step | game words | what changed |" in md
    rows = [line for line in md.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == trace.depth
    ship = "| 5 | turn 2, Shipment & Movement: Atreides ships 1 force into Arrakeen, paying 1 spice |"
    assert rows[4].startswith(ship)
    assert "`spice[Atreides]: 3 → 2`" in rows[4] and "mover" not in rows[4]  # only what changed
    diagram = md.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert diagram.startswith("sequenceDiagram\n")
    for who in ("participant Moritani as Moritani", "participant BeneGesserit as Bene Gesserit",
                "participant Engine as Engine"):
        assert who in diagram
    messages = [line for line in diagram.splitlines() if "->>" in line]
    assert len(messages) == trace.depth
    assert messages[4].strip() == "Atreides->>Engine: 5. Atreides ships 1 force into Arrakeen, paying 1 spice"
    assert messages[8].strip() == "Moritani->>Atreides: 9. Moritani reveals Robbery against Atreides in Arrakeen"
    assert messages[1].strip().startswith("Engine->>Engine: 2.")  # a system step


def test_markdown_lists_only_switches_that_differ_from_the_defaults():
    model = build_model(interpretation=Interpretation.of(karama_eome_timing="after-reply"))
    trace = Trace.from_actions(model, model.init[0], ["skip_placement"])
    md = to_markdown(model, trace, "t")
    assert "- interpretation: `karama-eome-timing: after-reply` (A4)" in md
    assert "extortion-mentat-order" not in md


def test_dot_is_a_path_graph(robbery):
    model, trace = robbery
    dot = to_dot(model, trace, "robbery", violated=True)
    assert dot.startswith("digraph trace {") and dot.rstrip().endswith("}")
    edges = re.findall(r"^  (s\d+ -> s\d+) \[", dot, re.M)
    assert edges == [f"s{i} -> s{i + 1}" for i in range(trace.depth)]
    assert f"s{trace.depth} [" in dot and "color=red" in dot


def test_write_new_never_overwrites(tmp_path):
    first = write_new(tmp_path / "x.itf.json", "one")
    second = write_new(tmp_path / "x.itf.json", "two")
    assert (first.name, second.name) == ("x.itf.json", "x-2.itf.json")
    assert first.read_text() == "one" and second.read_text() == "two"


@pytest.fixture(scope="module")
def duplicated_token():
    """The seeded custody bug, its model and its shortest counterexample."""
    r = run_defect(GAME, DEFECT_BY_ID["eome-duplicates-token"], PROFILES["default"], CheckConfig())
    assert r.verdict == "caught"
    return r, build_model(defects=("eome-duplicates-token",))


def test_defect_trace_round_trips_as_scenario_and_itf(tmp_path, duplicated_token):
    r, model = duplicated_token
    doc = trace_to_scenario(model, r.trace, PROFILES["default"], "duplicated token",
                            {"violates": "token-conservation"}, r.rules)
    path = write_scenario(tmp_path / "dup.scenario.yaml", doc)
    res = replay_file(GAME, str(path))
    assert res.ok, res.problem
    assert [s.action for s in res.steps] == r.trace.labels
    t = itf_py.trace_from_json(json.loads(json.dumps(to_itf(model, r.trace))))
    assert len(t.states) == r.trace.depth + 1 == 10
    assert [decode(model, s) for s in t.states] == r.trace.states
    # The bug itself, visible in the exported final state: back in supply, yet still on the map.
    assert t.states[-1].values["tstatus[Assassination]"] == "supply"
    assert t.states[-1].values["tloc[Assassination]"] == "Arrakeen"


def test_save_traces_writes_companions_without_overwriting(tmp_path, duplicated_token):
    r, model = duplicated_token
    r.trace_path = None
    save_traces([r], model, PROFILES["default"], tmp_path)
    save_traces([r], model, PROFILES["default"], tmp_path)
    names = sorted(p.name for p in (tmp_path / "defects").iterdir())
    stem = "eome-duplicates-token"
    assert names == sorted(f"{stem}{n}.{ext}" for n in ("", "-2")
                           for ext in ("scenario.yaml", "itf.json", "md", "dot"))
    assert replay_file(GAME, str(tmp_path / "defects" / f"{stem}.scenario.yaml")).ok
    md = (tmp_path / "defects" / f"{stem}.md").read_text(encoding="utf-8")
    assert "violates `token-conservation`" in md and "- seeded defects: `eome-duplicates-token`" in md
    itf_py.trace_from_json(json.loads((tmp_path / "defects" / f"{stem}.itf.json").read_text(encoding="utf-8")))
