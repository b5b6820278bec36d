"""The bad-input suite (issue 19): hostile and mistaken files, options and output paths, each with the
product contract's exit code and a message that says where and what.

- proposal files (exit 3, `file:line:col`, expected / found / valid choices): encodings, YAML
  structure and its limits, every field's type, range and relations;
- scenario files (exit 3): setup, steps, expectations, and what depends on the built model; and replay
  honouring every expectation key (exit 12 when one is not met);
- options (exit 2): budgets, choices, unknown names;
- output paths (exit 2 before any work; the verdict survives a file that fails later; names taken
  from input never leave `--out`).

Interrupts and concurrent runs are in tests/test_interrupt.py and tests/test_proofcache.py, generated
inputs in tests/test_fuzz.py. Files are loaded through the CLI (CliRunner) where the exit code is the
point and through the loaders where only the message is.
"""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from checks.cli import main
from checks.formats.outputs import OutputError, inside, slug

ROOT = Path(__file__).resolve().parent.parent
LOCATED = re.compile(r"\.yaml:(\d+):(\d+): ")
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def bomb() -> bytes:
    """The issue's "billion laughs": 9 levels of 9 aliases, 520 bytes, 387 million values expanded."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    text = "\n".join(lines) + "\n"
    return (text + "#" * (519 - len(text)) + "\n").encode()


# -- proposal files -----------------------------------------------------------------------------------

PROPOSALS = [
    # (id, file content, where "line:col" or None, what the message says)
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "1:1", "not UTF-8"),
    ("nul-byte", b"name: a\x00b\n", "1:8", "NUL byte"),
    ("esc-byte", b"name: x\n\x1b[2J\n", "2:1", "ESC character"),
    ("utf16-le", "name: x\n".encode("utf-16-le").join([b"\xff\xfe", b""]), "1:1", "UTF-16"),
    ("utf16-be", b"\xfe\xff" + "name: x\n".encode("utf-16-be"), "1:1", "UTF-16"),
    ("utf32-le", "name: x\n".encode("utf-32"), "1:1", "UTF-32"),
    ("utf32-be", b"\x00\x00\xfe\xff" + "name: x\n".encode("utf-32-be"), "1:1", "UTF-32"),
    ("c1-control", "name: a\x90b\n".encode(), "1:8", "control character"),
    ("del", b"name: a\x7fb\n", "1:8", "control character"),
    ("bell", b"bounds:\n  turns: 1\x07\n", "2:11", "control character"),
    ("bad-utf8-line-3", b"name: a\ndescription: b\nbounds: {turns: \xc3(}\n", "3:17", "not UTF-8"),
    ("malformed-flow", "interpretation: [\n", "2:1", "malformed YAML"),
    ("tab-indent", "bounds:\n\tturns: 1\n", "2:1", "malformed YAML"),
    ("duplicate-top-key", "name: a\nname: b\n", "2:1", "duplicate key \"name\""),
    ("duplicate-switch", "interpretation:\n  A4: after-reply\n  A4: before-reply\n", "3:3", "duplicate key"),
    ("duplicate-bound", "bounds:\n  turns: 1\n  turns: 2\n", "3:3", "duplicate key"),
    ("two-documents", "name: a\n---\nname: b\n", "2:1", "single document"),
    ("alias-bomb", bomb(), "5:8", "alias bomb"),  # line 5 takes the expansion past 10,000 values
    ("undefined-alias", "bounds:\n  faces: *nothing\n", "2:10", "undefined alias"),
    ("nesting-40", "bounds: " + "[" * 40 + "]" * 40 + "\n", "1:40", "nesting deeper than 32"),
    ("nesting-2000", "a: " + "[" * 2000 + "]" * 2000 + "\n", "1:35", "nesting deeper than 32"),
    ("long-value", "name: " + "x" * 20_000 + "\n", "1:7", "20,000 characters"),
    ("python-tag", "name: !!python/object/apply:os.system ['echo pwned']\n", "1:7", "tag"),
    ("binary-tag", "name: !!binary aGVsbG8=\n", "1:7", "tag"),
    ("custom-tag", "bounds: !mine {turns: 1}\n", "1:9", "tag"),
    ("top-list", "- name\n- bounds\n", "1:1", "expected a mapping"),
    ("top-text", "just some text\n", "1:1", "expected a mapping"),
    ("top-number", "42\n", "1:1", "found the number 42"),
    ("unknown-top-key", "colour: red\n", "1:1", "unknown key 'colour'; valid: bounds, defects, description"),
    ("number-key", "1: x\n", "1:1", "unknown key the number 1"),
    ("list-key", "? [a, b]\n: x\n", "1:3", "unknown key"),
    ("name-number", "name: 5\n", "1:7", "expected text; found the number 5"),
    ("name-list", "name: [a]\n", "1:7", "expected text; found a list"),
    ("name-escape", 'name: "\\e[2J evil"\n', "1:7", "control character (U+001B)"),
    ("name-too-long", "name: " + "n" * 121 + "\n", "1:7", "at most 120"),
    ("name-newline", 'name: "a\\nb"\n', "1:7", "control character (U+000A)"),
    ("description-mapping", "description: {a: 1}\n", "1:14", "expected text; found a mapping"),
    ("description-too-long", "description: " + "d" * 4001 + "\n", "1:14", "at most 4,000"),
    ("interpretation-list", "interpretation: [A4]\n", "1:17", "expected a mapping of switch"),
    ("interpretation-text", "interpretation: after-reply\n", "1:17", "expected a mapping of switch"),
    ("unknown-switch", "interpretation:\n  A99: x\n", "2:3", "unknown switch 'A99'; valid:"),
    ("unknown-choice", "interpretation:\n  karama-eome-timing: sometimes\n", "2:23", "valid: after-reply, before-reply"),
    ("choice-bool", "interpretation:\n  A13: true\n", "2:8", "expected one of consumed, retry; found true"),
    ("switch-twice", "interpretation:\n  A4: after-reply\n  karama-eome-timing: after-reply\n", "3:3",
     "set switch 'karama-eome-timing'; set it once"),
    ("bounds-list", "bounds: [turns]\n", "1:9", "expected a mapping of bound"),
    ("bounds-number", "bounds: 5\n", "1:9", "found the number 5"),
    ("unknown-bound", "bounds:\n  colour: red\n", "2:3", "unknown bound 'colour'"),
    ("turns-9", "bounds:\n  turns: 9\n", "2:10", "9 is out of range; expected a whole number from 1 to 6"),
    ("turns-0", "bounds:\n  turns: 0\n", "2:10", "from 1 to 6"),
    ("turns-text", 'bounds:\n  turns: "2"\n', "2:10", "found the text '2'"),
    ("turns-fraction", "bounds:\n  turns: 2.5\n", "2:10", "found the number 2.5"),
    ("turns-bool", "bounds:\n  turns: true\n", "2:10", "found true"),
    ("turns-empty", "bounds:\n  turns:\n", "2:3", "found nothing"),
    ("turns-nan", "bounds:\n  turns: .nan\n", "2:10", "found the number nan"),
    ("turns-huge", "bounds:\n  turns: 99999999999999999999999\n", "2:10", "out of range"),
    ("storm-text", "bounds:\n  storm: \"yes\"\n", "2:10", "expected true or false"),
    ("storm-number", "bounds:\n  storm: 1\n", "2:10", "expected true or false"),
    ("factions-text", "bounds:\n  factions: Moritani\n", "2:13", "expected a list"),
    ("factions-order", "bounds:\n  factions: [Atreides, Moritani]\n", "2:14", "must start with Moritani"),
    ("factions-one", "bounds:\n  factions: [Moritani]\n", "2:13", "at least 2"),
    ("factions-twice", "bounds:\n  factions: [Moritani, Atreides, Atreides]\n", "2:34", "listed twice"),
    ("factions-unknown", "bounds:\n  factions: [Moritani, Harkonnen]\n", "2:24", "'Harkonnen' is not one of"),
    ("strongholds-empty", "bounds:\n  strongholds: []\n", "2:16", "at least 1"),
    ("strongholds-twice", "bounds:\n  strongholds: [Arrakeen, Arrakeen]\n", "2:27", "listed twice"),
    ("strongholds-polar", "bounds:\n  strongholds: [Arrakeen, Polar Sink]\n", "2:27", "not a legal Terror destination"),
    ("faces-empty", "bounds:\n  faces: []\n", "2:10", "at least 1"),
    ("faces-twice", "bounds:\n  faces: [Atomics, Atomics]\n", "2:20", "listed twice"),
    ("faces-unknown", "bounds:\n  faces: [Plague]\n", "2:11", "'Plague' is not one of"),
    ("forces-wrong-leaf", 'bounds:\n  forces: [[Atreides, "x", 1]]\n', "2:23", "found the text 'x'"),
    ("forces-range", "bounds:\n  forces: [[Atreides, 5, 1]]\n", "2:23", "5 is out of range"),
    ("forces-short-row", "bounds:\n  forces: [[Atreides, 1]]\n", "2:12", "a list of 3 entries; found a list of 2"),
    ("forces-flat", "bounds:\n  forces: [Atreides]\n", "2:12", "a list of 3 entries; found the text"),
    ("forces-twice", "bounds:\n  forces: [[Atreides, 1, 1], [Atreides, 0, 1]]\n", "2:30", "listed twice"),
    ("forces-not-in-game", "bounds:\n  forces: [[Guild, 1, 1]]\n", "2:13", "'Guild' is not in bounds.factions"),
    ("forces-moritani", "bounds:\n  forces: [[Moritani, 1, 1]]\n", "2:13", "'Moritani' is not one of"),
    ("leaders-wrong-leaves", 'bounds:\n  leaders: [-5, "x"]\n', "2:13", "-5 is out of range"),
    ("leaders-empty", "bounds:\n  leaders: []\n", "2:12", "at least 1"),
    ("leaders-many", "bounds:\n  leaders: [1, 2, 3, 4, 5]\n", "2:12", "at most 4"),
    ("leaders-strong", "bounds:\n  leaders: [13]\n", "2:13", "13 is out of range"),
    ("leaders-number", "bounds:\n  leaders: 5\n", "2:12", "expected a list"),
    ("karama-twice", "bounds:\n  karama: [Atreides, Atreides]\n", "2:22", "listed twice"),
    ("karama-not-in-game", "bounds:\n  karama: [Guild]\n", "2:12", "'Guild' is not in bounds.factions"),
    ("karama-moritani", "bounds:\n  karama: [Moritani]\n", "2:12", "'Moritani' is not one of"),
    ("leaderless-twice", "bounds:\n  leaderless: [Ecaz, Ecaz]\n", "2:22", "listed twice"),
    ("leaderless-not-in-game", "bounds:\n  leaderless: [Fremen]\n", "2:16", "not in bounds.factions"),
    ("alliance-self", "bounds:\n  alliances: [[Moritani, Moritani]]\n", "2:15", "the entries must differ"),
    ("alliance-overlap", "bounds:\n  alliances: [[Moritani, Ecaz], [Ecaz, Atreides]]\n", "2:33", "in two rows"),
    ("alliance-short", "bounds:\n  alliances: [[Moritani]]\n", "2:15", "a list of 2 entries"),
    ("alliance-stranger", "bounds:\n  alliances: [[Moritani, Guild]]\n", "2:26", "'Guild' is not in bounds.factions"),
    ("ambassador-elsewhere", "bounds:\n  ambassador: Sietch Tabr\n", "2:15", "not in bounds.strongholds"),
    ("ambassador-polar", "bounds:\n  ambassador: Polar Sink\n", "2:15", "'Polar Sink' is not one of"),
    ("ambassador-number", "bounds:\n  ambassador: 5\n", "2:15", "found the number 5"),
    ("hand-over-limit", "bounds:\n  hand: 4\n", "2:9", "4 is more than bounds.hand_limit (3, the default)"),
    ("limit-under-default-hand", "bounds:\n  hand_limit: 2\n", "2:15", "moritani_hand is 3 by default"),
    ("spice-negative", "bounds:\n  spice: -1\n", "2:10", "-1 is out of range"),
    ("spice-13", "bounds:\n  spice: 13\n", "2:10", "from 0 to 12"),
    ("spice-float", "bounds:\n  spice: 1e3\n", "2:10", "1000 is out of range"),
    ("forces-word", "bounds:\n  moritani_forces: many\n", "2:20", "found the text 'many'"),
    ("factions-drop-default-karama", "bounds:\n  factions: [Moritani, Ecaz]\n", "2:13",
     "'Atreides' is not in bounds.factions"),
    ("defects-text", "defects: x\n", "1:10", "expected a list"),
    ("defects-unknown", "defects: [nope]\n", "1:11", "'nope' is not a seeded defect"),
    ("defects-twice", "defects: [ids-not-rotated, ids-not-rotated]\n", "1:28", "listed twice"),
    ("defect-of-a-module-off", "defects: [forfeit-resets-each-turn]\n", "1:11", "needs bounds.assassinate_leaders: true"),
]


@pytest.mark.parametrize("content, where, message", [p[1:] for p in PROPOSALS], ids=[p[0] for p in PROPOSALS])
def test_a_bad_proposal_exits_3_at_its_line_and_column(tmp_path, content, where, message):
    p = tmp_path / "proposal.yaml"
    p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    before = p.read_bytes()
    r = run("explore", "--max-states", "5", "--proposal", p)
    assert r.exit_code == 3, r.output
    assert f"proposal.yaml:{where}: " in r.output, r.output
    assert message in r.output and "Traceback" not in r.output and "internal error" not in r.output
    assert "\x1b" not in r.output  # what the file held is shown escaped, never sent to the terminal
    assert p.read_bytes() == before  # nothing the user wrote is changed


def test_every_error_of_a_file_is_reported_at_once_in_file_order(tmp_path):
    p = tmp_path / "p.yaml"
    p.write_text('name: 5\ninterpretation:\n  A1: sideways\nbounds:\n  turns: 9\n  forces: [[Atreides, "x", 1]]\n'
                 "  colour: red\ndefects: [nope]\n")
    r = run("explore", "--proposal", p)
    assert r.exit_code == 3
    where = [m.group(0) for m in LOCATED.finditer(r.output)]
    assert where == [".yaml:1:7: ", ".yaml:3:7: ", ".yaml:5:10: ", ".yaml:6:23: ", ".yaml:7:3: ", ".yaml:8:11: "]


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_bytes(b"# padding\n" * 110_000)
    r = run("explore", "--proposal", p)
    assert r.exit_code == 3 and "larger than 1,048,576 bytes" in r.output


@pytest.mark.parametrize("target", ["missing.yaml", "."])
def test_a_proposal_that_is_not_a_readable_file_exits_3(tmp_path, target):
    r = run("explore", "--proposal", tmp_path / target if target != "." else tmp_path)
    assert r.exit_code == 3 and "Traceback" not in r.output


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="measures VmHWM in /proc")
def test_the_alias_bomb_is_refused_in_under_a_second_and_100_mb(tmp_path):
    """Measured in a fresh process: its peak memory and its time, interpreter start included."""
    p = tmp_path / "bomb.yaml"
    p.write_bytes(bomb())
    assert len(p.read_bytes()) == 520
    # The peak resident set of this process image (VmHWM: ru_maxrss would count the forked test runner).
    code = ("import time; t = time.perf_counter()\n"
            "from checks.formats.inputs import load_yaml\n"
            f"try:\n    load_yaml({str(p)!r})\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
            "print(round(time.perf_counter() - t, 3), hwm)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    message, figures = out.strip().splitlines()
    seconds, kib = figures.split()
    assert message.startswith("InputError") and "alias bomb" in message
    assert float(seconds) < 1.0 and int(kib) < 100 * 1024, figures


def _short(i: int) -> str:
    return "".join("abcdefghijklmnopqrstuvwxyz"[i // 26 ** k % 26] for k in range(4))


# Flat files of a million bytes at most (issue 40: each took 6.6 s and 108 MB to refuse when only the
# total number of values was counted): (file name, text, what the refusal says).
FLAT = {
    "keys": ("p.yaml", "".join(f"{_short(i)}: 1\n" for i in range(100_000)), "more than 1,000 keys in one mapping"),
    "items": ("p.yaml", "bounds:\n  strongholds: [" + ",".join(["a"] * 100_000) + "]\n",
              "more than 1,000 items in one list"),
    "steps": ("s.scenario.yaml", "steps: [" + ",".join(["{do: a}"] * 100_000) + "]\n",
              "a scenario has at most 1,000 steps"),
    "values": ("p.yaml", "".join(f"l{j}: [" + ",".join(["a"] * 999) + "]\n" for j in range(12)),
               "more than 10,000 values in one file"),
}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="measures VmHWM in /proc")
@pytest.mark.parametrize("kind", sorted(FLAT))
def test_a_flat_file_is_refused_while_it_is_read_in_under_a_second_and_100_mb(tmp_path, kind):
    """The keys of one mapping, the items of one list (a scenario's steps) and the values of a file are
    counted as each is read; CPU time (the machine is shared) and peak memory of a fresh process."""
    name, text, says = FLAT[kind]
    p = tmp_path / name
    p.write_text(text)
    assert len(p.read_bytes()) <= 1 << 20  # within the size limit: the count is what refuses it
    code = ("import resource, time; t = time.process_time()\n"
            "from checks.formats.inputs import load_yaml\n"
            f"try:\n    load_yaml({str(p)!r})\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
            "print(round(time.process_time() - t, 3), hwm)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    message, figures = out.strip().splitlines()
    seconds, kib = figures.split()
    assert message.startswith("InputError") and says in message and LOCATED.search(message), message
    assert float(seconds) < 1.0 and int(kib) < 100 * 1024, figures


def test_aliases_within_the_limit_and_merge_keys_still_load(tmp_path):
    from checks.formats.proposal import load_proposal
    from model.moritani import GAME
    p = tmp_path / "p.yaml"
    p.write_text("bounds:\n  strongholds: &s [Arrakeen]\n  karama: []\n  factions: &f [Moritani, Atreides, Bene Gesserit]\n"
                 "  alliances: [[Atreides, Bene Gesserit]]\n  forces: [[Atreides, 1, 1]]\n  ambassador: Arrakeen\n")
    assert load_proposal(GAME, str(p)).bounds.strongholds == ("Arrakeen",)


# -- scenario files ------------------------------------------------------------------------------------

BASE = ROOT / "scenarios" / "acceptance" / "karama-cancels-placement.scenario.yaml"


def scenario(tmp_path, edit) -> Path:
    """The shipped scenario with `edit(doc)` applied, written as YAML."""
    doc = YAML(typ="safe").load(BASE.read_text())
    edit(doc)
    p = tmp_path / "s.scenario.yaml"
    y = YAML()
    y.default_flow_style = False
    buf = io.StringIO()
    y.dump(doc, buf)
    p.write_text(buf.getvalue())
    return p


def put(path: str, value):
    def edit(doc):
        *head, last = path.split("/")
        node = doc
        for k in head:
            node = node.setdefault(k, {}) if isinstance(node, dict) else node[int(k)]
        if value is DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return edit


DELETE = object()
SCENARIOS = [
    ("setup-list", "setup", [1, 2], "setup: expected a mapping of setup key"),
    ("setup-number", "setup", 5, "found the number 5"),
    ("defects-number", "setup/defects", 5, "setup.defects: expected a list"),
    ("defects-unknown", "setup/defects", ["nope"], "'nope' is not a seeded defect"),
    ("pids-twice", "setup/options", {"pids": [1, 1, 2, 3, 4, 5]}, "listed twice"),
    ("pids-short", "setup/options", {"pids": [2, 1]}, "pids must be a permutation of 1..6"),
    ("pids-text", "setup/options", {"pids": "x"}, "setup.options.pids: expected a list"),
    ("pids-range", "setup/options", {"pids": [7, 1, 2, 3, 4, 5]}, "7 is out of range"),
    ("unknown-option", "setup/options", {"colour": 1}, "unknown build option 'colour'"),
    ("old-and-new-pids", "setup/initial_pids", [1, 2, 3, 4, 5, 6], None),  # with options below
    ("proposal-list", "setup/proposal", ["default"], "setup.proposal: expected a mapping"),
    ("proposal-defects", "setup/proposal/defects", ["ids-not-rotated"], "unknown key 'defects'"),
    ("proposal-bounds", "setup/proposal/bounds", {"turns": 9}, "setup.proposal.bounds.turns: 9 is out of range"),
    ("proposal-switch", "setup/proposal/interpretation", {"A4": "nope"}, "is not a choice of switch"),
    ("proposal-name", "setup/proposal/name", ["x"], "setup.proposal.name: expected text"),
    ("steps-number", "steps", 5, "steps: expected a list"),
    ("step-number", "steps/0", 5, "steps[0]: expected a mapping of step key"),
    ("step-without-do", "steps/0", {"says": "x"}, "missing 'do'"),
    ("step-do-number", "steps/0", {"do": 5}, "steps[0].do: expected text"),
    ("step-unknown-key", "steps/0", {"do": "skip_placement", "when": 1}, "unknown step key 'when'"),
    ("step-do-escape", "steps/0", {"do": "x\x1b[2J"}, "control character"),
    ("expect-list", "expect", [1], "expect: expected a mapping of expectation"),
    ("expect-empty", "expect", {}, "expected at least 1 of"),
    ("blocked-at-text", "expect", {"blocked_at": "3"}, "expect.blocked_at: expected a whole number"),
    ("blocked-at-zero", "expect", {"blocked_at": 0}, "0 is out of range"),
    ("blocked-at-beyond", "expect", {"blocked_at": 99}, "step 99 does not exist: the scenario has 3 steps"),
    ("blocked-and-reachable", "expect", {"blocked_at": 2, "reachable": True}, "cannot go with 'blocked_at'"),
    ("blocked-and-values", "expect", {"blocked_at": 2, "values": {"placements": 0}}, "cannot go with 'blocked_at'"),
    ("reachable-false", "expect", {"reachable": False}, "expected True; every step runs"),
    ("reachable-text", "expect", {"reachable": "yes"}, "expected True"),
    ("violates-unknown", "expect", {"violates": "nope"}, "unknown check 'nope'; valid:"),
    ("violates-number", "expect", {"violates": 5}, "expect.violates: expected text"),
    ("values-list", "expect", {"values": [1]}, "expect.values: expected a mapping"),
    ("values-unknown-slot", "expect", {"values": {"nope": 1}}, "unknown slot 'nope'"),
    ("values-int-as-text", "expect", {"values": {"spice[Moritani]": "7"}}, "expected a whole number from 0"),
    ("values-bool-as-number", "expect", {"values": {"placement_used": 3}}, "expected yes or no"),
    ("values-unknown-label", "expect", {"values": {"stage": "nowhere"}}, "expected one of"),
    ("values-out-of-range", "expect", {"values": {"spice[Moritani]": 999}}, "expected a whole number from 0"),
    ("values-float", "expect", {"values": {"spice[Moritani]": 2.5}}, "expected text, a whole number"),
    ("expect-unknown-key", "expect", {"perhaps": 1}, "unknown expectation 'perhaps'"),
    ("no-setup", "setup", DELETE, "missing 'setup'"),
    ("no-steps", "steps", DELETE, "missing 'steps'"),
    ("no-expect", "expect", DELETE, "missing 'expect'"),
    ("version-2", "scenario", 2, "the scenario format version"),
    ("name-list", "name", [1], "name: expected text"),
    ("cites-text", "cites", "R1", "cites: expected a list"),
]


@pytest.mark.parametrize("path, value, message", [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS])
def test_a_bad_scenario_exits_3_at_its_line_and_column(tmp_path, path, value, message):
    edit = put(path, value)
    if path == "setup/initial_pids":
        def edit(doc, first=edit):
            first(doc)
            doc["setup"]["options"] = {"pids": [1, 2, 3, 4, 5, 6]}
        message = "both give the initial public IDs"
    r = run("replay", scenario(tmp_path, edit))
    assert r.exit_code == 3, r.output
    assert LOCATED.search(r.output) and message in r.output, r.output
    assert "Traceback" not in r.output and "\x1b" not in r.output


@pytest.mark.parametrize("content", ["", "# only a comment\n", "[]\n", "steps: []\n"])
def test_an_empty_or_shapeless_scenario_exits_3(tmp_path, content):
    p = tmp_path / "s.scenario.yaml"
    p.write_text(content)
    r = run("replay", p)
    assert r.exit_code == 3 and LOCATED.search(r.output), r.output


@pytest.mark.parametrize("expect, code, message", [
    ({"reachable": True}, 0, "expectation met"),
    ({"violates": "token-conservation"}, 12, "does not violate token-conservation"),
    ({"values": {"placements": 1}}, 12, "at the end placements is 0, expected 1"),
    ({"values": {"placement_used": True, "karama[Atreides]": "no"}}, 0, "expectation met"),
    ({"blocked_at": 2}, 12, "is enabled here; expected the rules to refuse it"),
    ({"reachable": True, "values": {"stage": "mentat_end"}}, 0, "expectation met"),
])
def test_replay_honours_every_expectation_key(tmp_path, expect, code, message):
    r = run("replay", scenario(tmp_path, put("expect", expect)))
    assert r.exit_code == code and message in r.output, r.output


def test_replay_honours_the_proposal_name_as_its_base_profile(tmp_path):
    """`setup.proposal.name` naming an embedded profile is the base the file changes: under
    printed-rules the Mentat Pause waits for the scheduler, so the engine's first step is refused."""
    r = run("replay", scenario(tmp_path, put("setup/proposal/name", "printed-rules")), "--format", "json")
    assert r.exit_code == 12 and '"proposal": "printed-rules"' in r.output, r.output
    ok = run("replay", BASE)
    assert ok.exit_code == 0 and "under proposal 'default'" in ok.output


# -- options ---------------------------------------------------------------------------------------

OPTIONS = [
    *[(cmd, opt, value) for cmd in ("explore", "check", "ambiguities", "selftest", "leaks", "prove")
      for opt, value in (("--max-states", "0"), ("--max-states", "-5"), ("--timeout", "nan"), ("--timeout", "inf"),
                         ("--timeout", "0"), ("--max-depth", "-1"))],
    ("check", "--z3-budget", "-5"), ("check", "--timeout", "-1"), ("check", "--timeout", "1e999"),
    ("check", "--max-states", "many"), ("prove", "--rlimit", "-1"), ("prove", "--spacer-rlimit", "-1"), ("prove", "--depth", "-1"),
    ("leaks", "--z3-depth", "-2"), ("explore", "--seed", "-1"), ("explore", "--jobs", "0"),
    ("explore", "--format", "xml"), ("explore", "--engine", "gpu"), ("prove", "--engine", "magic"),
    ("compare", "--max-states", "0"), ("compare", "--timeout", "nan"), ("export", "--max-states", "-1"),
    ("interpretations", "--schema", "everything"),
]


@pytest.mark.parametrize("cmd, option, value", OPTIONS)
def test_a_bad_option_is_a_usage_error(tmp_path, cmd, option, value):
    extra = {"compare": ["default", "default"], "export": ["--promela", tmp_path / "m.pml"]}.get(cmd, [])
    r = run(cmd, *extra, option, value)
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert option in r.output


@pytest.mark.parametrize("args, message", [
    (["prove", "--check", "nope"], "unknown invariant 'nope'"),
    (["leaks", "--observer", "Harkonnen"], "unknown observer 'Harkonnen'"),
    (["selftest", "--defect", "nope"], "unknown seeded defect 'nope'"),
    (["explore", "--out", "x"], "--out only go with --serve"),  # explore --serve saves scenarios there
    (["explore", "--graph", "x.txt"], "--graph needs a .dot or .graphml"),
    (["explore", "--proposal", "no-such-profile"], None),
])
def test_unknown_names_are_refused(args, message):
    r = run(*args)
    if message is None:
        assert r.exit_code == 3 and "not an embedded profile" in r.output
    else:
        assert r.exit_code == 2 and message in r.output, r.output


# -- output paths ----------------------------------------------------------------------------------------

def places(tmp_path) -> dict:
    (tmp_path / "plain").write_text("x")
    (tmp_path / "adir.html").mkdir()
    return {"/dev/null": "/dev/null", "file": tmp_path / "plain", "under-file": tmp_path / "plain" / "x",
            "proc": "/proc/rulecheck-x", "dir": tmp_path / "adir.html"}


OUTPUTS = [
    ("check", "--out", "/dev/null", "not a directory"), ("check", "--out", "file", "not a directory"),
    ("check", "--out", "under-file", "is not a directory"), ("check", "--out", "proc", "cannot create"),
    ("selftest", "--out", "/dev/null", "not a directory"), ("leaks", "--out", "file", "not a directory"),
    ("ambiguities", "--out", "proc", "cannot create"), ("prove", "--out", "under-file", "is not a directory"),
    ("check", "--junit", "dir", "is a directory"), ("check", "--junit", "proc", "cannot create"),
    ("selftest", "--junit", "under-file", "is not a directory"), ("check", "--summary", "dir", "is a directory"),
    ("leaks", "--summary", "proc", "cannot create"), ("check", "--html", "dir", "is a directory"),
    ("ambiguities", "--html", "proc", "cannot create"), ("selftest", "--html", "under-file", "is not a directory"),
    ("explore", "--graph", "proc", "cannot create"), ("explore", "--graph", "dir", "is a directory"),
    ("export", "--promela", "proc", "cannot create"), ("export", "--promela", "dir", "is a directory"),
]


@pytest.mark.parametrize("cmd, option, where, reason", OUTPUTS)
def test_an_unwritable_output_is_refused_before_any_work(tmp_path, cmd, option, where, reason):
    path = places(tmp_path)[where]
    if option == "--graph" and where == "proc":
        path = "/proc/rulecheck-x.dot"
    r = run(cmd, option, path, *(["--defect", "ids-not-rotated"] if cmd == "selftest" else []))
    assert r.exit_code == 2, r.output
    assert option in r.output and reason in r.output and "summary:" not in r.output, r.output
    assert (tmp_path / "plain").read_text() == "x"


@pytest.mark.skipif(ROOT_USER, reason="permission bits do not stop root")
@pytest.mark.parametrize("option", ["--out", "--junit", "--html"])
def test_a_read_only_directory_is_refused(tmp_path, option):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = run("selftest", "--defect", "ids-not-rotated", option, ro / "x")
        assert r.exit_code == 2 and "Permission denied" in r.output
    finally:
        ro.chmod(0o755)


def test_dev_null_is_a_fine_report_file():
    assert run("selftest", "--defect", "ids-not-rotated", "--junit", "/dev/null").exit_code == 0


@pytest.mark.parametrize("what", ["junit", "html", "out"])
def test_the_verdict_reaches_stdout_when_a_file_fails_after_the_run(tmp_path, monkeypatch, what):
    """The path was fine before the run and the disk fills up during it: the verdict is printed anyway,
    with the reason on stderr, and a run that would have exited 0 exits 2."""
    def full(*a, **kw):
        raise OSError(28, "No space left on device")
    for module in ("outputs", "cireport", "html"):  # every place that holds the writer
        monkeypatch.setattr(f"checks.formats.{module}.write_atomic", full)
    for module in ("outputs", "scenario", "export"):
        monkeypatch.setattr(f"checks.formats.{module}.write_new", full)
    target = tmp_path / {"junit": "j.xml", "html": "r.html", "out": "o"}[what]
    r = run("selftest", "--defect", "ids-not-rotated", f"--{what}", target)
    assert r.exit_code == 2, r.output
    assert "caught 1/1 seeded defects" in r.output and "No space left on device" in r.output


@pytest.mark.heavy
@pytest.mark.skipif(not hasattr(os, "fork"), reason="sets a file size limit in the child (POSIX)")
def test_a_full_disk_during_the_writes_leaves_no_partial_file(tmp_path):
    """Issue 37, with real partial writes (above, the writers are replaced): a file size limit of 3,000
    bytes (RLIMIT_FSIZE: a write past it fails part of the way, as on a full disk) while `check` writes
    its witnesses, its HTML report and its JUnit file. The verdict is printed, exit 2 (it would be 0),
    each lost file is named on stderr, and whatever is on disk is whole: no partial file, no temporary."""
    import resource
    (tmp_path / "tiny.yaml").write_text("bounds: {factions: [Moritani, Atreides, Bene Gesserit], alliances: [], "
                                        "strongholds: [Arrakeen], ambassador: null, turns: 1, faces: [Sabotage, "
                                        "Extortion], karama: [Atreides]}\n")
    out, page, junit = tmp_path / "out", tmp_path / "r.html", tmp_path / "j.xml"

    def small_disk():
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))  # Python ignores SIGXFSZ: writes fail, EFBIG
    r = subprocess.run([sys.executable, "-c", "from checks.launch import run; import sys; sys.exit(run())", "check",
                        "--proposal", tmp_path / "tiny.yaml", "--z3-budget", "0", "--engine", "scalar", "--jobs", "1",
                        "--out", out, "--html", page, "--junit", junit], cwd=ROOT, capture_output=True, text=True,
                       timeout=600, preexec_fn=small_disk, env=dict(os.environ, RULECHECK_CACHE=str(tmp_path / "c")))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "summary: holds" in r.stdout and "Traceback" not in r.stderr
    assert "cannot write the traces under" in r.stderr and "cannot write the HTML report" in r.stderr
    assert not page.exists()  # the page is larger than the limit: absent, never cut
    assert not list(tmp_path.rglob(".*.tmp"))
    from checks.formats.scenario import load_scenario
    from model.moritani import GAME
    for f in out.rglob("*.scenario.yaml"):  # the witnesses that fit are whole
        load_scenario(GAME, str(f))
    if junit.exists():
        import xml.etree.ElementTree as ET
        ET.parse(junit)


