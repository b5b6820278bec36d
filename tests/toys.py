"""Toy models shared by several test modules: hand-written GameModels small enough to reason about by hand, and a
cut-down Moritani proposal. A toy used by one module only stays in that module.

>>> len(counter_model().rules), swap_model().name
(2, 'swap')
"""
from __future__ import annotations

import dataclasses

from model.domains import Bool, IntRange
from model.expr import Var
from model.game import GameModel
from model.moritani import GAME
from model.properties import always, sometimes
from model.rule import Rule
from model.schema import Field, Schema


def counter_model(limit: int = 3, broken: bool = False) -> GameModel:
    """x counts up to `limit`; `broken` lets it overshoot, which the invariant catches."""
    sch = Schema((Field("x", IntRange(0, limit + 1)), Field("done", Bool())))
    top = limit + 1 if broken else limit
    rules = (
        Rule("inc", (), Var("x") < top, {("x", ()): Var("x") + 1}, ("T1",)),
        Rule("finish", (), Var("x").eq(limit) & ~Var("done"), {("done", ()): True}, ("T2",), kind="system"),
    )
    props = (always("bounded", Var("x") <= limit, ("T1",)), sometimes("can-finish", fires=("finish",)))
    return GameModel("counter", sch, ((0, False),), rules, props, terminal=Var("done"))


def swap_model() -> GameModel:
    """x, y := y, x needs the pre-state on both sides (simultaneous effects, NOTE(frame))."""
    sch = Schema((Field("x", IntRange(0, 3)), Field("y", IntRange(0, 3))))
    rules = (Rule("swap", (), Var("x") < Var("y"), {("x", ()): Var("y"), ("y", ()): Var("x")}, ("T1",)),
             Rule("grow", (), Var("y") < 3, {("y", ()): Var("y") + 1}, ("T2",)))
    return GameModel("swap", sch, ((0, 0),), rules, (always("ordered", Var("x") <= 3, ("T1",)),),
                     terminal=Var("x").eq(3))


def tiny(interpretation=None, defects=(), faces=("Extortion", "Robbery")):
    """The default profile cut to one stronghold, three factions, no alliance or Karama, two turns: small enough
    for lemma inference and certificates (tests/test_infer.py, tests/test_certify.py)."""
    p = GAME.profiles["default"]
    b = dataclasses.replace(p.bounds, strongholds=("Arrakeen",), ambassador=None, turns=2, faces=faces,
                            factions=("Moritani", "Atreides", "Bene Gesserit"), alliances=(), karama=())
    return dataclasses.replace(p, bounds=b, interpretation=interpretation or p.interpretation, defects=defects)
