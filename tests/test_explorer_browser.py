"""The explorer in a real browser (issue 38, "done when"): Debian's Chromium through Playwright plays the
`witness-eome-refused` game of the default profile by clicking its actions, saves it, and
`rulecheck replay` passes the file; the same for a refused action saved as `blocked_at`, whose file
names the false guard; switching the observer shows exactly what the API serves for that observer
(tests/test_explorer.py checks the API against the observation function on 50 states); compare mode
marks the first step where two proposals differ. The tests skip, saying why, only when no browser
can be launched.

Screenshots go to each test's temporary directory; `RULECHECK_DOC_SCREENSHOTS=1` also writes the ones
docs/explorer.md shows into docs/img/.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from checks.cli import main
from checks.formats.proposal import load_proposal
from explorer_support import WITNESS, Served, app, chromium, normal, setup, text_of
from model.moritani import GAME

pytestmark = pytest.mark.heavy  # a browser, and each test plays a game by clicking (several seconds each)
ROOT = Path(__file__).resolve().parent.parent
# A proposal one switch away from the default: the Karama window on Enemy of My Enemy after the reply (A4).
AFTER_REPLY = "name: karama-after-reply\ninterpretation:\n  A4: after-reply\n"


@pytest.fixture(scope="module")
def browser():
    pw, ctx, profile = chromium(pytest)
    yield ctx
    ctx.close()
    pw.stop()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser")
    (d / "after.yaml").write_text(AFTER_REPLY)
    other = load_proposal(GAME, str(d / "after.yaml"))
    s = Served(app(setup(), d / "out", {other.name: other}))
    s.out = d / "out"
    yield s
    s.stop()


@pytest.fixture(scope="module")
def game(default_exploration):
    """The witness game as the checker reports it (tests/test_explorer.py pins it)."""
    return default_exploration.witness_trace(WITNESS).labels


def ready(page) -> None:
    """Wait until the page has no request in flight (the script counts them in body[data-busy])."""
    page.locator('body[data-busy="0"]').wait_for(state="attached")


def open_page(browser, served):
    page = browser.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(served.url)
    ready(page)
    return page, errors


def play(page, labels) -> None:
    for i, label in enumerate(labels, 1):
        page.locator(f'button.act[data-label="{label}"]').click()
        ready(page)
        assert page.locator("#pos").inner_text() == f"step {i} of {i}"


def shot(page, tmp_path: Path, name: str, down_to) -> None:
    """The page from its top down to the bottom of `down_to` (at most 1,300 pixels)."""
    page.evaluate("window.scrollTo(0, 0)")
    box = down_to.bounding_box()
    bottom = box["y"] + box["height"] + page.evaluate("window.scrollY") + 10
    page.screenshot(path=str(tmp_path / name), full_page=True,
                    clip={"x": 0, "y": 0, "width": 1300, "height": min(bottom, 1300)})
    if os.environ.get("RULECHECK_DOC_SCREENSHOTS"):
        (ROOT / "docs" / "img").mkdir(exist_ok=True)
        shutil.copy(tmp_path / name, ROOT / "docs" / "img" / name)


def save(page, name: str) -> str:
    page.locator("#name").fill(name)
    page.locator("#save").click()
    ready(page)
    return page.locator("#saved").inner_text()


def replay(path: Path):
    return CliRunner().invoke(main, ["replay", str(path)])


def test_playing_the_witness_game_by_clicking_and_saving_it(browser, served, game):
    page, errors = open_page(browser, served)
    assert page.locator("#proposal").inner_text() == "default"
    play(page, game)
    history = page.locator("#history li")
    assert history.count() == len(game) + 1
    assert "Atreides refuses the alliance: Moritani must reveal" in history.last.inner_text()
    assert page.locator("#expect").input_value() == "reachable"
    said = save(page, "witness-eome-refused-by-hand")
    assert "rulecheck replay passes it" in said, said
    f = served.out / "witness-eome-refused-by-hand.scenario.yaml"
    r = replay(f)
    assert r.exit_code == 0, r.output
    doc = YAML(typ="safe").load(f.read_text(encoding="utf-8"))
    assert [s["do"] for s in doc["steps"]] == game and doc["expect"] == {"reachable": True}
    page.locator("#back").click()  # back and forward walk the same path
    ready(page)
    assert page.locator("#pos").inner_text() == f"step {len(game) - 1} of {len(game)}"
    page.locator("#forward").click()
    ready(page)
    assert page.locator("#pos").inner_text() == f"step {len(game)} of {len(game)}"
    assert errors == []


def test_a_refused_action_saved_as_blocked_at_names_its_false_guard(browser, served, game, tmp_path):
    page, errors = open_page(browser, served)
    play(page, game)
    page.locator("#refused-box summary").click()
    page.locator('button.try[data-label="decline"]').click()
    ready(page)
    why = page.locator("#why")
    assert "decline is refused here" in normal(why.inner_text())
    assert "not eome_refused" in why.locator("li.bad").inner_text()
    assert page.locator("#expect").input_value() == "blocked"
    shot(page, tmp_path, "explorer-refused.png", page.locator("#refused-box"))
    said = save(page, "decline-after-refusal")
    assert "rulecheck replay passes it" in said, said
    f = served.out / "decline-after-refusal.scenario.yaml"
    doc = YAML(typ="safe").load(f.read_text(encoding="utf-8"))
    assert doc["expect"]["blocked_at"] == len(game) + 1 and doc["steps"][-1]["do"] == "decline"
    assert doc["expect"]["because"]["guard"] == "not eome_refused"
    r = replay(f)
    assert r.exit_code == 0 and "blocked, as expected: not eome_refused is false" in r.output, r.output
    assert errors == []


def test_switching_the_observer_shows_what_that_observer_sees(browser, served, game, tmp_path):
    """The page's text for each observer is the API's for that observer (checked against the leak
    check's observation on 50 states in tests/test_explorer.py), and the hidden face is gone."""
    page, errors = open_page(browser, served)
    play(page, game)
    assert "Assassination" in page.locator("#board").inner_text()  # the designer sees the face
    for observer in ("Atreides", "Bene Gesserit", "Ecaz", "Moritani", "designer"):
        page.locator("#observer").select_option(observer)
        ready(page)
        api = served.view(game, observer)
        for part in ("board", "fields", "choices", "history"):
            assert normal(page.locator(f"#{part}").text_content()) == text_of(api[part]), (observer, part)
        visible = page.locator("#board").inner_text() + page.locator("#history").inner_text()
        assert ("Assassination" in visible) == (observer in ("Moritani", "designer")), observer
        assert page.locator("#properties-box").is_visible() == (observer == "designer")
        if observer == "Atreides":
            shot(page, tmp_path, "explorer-observer.png", page.locator("#board-box"))
    assert errors == []


def test_compare_mode_marks_the_first_step_where_two_proposals_differ(browser, served, game, tmp_path):
    page, errors = open_page(browser, served)
    play(page, game)
    page.locator("#compare").select_option("karama-after-reply")
    ready(page)
    first = page.locator("#cmp-first").inner_text()
    assert first.startswith("first difference at step 7: the boards differ"), first
    rows = page.locator("#cmp-rows li")
    assert rows.count() == len(game) + 1 and "first" in rows.nth(7).get_attribute("class")
    assert "same" in rows.nth(6).get_attribute("class")
    rows.nth(7).click()  # go to the first difference: both boards at step 7, the differences marked
    ready(page)
    assert page.locator("#pos").inner_text() == f"step 7 of {len(game)}"
    lanes = page.locator("#cmp-lanes .lane")
    assert lanes.count() == 2 and lanes.nth(1).locator(".dif").count() > 0
    assert not page.locator("#board-box").is_visible()  # lane A is the board
    shot(page, tmp_path, "explorer-compare.png", page.locator("#compare-box"))
    assert errors == []


def test_the_same_state_reached_twice_is_named(browser, served):
    """A reload (an engine fault) in the initial state changes nothing: the state is the initial one."""
    page, errors = open_page(browser, served)
    assert "back to the state of step 0" in page.locator('li.choice:has(button[data-label="reload"])').inner_text()
    page.locator('button.act[data-label="reload"]').click()
    ready(page)
    assert "the same state as step 0" in page.locator("#fp").inner_text()
    assert "same state as step 0" in page.locator("#history li").last.inner_text()
    assert errors == []
