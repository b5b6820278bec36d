"""A model's digests: `model_digest`, the key of what is stored about a whole model (the sweep's merging, the
Spacer proof cache, compare's "identical" verdict), and `transition_digest`, the key of the lemma store.

>>> from model.moritani import GAME
>>> len(model_digest(GAME.build(GAME.profiles["default"])))
64
"""
from __future__ import annotations

import hashlib


def model_digest(model) -> str:
    """A digest of everything the explicit checks read from a model. Two models with the same digest
    give the same search and the same verdicts. The reprs are of frozen dataclasses, tuples and
    insertion-ordered dicts (no sets), so the digest is the same in every process and on every host."""
    return _digest((model.schema, model.init, model.actions, model.monitors, model.properties, model.terminal,
                    model.dispatch))


def transition_digest(model) -> str:
    """A digest of the transition system alone: the state slots, initial states, actions (guards and
    effects), monitors, terminal states and dispatch slot, not the invariants and permissions checked on
    them. Two models with the same one reach the same states by the same steps, so a lemma about their
    states holds in both. It keys the lemma store (checks/engines/lemmacache.py), so a new or changed
    state property leaves every stored entry usable: the entry's lemmas are re-proved on use as always, and
    the properties it lists are re-proved in their current form (a changed one that is no longer inductive
    with them makes the entry refused, never trusted). A step property adds a monitor flag (a slot), so it
    changes this digest too.

    >>> from model.moritani import GAME
    >>> m = GAME.build(GAME.profiles["default"])
    >>> transition_digest(m) == transition_digest(m.with_changes(properties=m.properties[:1]))
    True
    """
    return _digest((model.schema, model.init, model.actions, model.monitors, model.terminal, model.dispatch))


def _digest(parts: tuple) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode())
        h.update(b"\x00")
    return h.hexdigest()
