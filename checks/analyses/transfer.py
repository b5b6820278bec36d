"""Cold proofs by transfer: a model the store has no entry for starts from the nearest stored entry.

A designer's proposal is usually a few switches or bounds from an embedded profile, and most of that entry's
lemmas still hold on it. Nearest means by **declarations** (`declarations`: every switch's choice, every bound,
the seeded defects), compared value by value (`distance`), never by name. The entry's lemmas are candidates
only: those over a slot or a value the model lacks are dropped (`usable_lemmas`), the rest re-proved by the
rounds of checks/analyses/infer.py (`infer(..., start=...)`) and re-checked at the end like any search's, and
its certificates re-checked before they count (docs/lemmas.md, "Cold proofs by transfer").

>>> from model.moritani import GAME
>>> a, b = declarations(GAME.profiles["default"]), declarations(GAME.profiles["printed-rules"])
>>> distance(a, a), distance(a, b) > 0
(0, True)
"""
from __future__ import annotations

import dataclasses
import json

from checks.engines.certificates import lemma_problem


def declarations(prop) -> dict:
    """A proposal's declarations as a flat JSON-able dict: `switch:<key>` (every switch, defaults
    included), `bound:<field>` (every bound) and `defects` (sorted)."""
    out = {f"switch:{k}": v for k, v in prop.interpretation.as_dict().items()}
    bounds = json.loads(json.dumps(dataclasses.asdict(prop.bounds), sort_keys=True))
    out.update({f"bound:{k}": v for k, v in bounds.items()})
    out["defects"] = sorted(prop.defects)
    return out


def distance(a: dict, b: dict) -> int:
    """How many declarations differ (a key only one of them has counts as different)."""
    return sum(a.get(k) != b.get(k) for k in set(a) | set(b))


def nearest(entries, decl: dict, exclude: str | None = None):
    """(distance, key) of the entry nearest to `decl` among `entries` ((key, declarations) pairs),
    ties broken by key so the choice is the same on every machine; None when none declares anything."""
    return min(((distance(decl, theirs), key) for key, theirs in entries
                if key != exclude and isinstance(theirs, dict)), default=None)


def donors(entries, decl: dict, base: str, most: int = 2) -> list:
    """Keys of up to `most` other entries that each agree with `decl` on a declaration where the
    nearest entry `base` differs (the nearest such entry per declaration, in declaration order): their
    lemmas are about the rules the proposal shares with them and not with `base`.

    >>> donors([("a", {"s": 1, "t": 1}), ("b", {"s": 2, "t": 1}), ("c", {"s": 1, "t": 2})], {"s": 2, "t": 2}, "a")
    ['b', 'c']
    """
    declared = dict(entries)
    out: list = []
    for k in sorted(set(decl) | set(declared.get(base) or {})):
        if (declared.get(base) or {}).get(k) == decl.get(k):
            continue
        agree = [(distance(decl, d), key) for key, d in entries if key != base and isinstance(d, dict)
                 and d.get(k) == decl.get(k) and key not in out]
        if agree:
            out.append(min(agree)[1])
        if len(out) >= most:
            break
    return out


def usable_lemmas(schema, lemmas: list) -> list:
    """The stored lemmas that are expressions over `schema`'s current state (a lemma about a slot, an
    index or a field the new model lacks is dropped, not an error)."""
    return [(t, e) for t, e in lemmas if lemma_problem(schema, e) is None]
