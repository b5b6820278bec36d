"""The Moritani model's secrets, as the `Secrets` declaration the leak checks read (model/declarations.py).

Two secrets: which face each unrevealed Terror token has (exchanged two faces at a time), and, with
the Assassinate Leaders module, which Traitor card Moritani holds privately (exchanged with a card
still in the deck). Everything here delegates to `model/moritani/observe.py`, where the observation
and the exchanges are defined; this class only binds them to one model so that `checks/` can use
them without knowing the game.

>>> from model.moritani.build import build_model
>>> m = build_model()
>>> m.secrets.domain, [m.secrets.label(f) for f in m.secrets.observers]
('Face', ['Atreides', 'Bene Gesserit', 'Ecaz'])
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from model.moritani import observe, release


class FaceSecrets:
    """Terror faces (and Traitor cards) of one model: observation, exchange and public labels."""

    domain = "Face"
    card_domain = "Traitor"
    # Fields indexed by a face that move with it under an exchange, and the field naming it publicly.
    per_value_fields = ("tstatus", "tloc", "pid", "pid_shown")
    custody_fields = ("tstatus", "tloc", "pid_shown")
    id_field = "pid"

    def __init__(self, model):
        self.model = model
        c = model.vocabulary
        self.c = c
        self.observers = tuple(c.rivals)
        self.owner = c.M  # the secrets are Moritani's own: its view shows them (the explorer)
        self.values = tuple(c.faces)
        self.value_labels = c.K.labels
        self.card_labels = c.T.labels
        # Tables the leak checks read once per compared step, computed once per model.
        self.families = observe._face_families(model)
        self._matcher = None
        self._groups: dict = {}

    # -- observation --------------------------------------------------------------------------
    def label(self, observer: int) -> str:
        return self.c.F.labels[observer]

    def observer_index(self, label: str) -> int:
        return self.c.F.labels.index(label)

    def observer(self, observer: int):
        return observe.Observer(self.model, observer)

    def spec(self, observer: int) -> tuple:
        return observe.observation_spec(self.model, observer)

    def unobserved_fields(self) -> set:
        """Fields no rival sees directly: secret, engine-internal (H5) and ghost fields."""
        ghosts = {f.name for f in self.model.schema.fields if f.ghost}
        return set(observe.SECRET_FIELDS) | set(observe.ENGINE_FIELDS) | ghosts

    def public_slots(self) -> tuple:
        return observe.public_slots(self.model)

    def visible_slots(self, observer: int) -> tuple:
        """The slots `observer` reads directly: a rival's public board and own Karama card (its
        `Observer`), or the owner's (`observe.owner_slots`)."""
        if observer == self.owner:
            return observe.owner_slots(self.model)
        o = self.observer(observer)
        return tuple(sorted(set(o.public) | set(o.own)))

    # -- faces ------------------------------------------------------------------------------------
    def hidden(self, s: tuple) -> list:
        return observe.hidden_faces(self.model, s)

    def hidden_expr(self, value: int):
        return observe.hidden_expr(self.model, value)

    def swap(self, s: tuple, a: int, b: int) -> tuple:
        return observe.swap_faces(self.model, s, a, b)

    def exchange_label(self, action, a: int, b: int, domain: str = "Face") -> str:
        return observe.exchange_label(self.model, action, a, b, domain)

    def exchange_slots(self, a: int, b: int) -> tuple:
        return observe.exchange_slots(self.model, a, b)

    def live(self) -> dict:
        return observe.face_slot_live(self.model)

    def permutation(self, t: tuple, t2: tuple) -> dict | None:
        if self._matcher is None:
            self._matcher = observe.FaceMatcher(self.model)
        return self._matcher(t, t2)

    def public_key(self, action, pre: tuple) -> tuple:
        return observe.public_key(self.model, action, pre, self.public_group(action))

    def public_group(self, action) -> str:
        group = self._groups.get(action.label)
        if group is None:
            group = self._groups[action.label] = observe.public_group(self.model, action)
        return group

    def public_label(self, action, pre: tuple) -> str:
        return observe.public_label(self.model, action, pre)

    def released(self, action, pre: tuple, twin: tuple) -> str | None:
        """The declared release that lets `action` (enabled in `pre`) be missing from `twin`, `pre` with two
        hidden faces exchanged (model/moritani/release.py), or None."""
        return release.released(self.model, action, pre, twin)

    def value_params(self, action) -> list:
        return observe.face_params(action)

    def partner_models(self, model, pair: tuple):
        """Game B's model for a leak pair: the same rules with the initial public IDs of two faces
        exchanged, the found pair first, then every other one."""
        rest = [p for p in itertools.combinations(self.values, 2) if p != tuple(pair)]
        pids0 = [model.get(model.init[0], "pid", k) for k in self.values]
        for a, b in [tuple(pair)] + rest:
            pids = list(pids0)
            pids[a], pids[b] = pids[b], pids[a]
            yield model.provenance.sibling(options=(("pids", tuple(pids)),))

    # -- Traitor cards (Assassinate Leaders module) ---------------------------------------------------
    def cards(self):
        """(card slots, hidden zone codes, hand zone) or None when the module is off."""
        return observe.traitor_slots(self.model)

    def card_pairs(self, s: tuple) -> list:
        return observe.hidden_traitor_pairs(self.model, s)

    def swap_cards(self, s: tuple, a: int, b: int) -> tuple:
        return observe.swap_traitors(self.model, s, a, b)

    def public_cards(self, s: tuple) -> tuple:
        return observe.traitor_public(self.model, s)


if TYPE_CHECKING:  # mypy checks that the class implements the declaration the leak checks read
    from model.declarations import Secrets
    _implements: type[Secrets] = FaceSecrets
