"""Assemble the Moritani Terror GameModel from bounds, an interpretation and seeded defects.

>>> m = build_model()
>>> m.name, len(m.init)
('moritani-terror', 1)
"""
from __future__ import annotations

from model.expr import Const
from model.game import GameModel
from model.moritani import arrivals, assassinate, board, effects, faults, mentat, properties, terror
from model.moritani.config import Bounds, Interpretation
from model.moritani.context import Ctx
from model.moritani.defects import check_defects
from model.moritani.narrate import narrate
from model.moritani.lemmas import strengthening
from model.moritani.state import OUTCOME_FIELDS, OUTCOME_STAGES, initial, schema
from model.moritani.symmetry import declared


def build_model(bounds: Bounds | None = None, interpretation: Interpretation | None = None,
                defects=(), pids: tuple | None = None, unbounded: bool = False) -> GameModel:
    """The bounded Moritani Terror model; `pids` permutes the initial public IDs (hidden faces).

    `unbounded=True` drops the turn bound (turns cycle through the storm seats and the public
    ID counter grows without limit): the model the Z3 proofs use to cover games of any length.
    """
    c = Ctx(bounds or Bounds(), interpretation or Interpretation(), check_defects(defects), unbounded)
    sch = schema(c)
    s0 = initial(c, sch, pids)
    n = len(c.bounds.factions)
    totals = {
        "spice": sum(s0[sch.slot("spice", (f,))] for f in range(n)) + s0[sch.slot("bank")],
        "forces": [s0[sch.slot("reserves", (f,))] + s0[sch.slot("tanks", (f,))]
                   + sum(s0[sch.slot("forces", (f, l))] for l in range(len(c.L.labels))) for f in range(n)],
    }
    rules = (mentat.rules(c) + arrivals.rules(c) + terror.rules(c) + effects.rules(c) + faults.rules(c)
             + assassinate.rules(c))
    props = properties.invariants(c, totals) + properties.witnesses(c)
    model = GameModel(
        name="moritani-terror", schema=sch, init=(s0,), rules=tuple(rules), properties=tuple(props),
        terminal=c.stage_is("game_over"), dispatch="stage", narrate=narrate,
        info={"ctx": c, "bounds": c.bounds, "interpretation": c.interp, "defects": c.defects,
              "unbounded": unbounded, "symmetry": declared(c), "outcome": (OUTCOME_FIELDS, OUTCOME_STAGES),
              "unbounded_slots": frozenset(i for i, n in enumerate(sch.slot_names)
                                           if unbounded and n.split("[")[0] in ("pid", "next_pid"))},
    )
    # How a report draws a state and a step (model/moritani/board.py; checks/formats/html.py reads them).
    model.info["board"], model.info["board_step"] = board.board, board.step
    # The stage-consistency lemmas the Z3 inductions may conjoin (each is proved with them).
    model.info["strengthening"] = tuple(strengthening(model))
    return model

