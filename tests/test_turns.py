"""check's and explore's default depth (issue 17, NOTE(turns) in checks/pipelines/check.py): three turns on the
default bounds, the proposal's own turns everywhere else, `--turns N` over both."""
from __future__ import annotations

from click.testing import CliRunner

from checks.cli import main
from checks.formats.proposal import resolve
from checks.formats.scenario import replay_matching
from model.moritani import GAME, searched


def test_the_default_bounds_are_searched_for_three_turns_and_nothing_else_changes():
    default = GAME.profiles["default"]
    assert searched(default).bounds.turns == 3 and default.bounds.turns == 2
    for name in ("printed-rules", "quintine", "treachery-online"):  # the other profiles on the default bounds
        assert searched(GAME.profiles[name]).bounds.turns == 3
    for name, prop in GAME.profiles.items():  # a profile with bounds of its own keeps them
        if prop.bounds != default.bounds:
            assert searched(prop) is prop, name
    assert searched(default, 1).bounds.turns == 1 and searched(GAME.profiles["three-turns"], 2).bounds.turns == 2


def test_a_proposal_file_that_writes_its_turns_keeps_them(tmp_path):
    (tmp_path / "two.yaml").write_text("name: two\nbounds:\n  turns: 2\n")
    (tmp_path / "plain.yaml").write_text("name: plain\ninterpretation:\n  A1: terror-first\n")
    two, plain = resolve(GAME, str(tmp_path / "two.yaml")), resolve(GAME, str(tmp_path / "plain.yaml"))
    assert two.bounds == plain.bounds == GAME.profiles["default"].bounds  # same bounds, not the same intent
    assert searched(two) is two and searched(plain).bounds.turns == 3


def test_turns_out_of_range_is_a_usage_error():
    for bad in ("0", "7"):
        r = CliRunner().invoke(main, ["explore", "--turns", bad])
        assert r.exit_code == 2 and "--turns" in r.output and "Traceback" not in r.output, r.output


def test_scenarios_recorded_with_either_setup_replay():
    """A default check searches three turns; the kept scenarios recorded on two still replay (on their model)."""
    deep = searched(GAME.profiles["default"])
    kept, skipped = replay_matching(GAME, deep, "scenarios/acceptance", also=GAME.profiles["default"])
    alone, skipped_alone = replay_matching(GAME, deep, "scenarios/acceptance")
    assert len(kept) + skipped == 19 and len(kept) >= 10 and all(r.verdict == "holds" for r in kept)
    assert alone == [] and skipped_alone == 19
