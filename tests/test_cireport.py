"""CI reports (--junit, --summary) and the files --out writes for a proposal with a seeded defect."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from checks.formats.cireport import junit_xml, outcome, summary_markdown
from checks.cli import main
from checks.results import CheckResult
from model.moritani.profiles import PROFILES
from model.moritani import GAME

# A custody bug (H30): Enemy of My Enemy acceptance leaves the token on the map; one turn keeps it fast.
BUGGY = "name: engine with a custody bug\nbounds:\n  turns: 1\ndefects: [eome-duplicates-token]\n"


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def buggy_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("ci")
    (d / "buggy.yaml").write_text(BUGGY)
    r = run("check", "--proposal", str(d / "buggy.yaml"), "--z3-budget", "0", "--out", str(d / "out"),
            "--junit", str(d / "junit.xml"), "--summary", str(d / "summary.md"))
    assert r.exit_code == 12, r.output
    return d


def cases(root):
    return {c.get("name"): c for c in root.iter("testcase")}


def test_junit_has_one_testcase_per_check_and_the_seeded_failure(buggy_run):
    root = ET.parse(buggy_run / "junit.xml").getroot()
    (suite,) = root.findall("testsuite")
    cs = cases(root)
    # 17 invariants (12 of the contract; placement-recorded since 2026-12-04) + 33 step properties
    # + 22 permissions (issue 33) + no-deadlock + domain + 18 witnesses + hidden-identity for 3 rivals = 95
    # (placement-before-extortion, visitors-of-the-finished-player and the two advisor witnesses since 2026-12-05;
    # hands-grow-by-draws and discards-stop-at-the-limit since the twenty-second session)
    assert len(root.findall(".//testcase")) == len(cs) == 95
    # The custody bug also leaves hidden state (a returned token's location) that differs between
    # two games the rivals cannot tell apart, so the leak check is inconclusive (an error), not holds.
    assert suite.get("tests") == "95" and suite.get("failures") == "2" and suite.get("errors") == "3"
    failed = sorted(n for n, c in cs.items() if c.find("failure") is not None)
    # the seeded violation, and a witness that is vacuous on one-turn bounds
    assert failed == ["token-conservation", "witness-sneak-into-aftermath"]
    tc = cs["token-conservation"]
    props = {p.get("name"): p.get("value") for p in tc.find("properties")}
    assert props["verdict"] == "violated" and props["engine"] == "explicit" and props["depth"] == "9"
    assert int(props["states"]) > 1000 and props["rules"].split()[0] == "R2"
    fail = tc.find("failure")
    assert fail.get("type") == "violated" and "9. turn 2" in fail.text and "saved as" in fail.text
    assert {"hidden-identity [Atreides]", "hidden-identity [Ecaz]"} <= set(cs)  # unique names
    suite_props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert suite_props["summary"] == "violated" and suite_props["defects"] == "eome-duplicates-token"


def test_summary_markdown_has_table_and_shortest_trace(buggy_run):
    md = (buggy_run / "summary.md").read_text(encoding="utf-8")
    assert md.startswith("## ❌ rulecheck check: violated\n")
    assert "| ❌ | `token-conservation` | invariant | violated | explicit | 9 |" in md
    assert "### ❌ `token-conservation`: violated after 9 steps (replayed)" in md
    trace = md.split("### ❌ `token-conservation`", 1)[1]
    assert "\n1. turn 1, Mentat Pause: Moritani places a hidden token" in trace and "\n9. turn 2" in trace


def test_out_writes_scenario_itf_markdown_and_dot(buggy_run):
    folder = buggy_run / "out" / "violations"
    for ext in ("scenario.yaml", "itf.json", "md", "dot"):
        assert (folder / f"token-conservation.{ext}").exists(), ext
    md = (folder / "token-conservation.md").read_text(encoding="utf-8")
    assert "| step | game words | what changed |" in md and "```mermaid\nsequenceDiagram" in md
    assert run("replay", str(folder / "token-conservation.scenario.yaml")).exit_code == 0


def result(verdict, rid="x", **kw):
    return CheckResult(id=rid, kind="invariant", verdict=verdict, engine="bmc", detail=f"{verdict} detail", **kw)


def test_inconclusive_verdicts_are_never_passes():
    assert [outcome(v) for v in ("holds", "proved", "caught", "violated", "missed", "unknown", "bounded")] == \
        ["pass", "pass", "pass", "failure", "failure", "error", "skipped"]
    results = [result("proved", "a"), result("unknown", "b"), result("bounded", "c", depth=12)]
    root = ET.fromstring(junit_xml(results, "prove", PROFILES["default"], 0, 3.14159))
    cs = cases(root)
    assert cs["a"].find("*[@type]") is None
    assert cs["b"].find("error").get("message") == "unknown: unknown detail"
    assert cs["c"].find("skipped").get("type") == "bounded"
    assert root.get("errors") == "1" and root.get("skipped") == "1" and root.get("time") == "3.1"
    md = summary_markdown(results, "prove", PROFILES["default"], 0, None, 1.0)
    assert md.startswith("## ⚠️ rulecheck prove: inconclusive") and "1 passed, 0 failed, 1 inconclusive, 1 bounded" in md


def test_reports_are_deterministic():
    results = [result("violated", "a|b", seconds=0.123), result("holds", "c", seconds=2.06)]
    a = junit_xml(results, "check", PROFILES["default"], 0, 1.0)
    assert a == junit_xml(results, "check", PROFILES["default"], 0, 1.0)
    assert 'time="2.1"' in a and "timestamp" not in a and "hostname" not in a
    assert "`a\\|b`" in summary_markdown(results, "check", PROFILES["default"], 0, 5, 1.0)


def test_unwritable_report_is_a_usage_error_before_the_run(tmp_path):
    (tmp_path / "plain").write_text("x")
    r = run("selftest", "--defect", "ids-not-rotated", "--junit", str(tmp_path / "plain" / "j.xml"))
    assert r.exit_code == 2 and "is not a directory" in r.output and "Traceback" not in r.output
    assert "caught" not in r.output  # refused before any work


def test_a_missing_report_directory_is_created(tmp_path):
    r = run("selftest", "--defect", "ids-not-rotated", "--junit", str(tmp_path / "missing" / "j.xml"))
    assert r.exit_code == 0 and (tmp_path / "missing" / "j.xml").exists()


def test_selftest_junit(tmp_path):
    r = run("selftest", "--defect", "ids-not-rotated", "--defect", "offer-to-ecaz",
            "--junit", str(tmp_path / "j.xml"), "--summary", str(tmp_path / "s.md"))
    assert r.exit_code == 0, r.output
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert root.get("tests") == "2" and root.get("failures") == "0"
    assert sorted(cases(root)) == ["ids-not-rotated", "offer-to-ecaz"]
    assert "## ✅ rulecheck selftest: holds" in (tmp_path / "s.md").read_text(encoding="utf-8")


def test_defect_scenarios_record_the_bounds_they_were_found_on(tmp_path):
    """A defect with its own bounds (fewer factions) writes those bounds, and replay accepts them."""
    r = run("selftest", "--defect", "atomics-penalty-follows-new-ally", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    saved = tmp_path / "defects" / "atomics-penalty-follows-new-ally.scenario.yaml"
    assert "factions: [Moritani, Atreides, Ecaz]" in saved.read_text(encoding="utf-8")
    rr = run("replay", str(saved))
    assert rr.exit_code == 0, rr.output


def test_bounds_valid_together_load(tmp_path):
    """factions without Bene Gesserit is fine when the same file drops its alliance too."""
    p = tmp_path / "p.yaml"
    p.write_text("bounds:\n  factions: [Moritani, Atreides]\n  alliances: []\n  forces: [[Atreides, 1, 1]]\n"
                 "  ambassador: null\n  karama: []\n")
    from checks.formats.proposal import load_proposal
    assert load_proposal(GAME, str(p)).bounds.factions == ("Moritani", "Atreides")


TINY = "name: tiny\nbounds:\n  turns: 1\n  strongholds: [Arrakeen]\n  ambassador: null\n"


@pytest.mark.parametrize("args, tests, skipped", [
    (("leaks", "--engine", "explicit"), 6, 0),  # hidden-identity and possibilistic per rival observer
    # the Z3 self-composition to a small depth without the proof is `bounded`: skipped, never a pass
    (("leaks", "--engine", "z3", "--z3-depth", "2", "--no-z3-proof"), 3, 3),
    (("ambiguities",), 2, 0),
    # BMC to a small depth is `bounded`: skipped, never a pass
    (("prove", "--engine", "bmc", "--depth", "2", "--check", "token-conservation"), 1, 1),
])
def test_every_result_command_writes_junit(tmp_path, args, tests, skipped):
    p = tmp_path / "tiny.yaml"
    p.write_text(TINY)
    r = run(*args, "--proposal", str(p), "--junit", str(tmp_path / "j.xml"))
    assert r.exit_code == 0, r.output
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert len(root.findall(".//testcase")) == int(root.get("tests")) == tests
    assert root.get("skipped") == str(skipped) and root.get("failures") == "0"
    assert root.find("testsuite").get("name") == f"rulecheck {args[0]}: tiny"


def test_user_text_reaches_junit_and_markdown_escaped():
    """Issue 40: bidirectional overrides and control characters in a proposal's name or a check's detail
    are shown as escapes in every CI output; raw, U+202E reorders what the CI page shows and ESC makes the
    XML invalid."""
    import types
    nasty = "exe.\u202elmth\x1b[2J"
    prop = types.SimpleNamespace(name=nasty, source="file", defects=())
    results = [CheckResult(id="a", kind="invariant", verdict="violated", engine="explicit", detail=nasty), result("holds", "b")]
    xml = junit_xml(results, "check", prop, 0, 1.0)
    md = summary_markdown(results, "check", prop, 0, 10, 1.0)
    for text in (xml, md):
        assert "\u202e" not in text and "\x1b" not in text
        assert "exe.\\u202elmth\\x1b[2J" in text
    root = ET.fromstring(xml.encode())  # well-formed XML
    assert root.find("testsuite").get("name") == "rulecheck check: exe.\\u202elmth\\x1b[2J"
