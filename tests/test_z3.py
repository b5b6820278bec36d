"""The Z3 backend: agreement with the explicit semantics, BMC on every seeded defect, proofs."""
from __future__ import annotations

import dataclasses
from collections import defaultdict

import pytest

from checks.engines.agreement import layer_agreement, successor_agreement
from checks.engines.bmc import get_bmc
from checks.config import CheckConfig
from checks.engines.explicit import Explorer
from checks.engines.induction import classify_cti, k_induction, spacer
from checks.analyses.prove import prove
from model.moritani.build import build_model
from model.moritani.config import Bounds, Interpretation
from model.moritani import GAME
from model.moritani.defects import DEFECTS
from model.moritani.profiles import PROFILES
from tests.conftest import SMALL
from tests.toys import counter_model

AGREEMENT_CONFIGS = {
    "small-default": (SMALL, Interpretation()),
    "small-terror-first-after-reply": (SMALL, Interpretation.of(terror_vs_arrival_reactions="terror-first",
                                                                karama_eome_timing="after-reply")),
    "small-extortion-first-retry-unordered": (
        dataclasses.replace(SMALL, strongholds=("Arrakeen", "Carthag"), ambassador=None, forces=(("Atreides", 1, 0),)),
        Interpretation.of(extortion_mentat_order="extortion-first", karama_placement="retry",
                          terror_vs_arrival_reactions="unordered")),
}
# The Nexus card module (stacks by Cunning, Betrayal while a decision is pending): three factions, two faces.
_NEXUS = Bounds(factions=("Moritani", "Atreides", "Bene Gesserit"), strongholds=("Arrakeen",), ambassador=None,
                alliances=(), faces=("Atomics", "Robbery"))
AGREEMENT_CONFIGS |= {
    "small-nexus-cunning-all-in-turn": (dataclasses.replace(_NEXUS, nexus_card="Moritani"),
                                        Interpretation.of(stack_reveal="all-in-turn", cunning_reach="placement-and-move")),
    "small-nexus-betrayal-any-time": (dataclasses.replace(_NEXUS, nexus_card="Atreides"),
                                      Interpretation.of(betrayal_timing="any-time")),
}
# The Grumman module: Moritani on the high side until a Sneak Attack; groups of 1 to 3; both removal custodies and
# the placement-time addition (with all-in-turn stacks, where the low-side threshold is reread mid-entry).
_GRUMMAN = Bounds(factions=("Moritani", "Atreides"), strongholds=("Arrakeen",), ambassador=None, alliances=(),
                  faces=("Sneak Attack", "Robbery"), grumman=True, moritani_forces=8, forces=(("Atreides", 3, 2),),
                  spice=4, karama=())
AGREEMENT_CONFIGS |= {
    "small-grumman-to-supply": (_GRUMMAN, Interpretation.of(grumman_removal="to-supply")),
    "small-grumman-placement-out-of-game": (_GRUMMAN, Interpretation.of(
        grumman_addition="mentat-placement", grumman_removal="out-of-game", stack_reveal="all-in-turn")),
}
# Worm rides: Fremen with two desert forces rides before Shipment & Movement, under both A24 choices.
_WORMS = Bounds(factions=("Moritani", "Atreides", "Fremen"), strongholds=("Arrakeen",), ambassador=None, alliances=(),
                faces=("Atomics", "Robbery"), worm_rides=True, forces=(("Atreides", 1, 0), ("Fremen", 0, 2)), karama=())
AGREEMENT_CONFIGS |= {
    "small-worm-rides": (_WORMS, Interpretation()),
    "small-worm-rides-shipment-and-movement": (_WORMS, Interpretation.of(entry_causes="shipment-and-movement")),
}
# A finite deck of one card with the bidding card: the deck runs out, the discard pile is reshuffled, and a Robbery
# may find nothing (A16), under both choices.
_DECK = Bounds(factions=("Moritani", "Atreides"), strongholds=("Arrakeen",), ambassador=None, alliances=(),
               faces=("Robbery", "Sabotage"), deck=1, bidding=True, karama=(), forces=(("Atreides", 1, 1),))
AGREEMENT_CONFIGS |= {
    "small-finite-deck": (_DECK, Interpretation()),
    "small-finite-deck-nothing": (_DECK, Interpretation.of(robbery_empty_deck="nothing")),
}
# Moritani's setup beside a garrison: under `territory` the open desert too (R1, A27).
_SETUP = dataclasses.replace(SMALL, setup_forces=1, moritani_forces=2, garrisons=(("Atreides", "Arrakeen", 1),),
                             strongholds=("Arrakeen", "Carthag"), ambassador=None, forces=(("Atreides", 1, 0),))
