"""The lockstep search (checks/engines/lockstep.py) on toy models small enough to check by hand, and
`compare` on the kind of difference only the lockstep search can show: the same steps, the same set of
end-of-turn outcomes, but a different outcome after the same game."""
from __future__ import annotations

from checks.analyses.compare import compare_proposals
from checks.config import CheckConfig
from checks.engines.lockstep import lockstep
from checks.formats.compare_report import to_json, to_text
from model.declarations import Outcome
from model.domains import Enum, IntRange
from model.expr import Var
from model.game import GameModel
from model.moritani.profiles import Proposal
from model.rule import Rule
from model.schema import Field, Schema

STAGE = Enum("Stage", ("play", "end"))


def toy(x_after, extra_slot: bool = False, inits: int = 1) -> GameModel:
    """Up to two `inc` steps then `stop` ends the game; `x_after(n)` is x after the (n+1)-th inc. An
    `extra_slot` counts the steps without being observed (another state layout); `inits` initial states
    that differ only in it."""
    fields = [Field("stage", STAGE), Field("n", IntRange(0, 2)), Field("x", IntRange(0, 2))]
    if extra_slot:
        fields.append(Field("ticks", IntRange(0, 3)))
    play = Var("stage").eq(0)
    effects = {("n", ()): Var("n") + 1, ("x", ()): x_after(Var("n"))}
    if extra_slot:
        effects[("ticks", ())] = Var("ticks") + 1
    rules = (Rule("inc", (), play & (Var("n") < 2), effects),
             Rule("stop", (), play, {("stage", ()): 1}))
    init = tuple((0, 0, 0) + ((t,) if extra_slot else ()) for t in range(inits))
    m = GameModel("toy", Schema(tuple(fields)), init, rules, (), Var("stage").eq(1))
    sch = m.schema
    return m.declare(outcome=Outcome((sch.slot("x"),), sch.slot("stage"), frozenset({1})))


def ends(m):
    observe_slot = m.outcome.slots[0]
    return lambda s: s[observe_slot] if s[m.outcome.stage_slot] == 1 else None


COUNT = toy(lambda n: n + 1)        # x counts the incs: 0, 1, 2
REVERSED = toy(lambda n: 2 - n)     # x is 2 after one inc, 1 after two: the same set {0, 1, 2} at the end


def test_identical_bisimilar_and_a_budget_that_backs_nothing():
    r = lockstep(COUNT, COUNT, ends(COUNT), ends(COUNT))
    assert (r.verdict, r.pairs, r.transitions) == ("identical", 6, 5)
    # Another layout (an unobserved step counter): other states, the same steps and outcomes.
    other = toy(lambda n: n + 1, extra_slot=True)
    assert lockstep(COUNT, other, ends(COUNT), ends(other)).verdict == "bisimilar"
    cut = lockstep(COUNT, COUNT, ends(COUNT), ends(COUNT), CheckConfig(max_states=3))
    assert (cut.verdict, cut.same) == ("unknown", False) and "state budget 3 exhausted" in cut.reason
    two = toy(lambda n: n + 1, extra_slot=True, inits=2)
    assert lockstep(COUNT, two, ends(COUNT), ends(two)).verdict == "unknown"


def test_the_same_steps_with_another_outcome_and_a_step_refused():
    r = lockstep(COUNT, REVERSED, ends(COUNT), ends(REVERSED))
    assert (r.verdict, r.labels, r.observed, r.offered) == ("differ", ("inc", "stop"), (1, 2), None)
    # One inc at most: after the first, COUNT offers a second inc, `capped` refuses it.
    capped = COUNT.with_changes(rules=(Rule("inc", (), Var("stage").eq(0) & (Var("n") < 1), COUNT.rules[0].effects),
                                       COUNT.rules[1]))
    r = lockstep(COUNT, capped, ends(COUNT), ends(capped))
    assert (r.verdict, r.labels, r.offered) == ("differ", ("inc",), (("inc",), ()))


def test_compare_shows_the_same_game_ending_differently_under_both():
    # The end-of-turn outcome sets are equal ({0, 1, 2}) and there are no checks: only the lockstep search
    # tells the two apart, by one game replayed under both.
    models = {"count": COUNT, "reversed": REVERSED}
    c = compare_proposals(Proposal("count"), Proposal("reversed"), lambda p: models[p.name])
    assert set(c.a.outcomes) == set(c.b.outcomes)
    assert c.verdict == "differ"
    (d,) = c.differences
    assert (d.kind, d.direction, d.depth, d.values) == ("steps", "both", 2, {"x": 1})
    assert d.trace.labels == d.other.labels == ["inc", "stop"]
    assert not d.trace.replay(COUNT) and not d.other.replay(REVERSED)
    assert "the turn ends under both with different outcomes: x=1 under count, 2 under reversed" in d.what
    assert "but the steps differ (2 steps)" in to_text(c, 0)
    assert to_json(c, 0)["differences"][0]["other_actions"] == ["inc", "stop"]
