"""The HTML report (--html): one self-contained page in which a designer steps through boards.

The first part reads the page as text: one file, nothing loaded from outside, every step of every
trace present, and nothing secret outside the omniscient view (two games that differ only in
which hidden face lies where give the same public page). The second part drives Debian's Chromium
through Playwright: it steps through a seeded counterexample and asserts what the board shows.
Those tests skip, saying why, only when no browser can be launched.

Screenshots go to each test's temporary directory; `RULECHECK_DOC_SCREENSHOTS=1` also writes
the ones docs/report.md shows into docs/img/.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from checks.cli import main
from checks.config import CheckConfig
from checks.formats import html
from checks.formats.proposal import load_proposal
from model.moritani import GAME
from checks.analyses.verdicts import run_explicit
from model.moritani.build import build_model
from model.moritani.observe import exchange_label, hidden_faces
from model.trace import Trace

ROOT = Path(__file__).resolve().parent.parent
# The custody bug of tests/test_cireport.py (H30): accepting Enemy of My Enemy leaves the token on the map.
BUGGY = "name: engine with a custody bug\nbounds:\n  turns: 1\ndefects: [eome-duplicates-token]\n"
# A seeded leak on one stronghold: declining writes the kept face into the public log.
LEAKY = ("name: leaky log\nbounds:\n  turns: 1\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n"
         "defects: [decline-logs-face]\n")
SMALL = "bounds:\n  turns: {turns}\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def buggy(tmp_path_factory):
    """`check --html` on the seeded custody bug: (report path, CLI result)."""
    d = tmp_path_factory.mktemp("html")
    (d / "buggy.yaml").write_text(BUGGY)
    r = run("check", "--proposal", d / "buggy.yaml", "--z3-budget", "0", "--html", d / "report" / "check.html")
    assert r.exit_code == 12, r.output
    return d / "report" / "check.html", r


@pytest.fixture(scope="module")
def leaky(tmp_path_factory):
    d = tmp_path_factory.mktemp("leak")
    (d / "leaky.yaml").write_text(LEAKY)
    r = run("leaks", "--proposal", d / "leaky.yaml", "--engine", "explicit", "--html", d / "leaks.html")
    assert r.exit_code == 12, r.output
    return d / "leaks.html"


# -- reading the page without a browser -------------------------------------------------------------

VOID = {"input", "br", "meta", "img", "hr", "link", "wbr"}


class Public(HTMLParser):
    """Per viewer and step, what is drawn outside the omniscient view: tags, classes and text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list = []  # (tag, is omni, viewer id, step)
        self.steps: dict = {}

    def _at(self):
        return (self.stack[-1][2], self.stack[-1][3]) if self.stack else (None, None)

    def _hidden(self):
        return any(x[1] for x in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        viewer, step = self._at()
        classes = (a.get("class") or "").split()
        if tag == "section" and "viewer" in classes:
            viewer = a["id"]
        if "data-step" in a:
            step = int(a["data-step"])
        omni = "omni" in classes
        if step is not None and not omni and not self._hidden():
            self.steps.setdefault((viewer, step), []).append(f"<{' '.join([tag] + sorted(classes))}>")
        if tag not in VOID:
            self.stack.append((tag, omni, viewer, step))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        viewer, step = self._at()
        if step is not None and not self._hidden():
            self.steps.setdefault((viewer, step), []).append(data)


def public_steps(page: str) -> dict:
    p = Public()
    p.feed(page)
    return {k: "".join(v) for k, v in p.steps.items()}


def test_the_page_is_one_file_that_loads_nothing(buggy):
    path, r = buggy
    assert re.search(r"token-conservation +invariant +violated", r.output)  # the verdict still reaches stdout
    assert sorted(p.name for p in path.parent.iterdir()) == ["check.html"]  # no temporary file left behind
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"https?://", page)
    assert not re.search(r"<(link|img|iframe|object|embed)\b|<script[^>]*\bsrc=|@import|url\(", page, re.I)
    assert "buggy.yaml" in page and str(path.parent.parent) not in page  # the file's name, not a machine path