# Bene Gesserit on Moritani's Homeworld (R23), under both readings.
_OCCUPIED = dataclasses.replace(_GRUMMAN, factions=("Moritani", "Atreides", "Bene Gesserit"),
                                forces=(("Atreides", 3, 2), ("Bene Gesserit", 1, 0)), homeworld_occupier="Bene Gesserit")
AGREEMENT_CONFIGS |= {
    "small-homeworld-offer-only": (_OCCUPIED, Interpretation()),
    "small-homeworld-trigger-and-offer": (_OCCUPIED, Interpretation.of(homeworld_occupation="trigger-and-offer")),
}
# Revival onto the planet: Atreides revives its one force in the Tanks, under both A24 readings.
_REVIVAL = dataclasses.replace(SMALL, revival="Atreides", forces=(("Atreides", 2, 0),), ambassador=None,
                               factions=("Moritani", "Atreides"), alliances=(), karama=(), turns=2,
                               faces=("Atomics", "Robbery"))
AGREEMENT_CONFIGS |= {
    "small-revival": (_REVIVAL, Interpretation()),
    "small-revival-shipment-and-movement": (_REVIVAL, Interpretation.of(entry_causes="shipment-and-movement")),
}
# The Guild's cross-ship: out of Tuek's Sietch or the open desert, and back to reserves; the Aftermath ban both ways
# (A23, A24, R17).
_CROSS = Bounds(factions=("Moritani", "Guild"), strongholds=("Arrakeen", "Tuek's Sietch"), ambassador=None,
                alliances=(), karama=(), faces=("Atomics", "Robbery"), cross_ship=True, forces=(("Guild", 0, 1),),
                garrisons=(("Guild", "Tuek's Sietch", 1),))
AGREEMENT_CONFIGS |= {
    "small-cross-ship": (_CROSS, Interpretation()),
    "small-cross-ship-allowed": (_CROSS, Interpretation.of(cross_ship_into_aftermath="allowed")),
}
# Ambassador relocation: the Ambassador in Arrakeen moves Ecaz's desert force, an entry queued behind the arrival
# (A24, A2, H9), under both A24 readings.
_RELOCATION = Bounds(factions=("Moritani", "Atreides", "Ecaz"), strongholds=("Arrakeen", "Carthag"), ambassador="Arrakeen",
                     alliances=(), karama=(), faces=("Atomics", "Robbery"), ambassador_relocation=True,
                     forces=(("Atreides", 1, 0), ("Ecaz", 0, 1)))
AGREEMENT_CONFIGS |= {
    "small-relocation": (_RELOCATION, Interpretation()),
    "small-relocation-shipment-and-movement": (_RELOCATION, Interpretation.of(entry_causes="shipment-and-movement")),
}
AGREEMENT_CONFIGS |= {
    "small-setup-stronghold": (_SETUP, Interpretation()),
    "small-setup-territory": (_SETUP, Interpretation.of(setup_destination="territory")),
}


# The default run compares at most this many states per configuration, spread evenly over the reachable set (in
# discovery order, so every depth is represented); `-m slow` compares every seventh state of every configuration.
# 120 states cost about 4 s per configuration on 2 cores (250 cost 8 s: CI's 15-minute budget); 80 since the
# 2026-12-02 CI run (12:34 of tests; the 21 configurations were 120 s of it).
AGREEMENT_SAMPLE = 80


