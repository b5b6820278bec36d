"""Assemble the Moritani Terror GameModel from bounds, an interpretation and seeded defects.

>>> m = build_model()
>>> m.name, len(m.init)
('moritani-terror', 1)
"""
from __future__ import annotations

from model.game import GameModel
from model.moritani import (arrivals, assassinate, effects, faults, grumman, intrusion, mentat, nexus, setup,
                             permissions, properties, separation, terror)
from model.moritani.config import Bounds, Interpretation
from model.moritani.context import Ctx
from model.moritani.defects import check_defects
from model.moritani.monitors import monitors as history
from model.moritani.narrate import narrate
from model.moritani.lemmas import hints, strengthening
from model.moritani.state import OUTCOME_FIELDS, OUTCOME_STAGES, initial, schema
from model.moritani.symmetry import declared
from model.moritani.secrets import FaceSecrets
from model.moritani.board import MoritaniBoard
from model.moritani.reactions import MoritaniReactions
from model.declarations import Outcome, Provenance


class BuiltModels:
    """The models this process built last, by what they were built from.

    NOTE(model-memo): a GameModel is a value (frozen; its declarations are written once, inside the
    build), and the build is deterministic, so handing the same model to two callers is the same as
    building it twice. One check builds its proposal's model several times (the search, the replay of
    its kept scenarios, a seeded defect's trace saved and replayed), at a third of a second to two
    seconds each. Models built with `edit_rules` (mutants: a function, not a value) are not kept.

    >>> memo = BuiltModels(size=1)
    >>> memo.get(("k",), lambda: "a"), memo.get(("k",), lambda: "b"), memo.get(("j",), lambda: "c")
    ('a', 'a', 'c')
    """

    def __init__(self, size: int = 16):
        self.size = size
        self.models: dict = {}

    def get(self, key: tuple, build):
        try:
            hit = self.models.pop(key, None)
        except TypeError:  # an input that is not a value (unhashable): build it afresh
            return build()
        if hit is None:
            hit = build()
            while len(self.models) >= self.size:
                self.models.pop(next(iter(self.models)))
        self.models[key] = hit  # most recent last
        return hit


BUILT = BuiltModels()


def build_model(bounds: Bounds | None = None, interpretation: Interpretation | None = None,
                defects=(), pids: tuple | None = None, unbounded: bool = False, edit_rules=None) -> GameModel:
    """The bounded Moritani Terror model; `pids` permutes the initial public IDs (hidden faces).

    `unbounded=True` drops the turn bound (turns cycle through the storm seats and the public
    ID counter grows without limit): the model the Z3 proofs use to cover games of any length.
    `edit_rules(rules) -> rules` changes the rules before the model is assembled, so that every
    declaration is made over the changed rules (`rulecheck mutate` builds its mutants this way).
    """
    if edit_rules is not None:
        return _build(bounds, interpretation, defects, pids, unbounded, edit_rules)
    # By every switch's choice: a scenario file spells out the defaults a proposal leaves unsaid (the model's
    # provenance may then be either spelling; what is written from it reads the choices, never the spelling).
    choices = tuple((interpretation or Interpretation()).as_dict().items())
    key = (bounds or Bounds(), choices, tuple(defects), tuple(pids) if pids else None, bool(unbounded))
    return BUILT.get(key, lambda: _build(bounds, interpretation, defects, pids, unbounded, None))


def _build(bounds, interpretation, defects, pids, unbounded, edit_rules) -> GameModel:
    bounds = bounds or Bounds()
    c = Ctx(bounds, interpretation or Interpretation(), check_defects(defects, bounds), unbounded)
    sch = schema(c)
    s0 = initial(c, sch, pids)
    n = len(c.bounds.factions)
    totals = {
        "spice": sum(s0[sch.slot("spice", (f,))] for f in range(n)) + s0[sch.slot("bank")],
        "forces": [s0[sch.slot("reserves", (f,))] + s0[sch.slot("tanks", (f,))]
                   + sum(s0[sch.slot("forces", (f, l))] for l in range(len(c.L.labels))) for f in range(n)],
    }
    rules = (mentat.rules(c) + arrivals.rules(c) + terror.rules(c) + effects.rules(c) + faults.rules(c)
             + assassinate.rules(c) + separation.rules(c) + intrusion.rules(c) + nexus.rules(c)
             + grumman.collection_rules(c, mentat.first_mentat_stage(c)) + setup.rules(c, mentat.first_mentat_stage(c)))
    rules = permissions.restrict(c, list(rules))  # the seeded over-restriction defects, if any
    if edit_rules is not None:
        rules = list(edit_rules(list(rules)))
    props = properties.invariants(c, totals) + permissions.permissions(c) + properties.witnesses(c)
    unbounded_slots = frozenset(i for i, n in enumerate(sch.slot_names)
                                if unbounded and n.split("[")[0] in ("pid", "next_pid"))
    fields_, stages = OUTCOME_FIELDS, OUTCOME_STAGES
    outcome = Outcome(tuple(i for i, n in enumerate(sch.slot_names) if n.split("[")[0] in fields_),
                      sch.slot("stage"), frozenset(c.st(st) for st in stages))
    options = (("pids", tuple(pids)),) if pids else ()
    provenance = Provenance("moritani-terror", c.bounds, c.interp, c.defects, unbounded, options, edit_rules,
                            rebuild=sibling)
    model = GameModel(
        name="moritani-terror", schema=sch, init=(s0,), rules=tuple(rules), properties=tuple(props),
        terminal=c.stage_is("game_over"), dispatch="stage", monitors=tuple(history(c) + separation.monitor(c) + intrusion.monitor(c)
                                                           + nexus.monitors(c) + grumman.monitors(c)),
        narrate=narrate,
        provenance=provenance, symmetry=declared(c), unbounded_slots=unbounded_slots, outcome=outcome,
        vocabulary=c,
    )
    # The stage-consistency lemmas the Z3 inductions may conjoin (each is proved with them), the
    # secrets the leak checks exchange, and the reaction hubs of the ambiguity detector.
    return model.declare(lemmas=tuple(strengthening(model)), hints=tuple(hints(model)), secrets=FaceSecrets(model),
                         reactions=MoritaniReactions(model), board=MoritaniBoard(model))


def sibling(p: Provenance, **changes) -> GameModel:
    """The model built from provenance `p` with some of its parts replaced."""
    opts = dict(changes.pop("options", p.options))
    return build_model(changes.get("bounds", p.bounds), changes.get("interpretation", p.interpretation),
                       tuple(changes.get("defects", p.defects)), pids=opts.get("pids"),
                       unbounded=changes.get("unbounded", p.unbounded),
                       edit_rules=changes.get("edit_rules", p.edit_rules))
