"""Proposals: a named interpretation with bounds; the embedded profiles.

>>> PROFILES["default"].interpretation.choice("A4")
'before-reply'
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model.moritani.config import Bounds, Interpretation


@dataclass(frozen=True)
class Proposal:
    name: str
    description: str = ""
    interpretation: Interpretation = field(default_factory=Interpretation)
    bounds: Bounds = field(default_factory=Bounds)
    source: str = "embedded"
    defects: tuple = ()  # seeded defects to build in (demonstrations and tests of the checker itself)

    def to_json(self) -> dict:
        out = {"name": self.name, "source": self.source,
               "interpretation": self.interpretation.as_dict(), "bounds": self.bounds.as_dict()}
        if self.defects:
            out["defects"] = list(self.defects)
        return out


PROFILES = {
    "default": Proposal(
        "default",
        "The Quintine/Dune engine's recorded choices (catalogue A#) on small embedded bounds"),
    "printed-rules": Proposal(
        "printed-rules",
        "Only what the printed rules fix: every order they leave open (A1, A2, A5) is explored",
        Interpretation.of(terror_vs_arrival_reactions="unordered", ambassador_vs_terror="unordered",
                          extortion_mentat_order="unordered")),
}
