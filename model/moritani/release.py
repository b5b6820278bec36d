"""What the possibilistic leak check accepts as a declared release of a hidden face (docs/noninterference.md).

The check (checks/analyses/possible.py) requires every public step available in a state s to be available in
σ(s), the same state with two hidden faces exchanged, unless the step reveals one of them. A game may declare
further releases: steps whose availability is allowed to differ between s and σ(s) because the rules (or an
interpretation of them) deliberately make it public. This model declares one, switched by `eome-gate-secrecy`:

- `face-independent` (the printed rules, the default): none. An offer available with one face and not with the
  other is a leak, the A21 engine gate included.
- `gate-declassified`: an Enemy of My Enemy offer that the A21 `block-offer` gate (`terror.offer_gate`, the
  rule's own gate expression) allows in exactly one of s, σ(s). Its difference releases "this token cannot be
  revealed against this entrant"; any other difference in the offer's availability is still a leak.

No rule reads the switch: the model, its digest and its state space are the same under both choices.

>>> from model.moritani.build import build_model
>>> m = build_model()
>>> offer = next(a for a in m.actions if a.rule.name.startswith("offer_alliance_"))
>>> released(m, offer, m.init[0], m.init[0]) is None
True
"""
from __future__ import annotations

from model.evaluate import eval_expr
from model.expr import Const
from model.moritani.config import EOME_GATE_SECRECY
from model.moritani.observe import face_family
from model.moritani.terror import offer_gate

OFFER = "offer_alliance"


def released(model, action, pre: tuple, twin: tuple) -> str | None:
    """Why `action`, enabled in `pre`, may be missing from `twin` (`pre` with two hidden faces exchanged), or
    None when no declared release covers it."""
    c = model.vocabulary
    if not c.chose(EOME_GATE_SECRECY.GATE_DECLASSIFIED):
        return None
    family = face_family(model, action.rule.name)
    if family is None or family[0] != OFFER:
        return None
    entrant = Const(dict(action.args)["e"])
    slot = model.schema.slot("entry_face")
    allowed = [bool(eval_expr(offer_gate(c, s[slot], entrant), s, model.schema)) for s in (pre, twin)]
    if allowed[0] == allowed[1]:
        return None
    return "the A21 gate withholds the offer for one of the two faces (eome-gate-secrecy: gate-declassified)"
