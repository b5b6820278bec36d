"""The Moritani model's pending reactions, as the `Reactions` declaration the ambiguity detector reads.

Pending reactions wait at a hub stage for the scheduler: the arrival reactions at `react` (Terror,
the BG accompanying advisor, the Ecaz Ambassador; A1, A2, A25) and the Mentat Pause events at
`mentat_open` (the placement, the Extortion collection and, with the Assassinate Leaders module,
its Traitor replacement draw; A5, A6). These tables sit next to the rules they name
(`arrivals.py`, `mentat.py`, `assassinate.py`); `checks/analyses/ambiguity.py` and
`commute_z3.py` read them through `model.reactions` and know no game.

>>> from model.moritani.build import build_model
>>> r = build_model().reactions
>>> r.pair_id("advisor", "terror"), r.settles("advisor", "terror")
('terror~bg-advisor', ('terror-vs-arrival-reactions', ('A1', 'A25')))
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from model.moritani.config import (AMBASSADOR_VS_TERROR, ASSASSINATE_MENTAT_ORDER, EXTORTION_MENTAT_ORDER,
                                   TERROR_VS_ARRIVAL_REACTIONS, Interpretation)

NAMES = {"advisor": "bg-advisor", "ambassador": "ecaz-ambassador", "terror": "terror",
         "placement": "mentat-placement", "extortion": "extortion-collection", "draw": "traitor-replacement"}
SCHEDULER = {"resolve_advisor": "advisor", "resolve_ambassador": "ambassador",
             "open_terror": "terror", "lapse_terror": "terror",
             "begin_placement": "placement", "begin_extortion": "extortion", "begin_draw": "draw"}
# The hub stage where each group of reactions waits for the scheduler.
# The Assassinate Leaders replacement draw ("draw") exists only with that module on (A6).
HUBS = {"react": ("terror", "advisor", "ambassador"), "mentat_open": ("placement", "extortion", "draw")}
# The switch that settles each pair, and the catalogue IDs it concerns.
SETTLES = {frozenset(("advisor", "terror")): (TERROR_VS_ARRIVAL_REACTIONS, ("A1", "A25")),
           frozenset(("ambassador", "terror")): (AMBASSADOR_VS_TERROR, ("A2",)),
           frozenset(("advisor", "ambassador")): (TERROR_VS_ARRIVAL_REACTIONS, ("A1", "A2")),
           frozenset(("placement", "extortion")): (EXTORTION_MENTAT_ORDER, ("A5", "A6")),
           frozenset(("draw", "placement")): (ASSASSINATE_MENTAT_ORDER, ("A6", "R43")),
           frozenset(("draw", "extortion")): (ASSASSINATE_MENTAT_ORDER, ("A6", "R43"))}
ORDER = ("terror", "advisor", "ambassador", "placement", "extortion", "draw")  # fixes how a pair id is spelled
# Each reaction's own rules (scheduler step first): only these fire inside its macro step (Z3 commute proof).
MACRO_RULES = {
    "advisor": ("resolve_advisor", "accompany", "decline_advisor"),
    "ambassador": ("resolve_ambassador", "ambassador_effect"),
    "terror": ("open_terror", "lapse_terror"),
    "placement": ("begin_placement",),
    "extortion": ("begin_extortion",),
    "draw": ("begin_draw", "draw_replacement", "retire_no_draw"),
}
# Rules whose firing means a reaction lapsed (a disabling event).
LAPSES = {"lapse_terror": "terror lapses"}


def printed_rules(interp: Interpretation, module: bool = False) -> Interpretation:
    """The interpretation with every reaction order left open (A6 too with the module on)."""
    return interp.with_choices(TERROR_VS_ARRIVAL_REACTIONS.UNORDERED, AMBASSADOR_VS_TERROR.UNORDERED,
                               EXTORTION_MENTAT_ORDER.UNORDERED, *([ASSASSINATE_MENTAT_ORDER.UNORDERED] if module else []))


class MoritaniReactions:
    """Hubs, pending counts and the events that tell two orders apart, for one model."""

    order = ORDER
    names = NAMES
    scheduler = SCHEDULER
    macro_rules = MACRO_RULES
    lapses = LAPSES

    def __init__(self, model):
        c = model.vocabulary
        sch = model.schema
        self.sl = {n: sch.slot(n) for n in ("stage", "pend_advisor", "pend_ambassador", "pend_terror",
                                            "amb_payer", "entry2", "placement_used", "ext_reserved")}
        if c.module:
            self.sl["tr_pending"] = sch.slot("tr_pending")
        self.spice = [sch.slot("spice", (f,)) for f in range(len(c.bounds.factions))]
        st = c.Stage.labels
        self.react, self.advisor_stage, self.amb_stage = (st.index(x) for x in ("react", "advisor", "ambassador"))
        self.hubs = {st.index(h): rs for h, rs in HUBS.items()}
        self.hub_of = {r: st.index(h) for h, rs in HUBS.items() for r in rs}

    def pending(self, s: tuple, r: str) -> int:
        """How many times reaction r is pending in s (0 when settled)."""
        if r == "placement":
            return int(not s[self.sl["placement_used"]])
        if r == "extortion":
            return int(s[self.sl["ext_reserved"]])
        if r == "draw":  # a revealed Traitor card waits for its Mentat replacement
            return int(s[self.sl["tr_pending"]]) if "tr_pending" in self.sl else 0
        return int(s[self.sl["pend_" + r]])

    def group(self, hub: int, pair: tuple) -> tuple:
        """The reactions whose pending count a branch of `pair` watches (a cascade re-arms one)."""
        return HUBS["react"] if hub == self.react else pair

    def settled(self, s: tuple, hub: int, pair: tuple) -> bool:
        """Back at the hub with neither reaction of the pair pending (and, at `react`, no queued
        advisor entry waiting behind them: it is part of the same arrival, H36)."""
        if s[self.sl["stage"]] != hub or any(self.pending(s, r) for r in pair):
            return False
        return not (hub == self.react and s[self.sl["entry2"]]
                    and not any(self.pending(s, r) for r in self.group(hub, pair)))

    def disabled(self, s: tuple, enabled_rules: set) -> list:
        """Events in s where a reaction cannot take effect (an advisor with no way to accompany,
        an Ambassador whose payer has no spice left)."""
        out = []
        stage = s[self.sl["stage"]]
        if stage == self.advisor_stage and "accompany" not in enabled_rules:
            out.append("advisor cannot accompany")
        if stage == self.amb_stage and s[self.spice[s[self.sl["amb_payer"]]]] == 0:
            out.append("ambassador payer has no spice")
        return out

    def pair_id(self, a: str, b: str) -> str:
        x, y = sorted((a, b), key=ORDER.index)
        return f"{NAMES[x]}~{NAMES[y]}"

    def pair_of(self, pid: str) -> tuple:
        back = {v: k for k, v in NAMES.items()}
        return tuple(back[x] for x in pid.split("~"))

    def settles(self, a: str, b: str) -> tuple:
        """(the key of the switch that settles the pair, the catalogue IDs it concerns)."""
        sw, ids = SETTLES[frozenset((a, b))]
        return sw.switch.key, ids


if TYPE_CHECKING:  # mypy checks that the class implements the declaration the ambiguity detector reads
    from model.declarations import Reactions
    _implements: type[Reactions] = MoritaniReactions