def proposal(tmp_path: Path, text: str, name: str = "p.yaml"):
    (tmp_path / name).write_text(text)
    return load_proposal(GAME, str(tmp_path / name))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The buggy check rendered in-process: (model, results, proposal, page)."""
    prop = proposal(tmp_path_factory.mktemp("buggy"), BUGGY)
    model = build_model(prop.bounds, prop.interpretation, prop.defects)
    results, ex = run_explicit(model, CheckConfig())
    return model, results, prop, html.report(results, "check", prop, 0, len(ex.states), 2.4, model)


def test_every_step_of_every_trace_is_on_the_page(rendered):
    model, results, prop, page = rendered
    steps = public_steps(page)
    traced = [(i, r) for i, r in enumerate(results) if r.trace is not None]
    assert len(traced) >= 14  # the counterexample and the witnesses
    for i, r in traced:
        for k in range(r.trace.depth + 1):
            assert (f"t{i}", k) in steps, (r.id, k)
        assert (f"t{i}", r.trace.depth + 1) not in steps
        assert f'href="#t{i}"' in page  # the verdict table links to the trace


def test_the_counterexample_shows_the_board_and_the_rule_ids(rendered):
    model, results, prop, page = rendered
    steps = public_steps(page)
    assert results[0].id == "token-conservation"
    zero, two, last = steps[("t0", 0)], steps[("t0", 2)], steps[("t0", 9)]
    assert "<div region stronghold><div rn>Arrakeen<div empty>empty" in zero
    # commit_placement: its game words and catalogue IDs, and Arrakeen marked as changed with token #1 in it
    assert "the token lands in Arrakeen" in two and "<span ids>R7 R8 R10 H1" in two
    assert "<div chg region stronghold><div rn>Arrakeen<div toks><span chg tok><b>#1" in two
    assert "<span badge>violates token-conservation" in last
    assert "<span alert chg tok><b>#7 <em>in supply, yet still on the map in Arrakeen" in last
    # The face is never named outside the omniscient view, where it is named and marked hidden.
    assert "Assassination" not in "".join(steps[("t0", k)] for k in range(10))
    assert '<span class="omni sec"> <span class="hid">hidden</span> Assassination</span>' in page


def _twin(model, trace: Trace):
    """The same game with two faces that stay hidden throughout exchanged (what no rival can tell)."""
    c = model.vocabulary
    always = [k for k in c.faces if all(k in hidden_faces(model, s) for s in trace.states)]
    if len(always) < 2:
        return None, None
    a, b = always[:2]
    pids = [model.get(model.init[0], "pid", k) for k in c.faces]
    pids[a], pids[b] = pids[b], pids[a]
    twin = build_model(c.bounds, c.interp, tuple(model.provenance.defects), pids=tuple(pids))
    labels = [exchange_label(model, model.action(x), a, b) for x in trace.labels]
    return twin, Trace.from_actions(twin, twin.init[0], labels)


def test_nothing_secret_is_drawn_outside_the_omniscient_view(tmp_path):
    """Every trace of a correct engine and its twin with two hidden faces exchanged: the public part of
    every step (text, tags and marks) is identical; the omniscient part is not."""
    from checks.formats.html_board import Lane, viewer
    model = build_model(proposal(tmp_path, SMALL.format(turns=1)).bounds)
    results, _ = run_explicit(model, CheckConfig())
    compared = 0
    for r in results:
        if r.trace is None or r.trace.depth < 2:
            continue
        twin, t2 = _twin(model, r.trace)
        if twin is None:
            continue
        one, two = viewer(r.id, [Lane("", model, r.trace)], "v"), viewer(r.id, [Lane("", twin, t2)], "v")
        assert public_steps(one) == public_steps(two), r.id
        assert one != two  # the faces differ, in the omniscient view only
        compared += 1
    assert compared >= 8


def test_the_same_results_give_the_same_bytes(rendered):
    model, results, prop, page = rendered
    states = int(re.search(r"<dt>states explored</dt><dd>([\d,]+)<", page).group(1).replace(",", ""))
    assert html.report(results, "check", prop, 0, states, 2.4, model) == page
    assert html.report(results, "check", prop, 0, states, 1.6, model) == page  # times are rounded
    assert "<dt>time</dt><dd>about 2 s</dd>" in page


def test_leak_pairs_are_side_by_side_with_the_difference_marked(leaky):
    page = leaky.read_text(encoding="utf-8")
    assert page.count('class="leak"') == 1  # the three observers' identical pairs are drawn once
    assert "Atreides, Bene Gesserit, Ecaz</b> see a different <b>public board" in page
    last = public_steps(page)[("leak-0", 9)]
    assert "<div lt>game A" in last and "<div lt>game B" in last
    # the observation that differs: the log entry, marked in both lanes, with a different face in each
    faces = re.findall(r"<div (?:chg )?dif it><span ik>engine log: declined face <span iv>([A-Za-z ]+)", last)
    assert len(faces) == 2 and faces[0] != faces[1], faces


def test_ambiguity_pairs_show_both_orders(tmp_path):
    from checks.analyses.ambiguity import analyse
    prop = proposal(tmp_path, SMALL.format(turns=1))
    model = GAME.open_orders(prop)
    results = analyse(model, prop.interpretation, CheckConfig(), prove=False)
    page = html.report(results, "ambiguities", prop, 0, results[0].states, 1.0, model)
    cascades = next(i for i, r in enumerate(results) if r.extra["class"] == "cascades")
    steps = public_steps(page)
    assert (f"t{cascades}-orders", 0) in steps
    first = steps[(f"t{cascades}-orders", 1)]
    assert "<div lt>terror first" in first and "<div lt>bg-advisor first" in first


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_compare_draws_the_distinguishing_game(tmp_path):
    (tmp_path / "a.yaml").write_text("name: small\n" + SMALL.format(turns=2))
    (tmp_path / "b.yaml").write_text("name: small-extortion-first\ninterpretation:\n  A5: extortion-first\n"
                                     + SMALL.format(turns=2))
    r = run("compare", tmp_path / "a.yaml", tmp_path / "b.yaml", "--html", tmp_path / "cmp.html")
    assert r.exit_code == 12, r.output
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert "Distinguishing games" in page and "extortion-first" in page
    assert ("d0", 1) in public_steps(page)


def test_selftest_draws_each_defect_with_its_own_model(tmp_path):
    r = run("selftest", "--defect", "eome-duplicates-token", "--defect", "advisor-overwrites-ambassador-payer",
            "--format", "json", "--html", tmp_path / "self.html")
    assert r.exit_code == 0 and r.output.lstrip().startswith("{"), r.output  # stdout stays pure JSON
    steps = public_steps((tmp_path / "self.html").read_text(encoding="utf-8"))
    assert "<span badge>token-conservation fires" in steps[("t0", 9)]  # one-turn bounds of that defect
    orders = steps[("t1-orders", 1)]  # the order defect: both orders of the pair its bug makes diverge
    assert "<div lt>bg-advisor first" in orders and "<div lt>ecaz-ambassador first" in orders


def test_the_renderer_knows_no_game():
    """checks/formats draws whatever board the model declares: it never imports the Moritani package."""
    import ast
    for path in (ROOT / "checks" / "formats").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not any(n.startswith("model.moritani") for n in names), path


# -- hostile text (issues 37, 40) ---------------------------------------------------------------------

# A name that a raw U+202E shows as "safe<script...>lmth.exe"-like text reversed, markup, and an isolate,
# a mark and markup in the description; the schema lets them through (they are not control characters).
HOSTILE = ('name: "safe\u202eexe.lmth <script>alert(1)</script>"\n'
           'description: "an \u2066isolate\u2069, a \u200f mark, <img src=x onerror=alert(2)>"\n'
           + SMALL.format(turns=1))
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def hostile(rendered, tmp_path_factory):
    """The buggy check's results drawn under a hostile proposal (`check`'s page) and a sweep page naming it:
    {kind: path}."""
    from checks.formats import sweep_report
    from checks.pipelines.sweep import parse_axes
    d = tmp_path_factory.mktemp("hostile")
    model, results, _, _ = rendered
    prop = proposal(d, HOSTILE)
    axes = parse_axes(prop, ("A1",))
    cid = "check \u202eevil"
    checks = [{"id": cid, "verdict": "violated", "holds_iff": "holds iff A1=\u2067x", "statement_agrees": "1/1",
               "smallest_violations": []}]
    rows = [{"index": 0, "id": "A1=arrival-first", "combination": {axes[0].key: "arrival-first"}, "status": "done",
             "verdicts": {cid: "violated"}, "same_model_as": "\u202ex"}]
    meta = {"combinations": 1, "models": 1, "failed": [], "where": "a pool", "states": 1, "seconds": 1.0}
    pages = {"check": html.report(results, "check", prop, 0, 1, 1.0, model),
             "sweep": sweep_report.html_page(checks, rows, axes, prop, 0, meta)}
    for kind, text in pages.items():
        (d / f"{kind}.html").write_text(text, encoding="utf-8")
    return {kind: d / f"{kind}.html" for kind in pages}


@pytest.mark.parametrize("kind", ["check", "sweep"])
def test_bidi_overrides_control_characters_and_markup_from_input_are_inert(hostile, kind):
    """Issue 40: the report showed a raw U+202E, so a name rendered as `safehtml.exe`. Every text goes
    through one escaper (html_board.e): markup as entities, bidirectional and control characters as
    visible escapes, as on the terminal (an entity such as &#x202e; would still be the character)."""
    page = hostile[kind].read_text(encoding="utf-8")
    bad = UNSAFE.search(page)
    assert bad is None, page[max(0, bad.start() - 80):bad.end() + 80]
    shown = "safe\\u202eexe.lmth &lt;script&gt;alert(1)&lt;/script&gt;"
    assert page.count(shown) >= 1 and page.count("&lt;img src=x onerror=alert(2)&gt;") == 1
    assert page.count("<script") == 1 and page.count("<img") == 0  # the page's own script, no element from input


def test_every_html_page_escapes_through_the_one_escaper():
    """No module draws HTML with its own escaping, which could miss the bidirectional characters."""
    for path in (ROOT / "checks").rglob("*.py"):
        if path.name == "html_board.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "from html import" not in text and "html.escape" not in text, path


@pytest.mark.parametrize("where", ["file", "dir"])
def test_an_unwritable_path_is_a_usage_error_before_the_run(tmp_path, where):
    (tmp_path / "plain").write_text("x")
    target = tmp_path / "plain" / "r.html" if where == "file" else tmp_path
    r = run("check", "--proposal", "default", "--html", target)
    assert r.exit_code == 2 and "--html" in r.output and "summary:" not in r.output, r.output


def test_the_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "r.html"
    html.write(path, "old")

    def broken(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        html.write(path, "new")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


# -- in a real browser -----------------------------------------------------------------------------

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, with a fresh profile; skips only if it cannot start."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (python -m pip install -e '.[test]')")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run does)")
    profile = tempfile.mkdtemp(prefix="rulecheck-chromium-")
    pw = sync_playwright().start()
    try:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=exe, headless=True, args=ARGS,
                                                    viewport={"width": 1100, "height": 900})
    except Exception as err:  # noqa: BLE001 - any launch failure means: no browser here
        pw.stop()
        pytest.skip(f"Chromium at {exe} cannot be launched: {str(err).splitlines()[0]}")
    yield ctx
    ctx.close()
    pw.stop()
    shutil.rmtree(profile, ignore_errors=True)


