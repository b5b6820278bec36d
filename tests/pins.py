"""Pinned whole-model figures: the reachable states (and transitions) of the embedded profiles and of the small
bounds, in one place. Tests import them from here; a changed count means a model's semantics changed: review the
change (and say which profiles' digests moved) before updating a figure.

>>> DEFAULT_STATES < THREE_TURNS_STATES
True
"""
from __future__ import annotations

# The default profile (two turns of the default bounds). Issue 33 (was 294,232 / 469,499; three turns 2,412,411 /
# 3,944,803; small 2,358; treachery-online 429,105): ally-entry ship-visitors, the Ecaz Ambassador spent once it
# reacts, cross-ship and relocation from the open desert when no storm is out.
DEFAULT_STATES = 470_605
DEFAULT_TRANSITIONS = 753_878
# Three turns of the default bounds: `check` and `explore` without options (issue 17).
THREE_TURNS_STATES = 3_923_241
THREE_TURNS_TRANSITIONS = 6_472_674
# One turn of the default bounds (`explore --turns 1`; tests/test_promela.py's two-strongholds-1-turn).
ONE_TURN_STATES = 7_941
ONE_TURN_TRANSITIONS = 11_272
# tests/conftest.py SMALL: one stronghold, the Ambassador in it, one turn.
SMALL_STATES = 3_550
TREACHERY_ONLINE_STATES = 577_430

# The module profiles, complete search: (profile, reading) -> states; the reading "" is the profile's own
# interpretation, otherwise the switch choices the test applies (on the profile's bounds).
PROFILE_STATES = {
    ("three-turns", ""): 119_542,
    ("assassinate-leaders", ""): 211_477,
    ("finite-deck", "engine"): 155_952,
    ("finite-deck", "robbery-empty-deck=nothing"): 155_810,
    ("finite-deck", "treachery-online"): 238_747,
    ("grumman", "engine"): 181_225,
    ("grumman", "grumman-removal=to-supply"): 195_088,
    ("grumman", "grumman-removal=out-of-game"): 250_963,
    ("grumman", "grumman-addition=mentat-placement"): 136_136,
    ("grumman-occupied", "homeworld-occupation=offer-only"): 147_311,
    ("grumman-occupied", "homeworld-occupation=trigger-and-offer"): 7_028,
    ("ambassador-relocation", "entry-causes=every-arrival"): 86_434,
    ("ambassador-relocation", "entry-causes=shipment-and-movement"): 80_351,
    ("revival", "entry-causes=every-arrival"): 46_677,
    ("revival", "entry-causes=shipment-and-movement"): 24_051,
    ("moritani-setup", "setup-destination=stronghold"): 223_327,
    ("moritani-setup", "setup-destination=territory"): 452_566,
    ("worm-rides", "entry-causes=every-arrival"): 166_566,
    ("worm-rides", "entry-causes=shipment-and-movement"): 128_368,
    ("worm-rides-nexus", ""): 313_135,
}
