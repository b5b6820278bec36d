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
# One turn of the default bounds (`explore --turns 1`; tests/test_promela.py's two-strongholds-1-turn). Issue 33
# (was 7,941 / 11,272): ally-entry ship-visitors grows it, the spent Ambassador shrinks it (7,937 under refused).
ONE_TURN_STATES = 10_549
ONE_TURN_TRANSITIONS = 15_076
# tests/conftest.py SMALL: one stronghold, the Ambassador in it, one turn.
SMALL_STATES = 3_550
TREACHERY_ONLINE_STATES = 577_430

# The module profiles, complete search: (profile, reading) -> states; the reading "" is the profile's own
# interpretation, otherwise the switch choices the test applies (on the profile's bounds). Issue 33: every figure
# that moved is the old one exactly under ally-entry refused plus the seeded defect ambassador-never-spent (and, for
# treachery-online, accompany-limits none and nexus-card-on-alliance kept); was three-turns 119,542; finite-deck
# 155,952 / 155,810 / 238,747; grumman 181,225 / 195,088 / 250,963 / 136,136; grumman-occupied 147,311 / 7,028;
# revival 46,677 / 24,051; moritani-setup 223,327 / 452,566. Grumman has no Ambassador: ally-entry alone.
PROFILE_STATES = {
    ("three-turns", ""): 276_101,
    ("assassinate-leaders", ""): 211_477,
    ("finite-deck", "engine"): 315_862,
    ("finite-deck", "robbery-empty-deck=nothing"): 315_780,
    ("finite-deck", "treachery-online"): 381_176,
    ("grumman", "engine"): 410_531,
    ("grumman", "grumman-removal=to-supply"): 441_948,
    ("grumman", "grumman-removal=out-of-game"): 568_213,
    ("grumman", "grumman-addition=mentat-placement"): 300_027,
    ("grumman-occupied", "homeworld-occupation=offer-only"): 359_973,
    ("grumman-occupied", "homeworld-occupation=trigger-and-offer"): 15_498,
    ("ambassador-relocation", "entry-causes=every-arrival"): 86_434,
    ("ambassador-relocation", "entry-causes=shipment-and-movement"): 80_351,
    ("revival", "entry-causes=every-arrival"): 90_103,
    ("revival", "entry-causes=shipment-and-movement"): 54_846,
    ("moritani-setup", "setup-destination=stronghold"): 420_534,
    ("moritani-setup", "setup-destination=territory"): 904_254,
    ("worm-rides", "entry-causes=every-arrival"): 166_566,
    ("worm-rides", "entry-causes=shipment-and-movement"): 128_368,
    ("worm-rides-nexus", ""): 313_135,
}