def _open(browser, path: Path):
    page = browser.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


def _shot(page, locator, tmp_path: Path, name: str, height: int = 820) -> None:
    """A screenshot of `locator` (at most `height` pixels of it) in the test's directory."""
    box = locator.bounding_box()
    page.screenshot(path=str(tmp_path / name), full_page=True,
                    clip={"x": box["x"], "y": box["y"] + page.evaluate("window.scrollY"), "width": box["width"],
                          "height": min(box["height"], height)})
    if os.environ.get("RULECHECK_DOC_SCREENSHOTS"):
        (ROOT / "docs" / "img").mkdir(exist_ok=True)
        shutil.copy(tmp_path / name, ROOT / "docs" / "img" / name)


def test_stepping_through_the_counterexample(browser, buggy, tmp_path):
    page, errors = _open(browser, buggy[0])
    anchor = page.locator("table.verdicts a", has_text="token-conservation").get_attribute("href")
    v = page.locator(anchor)
    step = v.locator("li.step.on")
    arrakeen = step.locator('[data-region="Arrakeen"]')
    assert v.locator(".pos").inner_text() == "step 0 of 9"
    assert step.get_attribute("data-step") == "0" and arrakeen.locator(".tok").count() == 0
    assert v.locator(".prev").is_disabled()
    v.locator(".next").click()
    v.locator(".next").click()
    assert v.locator(".pos").inner_text() == "step 2 of 9"
    assert "nobody plays Karama: the token lands in Arrakeen" in step.locator(".words").inner_text()
    assert step.locator(".ids").inner_text() == "R7 R8 R10 H1"
    assert arrakeen.locator(".tok").inner_text().strip() == "#1"  # placed, face hidden
    assert "chg" in arrakeen.get_attribute("class")  # marked: it changed at this step
    _shot(page, v, tmp_path, "report-counterexample.png")
    v.focus()
    page.keyboard.press("ArrowRight")
    assert step.get_attribute("data-step") == "3"
    page.keyboard.press("ArrowLeft")
    assert step.get_attribute("data-step") == "2"
    v.locator(".last").click()
    assert v.locator(".pos").inner_text() == "step 9 of 9" and v.locator(".next").is_disabled()
    assert step.locator(".badge").inner_text() == "violates token-conservation"
    dup = arrakeen.locator(".tok.alert")
    assert "in supply, yet still on the map in Arrakeen" in dup.inner_text()
    assert "accepts the alliance with Moritani; the #1 token returns to supply" in step.locator(".words").inner_text()
    v.locator(".prev").click()
    assert step.get_attribute("data-step") == "8" and arrakeen.locator(".tok").inner_text().strip() == "#1"
    assert errors == []


