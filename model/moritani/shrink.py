"""Smaller setups `--minimise` may try: the same bounds with one rival, stronghold or face removed.

>>> without(Bounds(), "faces", "Atomics").faces[:2]
('Assassination', 'Extortion')
"""
from __future__ import annotations

import dataclasses

from model.moritani.config import Bounds

KINDS = ("factions", "strongholds", "faces")


def without(bounds: Bounds, kind: str, name: str) -> Bounds:
    """`bounds` with one faction, stronghold or face removed, and what depended on it.

    Raises ModelError if the result is not a valid setup.
    """
    if kind == "factions":
        return dataclasses.replace(
            bounds, factions=tuple(f for f in bounds.factions if f != name),
            forces=tuple(x for x in bounds.forces if x[0] != name),
            alliances=tuple(p for p in bounds.alliances if name not in p),
            karama=tuple(f for f in bounds.karama if f != name),
            leaderless=tuple(f for f in bounds.leaderless if f != name),
            ambassador=None if name == "Ecaz" else bounds.ambassador)
    if kind == "strongholds":
        return dataclasses.replace(bounds, strongholds=tuple(s for s in bounds.strongholds if s != name),
                                   ambassador=None if bounds.ambassador == name else bounds.ambassador)
    if kind == "faces":
        return dataclasses.replace(bounds, faces=tuple(k for k in bounds.faces if k != name))
    raise ValueError(f"unknown kind {kind!r}; valid: {', '.join(KINDS)}")


def removable(bounds: Bounds, kind: str) -> tuple:
    """The names of one kind that a removal may try, in order (never Moritani itself)."""
    return bounds.factions[1:] if kind == "factions" else getattr(bounds, kind)


class Shrink:
    """The game's answer to `--minimise`: which kinds of setup entry can go, and what remains.

    >>> s = Shrink()
    >>> s.kinds, s.removable(Bounds(), "strongholds")
    (('factions', 'strongholds', 'faces'), ('Arrakeen', 'Carthag'))
    """

    kinds = KINDS

    @staticmethod
    def removable(bounds: Bounds, kind: str) -> tuple:
        return removable(bounds, kind)

    @staticmethod
    def without(bounds: Bounds, kind: str, name: str) -> Bounds:
        return without(bounds, kind, name)