def _disagreements(name: str, cap: int | None) -> list:
    """Explicit and Z3 successors compared on every seventh reachable state of a configuration, or on at most
    `cap` states spread evenly over the reachable set."""
    m = build_model(*AGREEMENT_CONFIGS[name])
    ex = Explorer(m, CheckConfig()).run()
    assert ex.complete
    step = 7 if cap is None else max(7, -(-len(ex.states) // cap))
    return successor_agreement(m, ex.states[::step])


@pytest.mark.heavy
@pytest.mark.parametrize("name", AGREEMENT_CONFIGS)
def test_successors_agree_on_sampled_states(name):
    assert _disagreements(name, AGREEMENT_SAMPLE) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", AGREEMENT_CONFIGS)
def test_successors_agree_on_every_seventh_state(name):
    assert _disagreements(name, None) == []


@pytest.mark.slow
def test_successors_agree_on_every_small_state():
    m = build_model(SMALL)
    ex = Explorer(m, CheckConfig()).run()
    assert successor_agreement(m, ex.states) == []


@pytest.mark.heavy
def test_reachable_layers_agree():
    m = build_model(SMALL)
    ex = Explorer(m, CheckConfig()).run()
    layers = defaultdict(set)
    for s, d in zip(ex.states, ex.depth):
        layers[d].add(s)
    assert layer_agreement(m, layers, 5) == []


# BMC agreement for every defect: one whose depth makes it heavy (Defect.heavy: more than HEAVY_DEPTH, 6, steps to
# unroll) runs under `-m slow`; the default run keeps every shallower one (its bounded form).
@pytest.mark.heavy
@pytest.mark.parametrize("defect", [pytest.param(d, marks=pytest.mark.slow) if d.heavy else d
                                    # `domain` is the explicit engines' (docs/checking.md): the encoding assumes it
                                    for d in DEFECTS if d.target not in ("no-deadlock", "hidden-identity", "possibilistic",
                                                                         "domain")
                                    and "~" not in d.target
                                    and not d.target.startswith("witness-")],
                         ids=lambda d: d.id)
def test_bmc_catches_defect_at_the_explicit_depth(defect):
    m = GAME.build(GAME.with_defect(defect, PROFILES["default"]))
    r = get_bmc(m, [defect.target], defect.depth)[defect.target]
    assert r.verdict == "violated" and r.depth == defect.depth
    assert r.trace.replay(m) == []


def test_bmc_is_bounded_not_holds_when_nothing_is_found():
    r = get_bmc(build_model(SMALL), ["token-conservation"], 6)["token-conservation"]
    assert r.verdict == "bounded" and r.depth == 6


@pytest.mark.heavy
def test_spacer_proves_for_unbounded_games_and_refutes_defects():
    m = build_model(unbounded=True)
    assert spacer(m, "placement-once").verdict == "proved"
    assert spacer(m, "alliance-symmetry").verdict == "proved"
    broken = build_model(defects=("reload-reopens-placement",), unbounded=True)
    assert spacer(broken, "placement-once", rlimit=20_000_000).verdict != "proved"  # never proves a violation


def test_rlimit_exhaustion_is_unknown_not_proved():
    m = build_model(unbounded=True)
    r = spacer(m, "token-conservation", rlimit=200_000)
    assert r.verdict == "unknown" and "resource limit" in r.reason


@pytest.mark.heavy
def test_k_induction_failure_is_not_a_counterexample():
    m = build_model(unbounded=True)
    r = k_induction(m, "token-conservation", max_k=1)
    assert r.verdict == "unknown" and r.cti is not None
    explored = dict.fromkeys(Explorer(build_model(), CheckConfig()).run().states)
    assert "not reachable" in classify_cti(r.cti, explored)


def test_k_induction_proves_an_inductive_invariant():
    r = k_induction(counter_model(limit=3), "bounded", max_k=2)
    assert r.verdict == "proved" and r.k == 1


@pytest.mark.heavy
def test_prove_auto_falls_back_to_bounded_with_reason():
    m = build_model(unbounded=True)
    (r,) = prove(m, ["token-conservation"], "auto", depth=4, rlimit=1_000_000)
    assert r.verdict == "bounded" and r.engine == "bmc" and r.depth == 4 and "no unbounded proof" in r.detail


def test_agreement_reports_a_seeded_divergence(monkeypatch):
    """The agreement guard can fail: an encoder that gets one effect wrong (a payment of spice costs
    one less in Z3 than in the reference semantics) is reported, with the state and the action."""
    from checks.engines.agreement import successor_agreement
    from checks.engines.encode import Encoder
    from model.evaluate import successors
    from model.expr import Sub
    real = Encoder.translate

    def off_by_one(self, e, k, env=None):
        t = real(self, e, k, env)
        if isinstance(e, Sub) and getattr(e.a, "field", None) == "spice":
            return t + 1
        return t
    monkeypatch.setattr(Encoder, "translate", off_by_one)
    model = build_model(SMALL)
    ships = [s for s in Explorer(model, CheckConfig()).run().states
             if any(a.rule.name == "ship" for a, _ in successors(model, s))][:3]
    problems = successor_agreement(model, ships)
    assert len(problems) == 3 and all("Z3 only ['ship(f=Atreides" in p for p in problems), problems