def test_hidden_faces_appear_only_in_the_omniscient_view(browser, buggy, tmp_path):
    page, errors = _open(browser, buggy[0])
    anchor = page.locator("table.verdicts a", has_text="token-conservation").get_attribute("href")
    v = page.locator(anchor)
    v.locator(".last").click()
    step = v.locator("li.step.on")
    assert not page.locator("#omni").is_checked()
    visible = v.inner_text()  # innerText leaves out what is not displayed
    assert not any(f in visible for f in ("Assassination", "Atomics", "Robbery", "Sabotage", "Sneak Attack"))
    page.locator("#omni").check()
    assert page.locator(".omnibanner").is_visible()
    dup = step.locator('[data-region="Arrakeen"] .tok.alert')
    assert "Assassination" in dup.inner_text() and dup.locator(".hid").inner_text().lower() == "hidden"
    assert "Assassination" in step.locator(".words").inner_text()
    secrets = step.locator(".tokens .sec").all_inner_texts()  # each marked hidden; all six faces named
    assert all(t.strip().lower().startswith("hidden") for t in secrets)
    assert all(f in " ".join(secrets) for f in ("Assassination", "Atomics", "Extortion", "Robbery", "Sabotage",
                                                 "Sneak Attack"))
    _shot(page, v, tmp_path, "report-omniscient.png")
    page.locator("#omni").uncheck()
    assert "Assassination" not in v.inner_text()
    assert errors == []


