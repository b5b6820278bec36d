"""A model's digest: the one key of everything stored about a model (the sweep's merging, the lemma store,
the proof certificates, compare's "identical" verdict).

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
    h = hashlib.sha256()
    for part in (model.schema, model.init, model.actions, model.monitors, model.properties, model.terminal,
                 model.dispatch):
        h.update(repr(part).encode())
        h.update(b"\x00")
    return h.hexdigest()
