"""Symmetry reduction (checks/engines/symmetry.py): verified before use, refused when the bounds tell
strongholds apart, same verdicts and shortest trace lengths as the plain search, orbit counts pinned."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from checks.cli import main
from checks.config import CheckConfig
from checks.analyses.verdicts import run_explicit
from checks.engines.symmetry import verify
from model.domains import Enum, IntRange
from model.errors import ModelError
from model.expr import Const, Param, Var
from model.game import GameModel
from model.moritani.build import build_model
from model.moritani.config import Bounds
from model.properties import always
from model.rule import P, Rule
from model.schema import Field, Schema
from model.symmetry import ValueSymmetry

# Two strongholds, no Ecaz Ambassador (the only stronghold-specific rule of the default bounds).
TWO = Bounds(ambassador=None, turns=1)
THREE = Bounds(ambassador=None, turns=1, strongholds=("Arrakeen", "Carthag", "Sietch Tabr"))


def verdicts(model, symmetry):
    results, ex = run_explicit(model, CheckConfig(symmetry=symmetry))
    return {r.id: (r.verdict, r.depth) for r in results}, ex


@pytest.mark.heavy  # several seconds: the default run, not the edit-test loop (-m fast)
def test_default_bounds_are_refused_because_of_the_ambassador():
    """The Ecaz Ambassador sits in Carthag only (R-catalogue A2): Z3 names whichever rule it finds first
    that tells the strongholds apart through the Ambassador (a slot of it, pend_ambassador or the
    ambassador_due monitor an arrival into its stronghold sets, or its effect's payment), and the same bounds
    without the Ambassador are accepted."""
    with pytest.raises(ModelError, match=r"refused.*\b(pend_ambassador|ambassador_due|ambassador_effect)\b"):
        verify(build_model())
    verify(build_model(Bounds(ambassador=None)))


def test_cli_refuses_with_exit_3_and_the_reason():
    r = CliRunner().invoke(main, ["explore", "--symmetry"])
    assert r.exit_code == 3, r.output
    assert "symmetry 'strongholds' refused" in r.output and "Carthag" in r.output


@pytest.mark.heavy
@pytest.mark.parametrize("bounds, plain, orbits", [(TWO, 10_277, 5_150), (THREE, 20_948, 5_246)])
def test_orbit_counts_pinned_and_verdicts_equal(bounds, plain, orbits):
    model = build_model(bounds)
    v_plain, ex_plain = verdicts(model, False)
    v_sym, ex_sym = verdicts(model, True)
    assert (len(ex_plain.states), len(ex_sym.states)) == (plain, orbits)
    assert v_plain == v_sym


@pytest.mark.parametrize("defect, check", [("eome-duplicates-token", "token-conservation"),
                                           ("ids-not-rotated", "public-ids-fresh")])
@pytest.mark.heavy
def test_seeded_bug_found_with_the_same_shortest_length(defect, check):
    """H21/H30 and H4: the reduced search finds the seeded violation in 9 steps, like the plain one,
    and the trace mapped back to a concrete game replays (run_explicit replays every trace)."""
    model = build_model(TWO, defects=(defect,))
    v_plain, _ = verdicts(model, False)
    v_sym, ex = verdicts(model, True)
    assert v_plain[check] == v_sym[check] == ("violated", 9)
    t = ex.trace_to(ex.violations[check])
    assert t.replay(model) == [] and t.depth == 9


# A toy model with two interchangeable places: what breaks the symmetry is refused.
PLACE = Enum("Place", ("A", "B", "nowhere"))


def toy(asymmetric_rule=False, asymmetric_invariant=False) -> GameModel:
    sch = Schema((Field("n", IntRange(0, 3), (PLACE,)), Field("last", PLACE)))
    cap = 3
    guard = Var("n", (Param("p"),)) < cap
    if asymmetric_rule:
        guard = guard & Param("p").ne(1) | Param("p").eq(1) & (Var("n", (Param("p"),)) < 1)
    rules = (Rule("put", (P("p", Enum("Place", ("A", "B"))),), guard,
                  {("n", (Param("p"),)): Var("n", (Param("p"),)) + 1, ("last", ()): Param("p")}),)
    inv = (Var("n", (Const(0),)) + Var("n", (Const(1),)) <= 4) if not asymmetric_invariant else (Var("n", (Const(0),)) <= 2)
    init = (sch.make({"n": {0: 0, 1: 0, 2: 0}, "last": 2}),)
    return GameModel("toy", sch, init, rules, (always("total", inv, ("T1",)),), terminal=Var("n", (Const(2),)).eq(9),
                     symmetry=ValueSymmetry("places", ("Place",), (0, 1), ("A", "B")))


def test_toy_symmetric_model_violation_has_the_same_length():
    model = toy()
    v_plain, ex_plain = verdicts(model, False)
    v_sym, ex_sym = verdicts(model, True)
    assert v_plain["total"] == v_sym["total"] == ("violated", 5)
    assert (len(ex_plain.states), len(ex_sym.states)) == (23, 12)


@pytest.mark.parametrize("kw, what", [({"asymmetric_rule": True}, "a rule"),
                                      ({"asymmetric_invariant": True}, "invariant 'total'")])
def test_toy_asymmetry_is_refused(kw, what):
    with pytest.raises(ModelError, match=f"refused: {what} does not commute"):
        verify(toy(**kw))


@pytest.mark.heavy
def test_sorting_canon_is_constant_on_orbits_and_agrees_with_the_group_minimum():
    """The fast canon (strongholds sorted by signature) gives one representative per orbit: the same
    for every permuted copy, and as many classes as the least-tuple canon over all 6 permutations."""
    from checks.engines.explicit import Explorer
    from checks.engines.symmetry import _canoniser
    model = build_model(THREE)
    red = verify(model)
    assert getattr(red.canon, "reads", None)  # the sorting canon applies to the stronghold symmetry
    states = Explorer(model).run().states[::7]
    for s in states:
        assert {red.canon(fn(s)) for fn in red.state_maps} == {red.canon(s)}
    by_min = _canoniser(red.state_maps)
    assert len({red.canon(s) for s in states}) == len({by_min(s) for s in states})


def test_observations_are_verified_and_an_asymmetric_view_is_refused(monkeypatch):
    # For a leak check on orbits: what a rival cannot tell apart must stay so under the symmetry.
    from checks.engines.symmetry import check_observations
    from model.expr import Const, Var
    from model.observation import Value
    small = Bounds(ambassador=None, turns=1, faces=("Extortion", "Robbery"))
    assert "preserved" in check_observations(build_model(small))
    m = build_model(small)
    arrakeen = m.vocabulary.L.labels.index("Arrakeen")
    real = m.secrets.spec
    # A buggy view that shows Atreides' forces in Arrakeen only (not in Carthag): not symmetric.
    monkeypatch.setattr(m.secrets, "spec", lambda f: real(f) + (
        Value("debug view", (Var("forces", (Const(1), Const(arrakeen))),)),))
    with pytest.raises(ModelError, match="does not preserve what Atreides observes in 'debug view' \\(two states it cannot tell apart"):
        check_observations(m)