def test_a_leak_pair_side_by_side(browser, leaky, tmp_path):
    page, errors = _open(browser, leaky)
    v = page.locator("#leak-0")
    v.locator(".last").click()
    lanes = v.locator("li.step.on .lane")
    assert lanes.count() == 2
    assert [lanes.nth(i).locator(".lt").inner_text() for i in range(2)] == ["game A", "game B"]
    # Every public step is the same in both games; the log the rivals see is not.
    words = [lanes.nth(i).locator(".words").inner_text() for i in range(2)]
    assert words[0] == words[1] and "Moritani declines: the #1 token stays hidden in Arrakeen" in words[0]
    logs = [lanes.nth(i).locator(".dif", has_text="engine log") for i in range(2)]
    assert [x.count() for x in logs] == [1, 1]
    assert "Assassination" in logs[0].inner_text() and "Atomics" in logs[1].inner_text()
    _shot(page, page.locator("#leaks"), tmp_path, "report-leak-pair.png", 1100)
    page.locator("#omni").check()  # now the faces behind #1 differ, marked in both games
    assert [lanes.nth(i).locator('[data-region="Arrakeen"] .sec.dif').inner_text().split()[-1]
            for i in range(2)] == ["Assassination", "Atomics"]
    assert errors == []


def test_compare_per_switch_table_comes_first_and_links_to_each_game(tmp_path):
    bounds = "bounds:\n  strongholds: [Arrakeen]\n  ambassador: Arrakeen\n  faces: [Extortion, Robbery]\n"
    (tmp_path / "a.yaml").write_text("name: a\n" + bounds)
    (tmp_path / "b.yaml").write_text("name: b\ninterpretation:\n  A4: after-reply\n  A12: allow-overflow\n" + bounds)
    r = run("compare", tmp_path / "a.yaml", tmp_path / "b.yaml", "--per-switch", "--html", tmp_path / "cmp.html")
    assert r.exit_code == 12, r.output
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert page.index('id="per-switch"') < page.index('id="verdicts"')
    table = page[page.index('id="per-switch"'):page.index('id="verdicts"')]
    # A4 (a step game, 10 steps) links to its game; A12 (no gift can overflow here) says what backs "same".
    assert '<a href="#sw-karama-eome-timing">steps game, 10 steps</a>' in table
    assert "no game within the bounds tells them apart: identical labelled transition systems" in table
    steps = public_steps(page)
    assert ("sw-karama-eome-timing", 10) in steps and ("sw-sabotage-gift-overflow", 1) not in steps
    # The game is drawn under A beside its replay under B, which refuses step 10.
    last = steps[("sw-karama-eome-timing", 10)]
    assert "refuses step 10" in last


def test_hostile_text_is_shown_as_escapes_in_the_browser(browser, hostile):
    """In Chromium: no dialog opens, no element comes from the proposal's text, and the name reads with
    its override shown as `\\u202e`, not obeyed."""
    for kind in ("check", "sweep"):
        page, errors = _open(browser, hostile[kind])
        dialogs: list = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        text = page.locator("body").inner_text()
        assert not UNSAFE.search(text) and "safe\\u202eexe.lmth <script>alert(1)</script>" in text
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        assert page.evaluate("document.querySelectorAll('img').length") == 0
        assert dialogs == [] and errors == []
        page.close()