NAMES = ["../../escape", "/abs/evil", "a/../../b", "..", ".", "~root", "C:\\windows\\x", "nul\x00x", "x" * 300, ""]


@pytest.mark.parametrize("name", NAMES)
def test_a_name_from_input_becomes_one_safe_path_component(tmp_path, name):
    s = slug(name)
    assert s and "/" not in s and "\\" not in s and not s.startswith(".") and len(s) <= 80 and "\x00" not in s
    target = inside(tmp_path / "out", "compare", f"{s}.scenario.yaml")
    assert tmp_path / "out" in target.resolve().parents


@pytest.mark.parametrize("parts", [("..", "x"), ("/etc", "passwd"), ("a", "..", "..", "b")])
def test_inside_refuses_a_path_that_leaves_the_output_directory(tmp_path, parts):
    with pytest.raises(OutputError):
        inside(tmp_path / "out", *parts)


@pytest.mark.heavy
def test_compare_writes_proposal_names_only_inside_out(tmp_path):
    """Two proposals named `../../escape` and `/abs/evil`: the distinguishing game lands in
    out/compare/ under a slugged name, and nothing is created anywhere else."""
    bounds = "bounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  faces: [Extortion, Robbery]\n"
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text('name: "../../escape"\n' + bounds)
    b.write_text('name: "/abs/evil"\ninterpretation:\n  A5: extortion-first\n' + bounds)
    work = tmp_path / "deep" / "er"
    work.mkdir(parents=True)
    before = sorted(p for p in tmp_path.rglob("*"))
    r = subprocess.run([sys.executable, "-c", "from checks.cli import run; run()", "compare", str(a), str(b),
                        "--out", "out"], cwd=work, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 12, r.stderr
    created = sorted(set(tmp_path.rglob("*")) - set(before))
    assert all(work / "out" in p.parents or p == work / "out" for p in created), created
    assert [p.name for p in (work / "out" / "compare").iterdir()] == ["abs-evil-not-escape-outcome.scenario.yaml"]
    assert not Path("/abs").exists()
