"""The proof store: what was proved about a model, keyed by its transition digest; every hit is re-proved.

One store serves `prove` and `check` (issue 35; docs/lemmas.md, "The lemma cache"). The key,
`model.digest.transition_digest`, leaves the state properties out, so a changed property still hits and is
re-proved as it is now. An entry holds prove's `lemmas`, the `invariants` they prove, Spacer's `certificates`
with them as facts and the proposal's `declarations` (checks/analyses/transfer.py), and check's `spacer`
records by property (`spacer_key`: a known `unknown` is skipped on that very encoding, rlimit and seed only).
Nothing stored is trusted: the caller re-proves the lemmas and re-checks each certificate
(checks/engines/certificates.py); what fails is ignored with a warning. The user's store is `FILE` in
`checks.engines.cachedirs.default_dir()`; the read-only seed `SEED` ships next to this module
(`python -m checks.pipelines.reseed`); writes merge under a lock (checks/engines/storefile.py).

>>> from model.expr import Const, Var
>>> e = Var("tloc", (Const(2),)).ne(Const(0)) | (Var("turn") <= 3)
>>> from_data(to_data(e)) == e
True
"""
from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

from checks.engines import storefile
from checks.engines.cachedirs import unwritable, warn
from model import expr as X

FILE = "inferred-lemmas.json"
SEED = Path(__file__).resolve().parent / (FILE + ".gz")
NODES = {c.__name__: c for c in (X.Const, X.Var, X.Not, X.And, X.Or, X.Eq, X.Lt, X.Le, X.Add, X.Sub, X.Div, X.Ite)}


class BadEntry(ValueError):
    """A stored expression that is not a well-formed tree of `model.expr` nodes."""


def to_data(e: X.Expr | str | int | bool) -> list | str | int | bool:
    """An expression as nested lists: [node name, field, ...]; tuples of nodes become lists."""
    if not isinstance(e, X.Expr):
        return e
    return [type(e).__name__] + [[to_data(x) for x in v] if isinstance(v, tuple) else to_data(v)
                                 for v in (getattr(e, f.name) for f in dataclasses.fields(e))]


def from_data(d, depth: int = 0):
    """The inverse of `to_data`; BadEntry for anything else (unknown nodes, wrong arity, too deep)."""
    if depth > 200:
        raise BadEntry("expression nested too deeply")
    if not isinstance(d, list) or not d or d[0] not in NODES:
        raise BadEntry(f"not an expression node: {str(d)[:60]}")
    cls = NODES[d[0]]
    fields = dataclasses.fields(cls)
    args = d[1:]
    if not len(fields) - sum(f.default is not dataclasses.MISSING for f in fields) <= len(args) <= len(fields):
        raise BadEntry(f"{d[0]} takes {len(fields)} fields, not {len(args)}")
    out: list[Any] = []  # each checked against its field below; the node's constructor takes them
    for f, a in zip(fields, args):
        if f.type in (tuple, "tuple"):
            if not isinstance(a, list):
                raise BadEntry(f"{d[0]}.{f.name} is not a list")
            out.append(tuple(from_data(x, depth + 1) for x in a))
        elif cls is X.Const:
            if not isinstance(a, (int, bool)):
                raise BadEntry("a constant that is not an integer")
            out.append(a)
        elif isinstance(a, list):
            out.append(from_data(a, depth + 1))
        elif isinstance(a, (str, int)) and not isinstance(a, bool):
            out.append(a)
        else:
            raise BadEntry(f"{d[0]}.{f.name}: unexpected {type(a).__name__}")
    return cls(*out)


LEMMA_FIELDS = ("lemmas", "invariants", "certificates", "declarations")  # prove's part of an entry


def spacer_key(fingerprint: str, rlimit: int, seed: int) -> str:
    """The key of one Spacer attempt with no facts: the encoding's fingerprint
    (`checks.engines.induction.fingerprint`), the rlimit and the seed."""
    return hashlib.sha256(f"{rlimit}\n{seed}\n{fingerprint}".encode()).hexdigest()


def _record_ok(r) -> bool:
    """A `spacer` record: the attempt's key, a verdict, and a certificate when proved."""
    return (isinstance(r, dict) and isinstance(r.get("key"), str) and storefile.KEY.fullmatch(r["key"]) is not None
            and r.get("verdict") in ("proved", "unknown")
            and (r["verdict"] != "proved" or isinstance(r.get("certificate"), str)))


def _entry_ok(k, v) -> bool:
    if not (isinstance(k, str) and storefile.KEY.fullmatch(k) is not None and isinstance(v, dict)):
        return False
    has_lemmas = "lemmas" in v or "invariants" in v
    if has_lemmas and not (isinstance(v.get("lemmas"), list) and isinstance(v.get("invariants"), list)):
        return False
    spacer = v.get("spacer", {})
    if not (isinstance(spacer, dict) and all(isinstance(n, str) and _record_ok(r) for n, r in spacer.items())):
        return False
    return has_lemmas or bool(spacer)


def _load(path: Path) -> dict:
    """The well-formed entries of a cache file; a damaged or missing file is an empty cache (the search runs)."""
    return storefile.read_entries(path, _entry_ok)[0]


def _seed_entry(text: str, key: str) -> dict | None:
    """The entry stored under `key` in the text of a seed, decoded alone, or None.

    >>> _seed_entry('{"%s": {"lemmas": [], "invariants": ["p"]}}' % ("ab" * 32), "ab" * 32)
    {'lemmas': [], 'invariants': ['p']}
    """
    at = text.find(f'"{key}":') if storefile.KEY.fullmatch(key) else -1
    if at < 0:
        return None
    start = at + len(key) + 3  # past the quoted key and its colon
    while text[start:start + 1].isspace():
        start += 1
    try:
        entry, _ = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return entry if _entry_ok(key, entry) else None


class LemmaCache:
    """The proof store: `candidates`/`get` and `put`/`certify` (prove's lemmas and certificates),
    `spacer_records`/`record_spacer` (check's Spacer attempts), `save` (merge under the lock).

    >>> import tempfile
    >>> from model.expr import Var
    >>> d = Path(tempfile.mkdtemp()); c = LemmaCache(d)
    >>> c.put("ab" * 32, [("not x", ~Var("x"))], ["inv"]); c.save()
    >>> LemmaCache(d).get("ab" * 32)
    ([('not x', Not(arg=Var(field='x', index=())))], ['inv'], {})
    """

    def __init__(self, directory: Path | None, use_seed: bool = True):
        self.path = Path(directory) / FILE if directory is not None else None
        self.entries: dict[str, dict] = {}
        self._rebuild = False  # the file on disk is damaged: the next save writes a clean one
        if self.path is not None:
            self.entries, problem = storefile.read_entries(self.path, _entry_ok)
            if problem:  # the valid entries are used (each verified); a save writes a clean file
                self._rebuild = True
                warn(f"the proof store {self.path}: {problem}; "
                     + ("the valid entries are kept" if self.entries else "ignored; it is rebuilt"))
        self._read = dict(self.entries)
        self.use_seed = use_seed and self.path is not None and self.path != SEED
        self.seed: dict = {}  # the seed's entries decoded so far, by key (None: not in the seed)
        self._seed_text: str | None = None  # read on the first lookup (_from_seed)
        self._touched: set = set()

    def _from_seed(self, key: str) -> dict | None:
        # The seed's JSON is about 12 MB: parsing it all costs 0.3 s in one C call, and its objects stretch every
        # later garbage collection, both of which hold a signal back (NOTE(signals)). So only the entry asked for
        # is decoded, where its key stands: `reseed` writes `"<digest>": {...}` at the top level (json.dumps),
        # and a digest is 64 hex digits, so its quoted text and a colon is that entry's key.
        if not self.use_seed:
            return None
        if key not in self.seed:
            if self._seed_text is None:
                try:
                    with gzip.open(SEED, "rb") as f:
                        self._seed_text = f.read(storefile.MAX_BYTES + 1).decode("utf-8")
                except (OSError, EOFError, ValueError) as e:
                    warn(f"the shipped proof store {SEED} cannot be read ({e}); it is not used")
                    self._seed_text = ""
            self.seed[key] = _seed_entry(self._seed_text, key)
        return self.seed[key]

    def _stored(self, key: str):
        """(origin, entry) for `key`: the user's ("user") first, then the shipped one ("seed")."""
        for origin in ("user", "seed"):
            entry = self.entries.get(key) if origin == "user" else self._from_seed(key)
            if entry is not None:
                yield origin, entry

    def _others(self, key: str) -> dict:
        """The user's entry for `key` without prove's fields: check's records, which a change to the lemmas keeps."""
        return {f: v for f, v in self.entries.get(key, {}).items() if f not in LEMMA_FIELDS}

    def _set(self, key: str, entry: dict | None) -> None:
        if entry:
            self.entries[key] = entry
        else:
            self.entries.pop(key, None)
        self._touched.add(key)

    def get(self, key: str) -> tuple[list, list, dict] | None:
        """(lemmas as [(text, Expr)], names of the invariants proved with them, Spacer certificates) of the
        first stored entry for `key` that decodes (`candidates`: the user's, then the seed's), or None."""
        return next((found[1:] for found in self.candidates(key)), None)

    def candidates(self, key: str):
        """(origin, lemmas, invariant names, certificates) for `key`, one at a time: the user's entry ("user")
        first, then the shipped one ("seed", decoded only if asked for); one that does not decode is skipped (the
        user's dropped, `refused`), and so is one with only check's Spacer records. The caller verifies each in
        turn: an entry that fails never hides the one behind it (issue 40)."""
        for origin, entry in self._stored(key):
            if "lemmas" not in entry:
                continue
            try:
                lemmas = [(str(t), from_data(d)) for t, d in entry["lemmas"]]
                names = [str(n) for n in entry["invariants"]]
            except (BadEntry, TypeError, ValueError) as e:
                self.refused(key, origin, f"an entry that does not decode ({e})")
                continue
            found = entry.get("certificates")
            yield origin, lemmas, names, dict(found) if isinstance(found, dict) else {}

    def refused_certificate(self, origin: str, name: str, why: str, key: str | None = None) -> None:
        """A stored Spacer certificate that does not re-check: a warning (the property goes down the chain);
        with `key`, it was check's record, and the user's is forgotten."""
        warn(f"the proof store {SEED if origin == 'seed' else self.path}: the stored certificate "
             f"for {name} is not a proof ({why}); it is not used")
        if key is not None and origin == "user":
            self.record_spacer(key, name, None)

    def refused(self, key: str, origin: str, why: str) -> None:
        """A stored lemma set failed verification: a warning; the user's is dropped (the seed is read-only),
        the entry's other records stay."""
        warn(f"the proof store {SEED if origin == 'seed' else self.path}: {why}; it is not used")
        if origin == "user" and key in self.entries:
            self._set(key, self._others(key))

    def put(self, key: str, lemmas: list, invariants: list, certificates: dict | None = None,
            declarations: dict | None = None) -> None:
        """Store prove's part of an entry (check's records stay); `declarations`
        (checks/analyses/transfer.py) let a model with no entry of its own find this one as its nearest."""
        entry: dict[str, object] = self._others(key) | {"lemmas": [[t, to_data(e)] for t, e in lemmas],
                                                         "invariants": list(invariants)}
        if certificates:
            entry["certificates"] = dict(sorted(certificates.items()))
        if declarations:
            entry["declarations"] = dict(sorted(declarations.items()))
        self._set(key, entry)

    def declared(self) -> list:
        """(key, declarations) of every entry that records them, the user's first then the seed's (the
        whole seed is parsed: only a model with no entry of its own asks, checks/analyses/transfer.py)."""
        out = [(k, e.get("declarations")) for k, e in sorted(self.entries.items())]
        if self.use_seed:
            out += [(k, e.get("declarations")) for k, e in sorted(_load(SEED).items()) if k not in self.entries]
        return [(k, d) for k, d in out if isinstance(d, dict)]

    def certify(self, key: str, certificates: dict) -> None:
        """Add Spacer certificates to the lemma entry for `key` (a no-op when there is none), to be saved."""
        lemma_entry = next((e for _, e in self._stored(key) if "lemmas" in e), None)
        if lemma_entry is None or not certificates:
            return
        found = lemma_entry.get("certificates")
        merged = {**(found if isinstance(found, dict) else {}), **certificates}
        self._set(key, {f: v for f, v in lemma_entry.items() if f in LEMMA_FIELDS} | self._others(key)
                  | {"certificates": dict(sorted(merged.items()))})

    def spacer_records(self, key: str, name: str) -> list:
        """[(origin, record)] of check's Spacer attempts on property `name` of the model `key`: the user's
        first, then the shipped one. Each proof is verified by the caller; a user's record that fails
        must not hide the shipped one (issue 40)."""
        return [(o, e["spacer"][name]) for o, e in self._stored(key) if name in e.get("spacer", {})]

    def record_spacer(self, key: str, name: str, record: dict | None) -> None:
        """Store (None: forget) check's Spacer attempt on property `name` of the model `key`."""
        entry = dict(self.entries.get(key, {}))
        spacer = {n: r for n, r in entry.pop("spacer", {}).items() if n != name} | ({name: record} if record else {})
        self._set(key, entry | ({"spacer": dict(sorted(spacer.items()))} if spacer else {}))

    def save(self) -> None:
        """Merge this run's changes into the file as it is now, under the lock, atomically."""
        if self.path is None or not (self._touched or self._rebuild):
            return
        mine = {k: self.entries.get(k) for k in self._touched}
        merged, why = storefile.merge_into(self.path, mine, self._read, _entry_ok)
        if merged is None:
            unwritable("the proof store", self.path.parent, why)
            return
        self.entries, self._read = merged, dict(merged)
        self._touched, self._rebuild = set(), False


def unite(a: dict, b: dict) -> dict:
    """Two entries for one model as one: the union of their lemmas (by text) and of the properties they prove.
    The conjunction of two inductive invariants is inductive (each step keeps each one), so the union is too; like
    every entry it is re-proved before use. Two searches often find different lemmas, and the union keeps what
    either proved. Certificates are kept (the first entry's where both have one): each assumed a subset of the
    united lemmas, and more lemmas only strengthen the pre-state; each is re-checked on use. check's Spacer
    records are kept by property, the second entry's (the newer) where both have one.

    >>> unite({"lemmas": [["a", 1]], "invariants": ["p"]}, {"lemmas": [["b", 2], ["a", 1]], "invariants": ["q"]})
    {'lemmas': [['a', 1], ['b', 2]], 'invariants': ['p', 'q']}
    >>> unite({"lemmas": [], "invariants": []}, {"lemmas": [], "invariants": [], "certificates": {"r": "c"}})
    {'lemmas': [], 'invariants': [], 'certificates': {'r': 'c'}}
    """
    out: dict[str, object] = {}
    if "lemmas" in a or "lemmas" in b:
        seen = {t for t, _ in a.get("lemmas", [])}
        out["lemmas"] = list(a.get("lemmas", [])) + [[t, d] for t, d in b.get("lemmas", []) if t not in seen]
        out["invariants"] = sorted(set(a.get("invariants", [])) | set(b.get("invariants", [])))
    certificates = {**(b.get("certificates") or {}), **(a.get("certificates") or {})}
    if certificates:
        out["certificates"] = dict(sorted(certificates.items()))
    declared = a.get("declarations") or b.get("declarations")
    if declared:
        out["declarations"] = declared
    spacer = {**(a.get("spacer") or {}), **(b.get("spacer") or {})}  # the later attempt (a regeneration) wins
    if spacer:
        out["spacer"] = dict(sorted(spacer.items()))
    return out


def reseed(directories: list, seed: Path = SEED, trim=None) -> int:
    """Add the entries of the caches in `directories` to the gzip seed (written deterministically:
    sorted keys, no timestamp, so the same entries give the same bytes; an entry for a model the seed
    already has is united with it, `unite`); the number of entries. `trim(key, entry)`, if given,
    returns the entry to keep in place of each entry (checks/pipelines/reseed.py: only the lemmas
    its proofs need)."""
    entries = _load(seed)
    for d in directories:
        for key, entry in sorted(_load(Path(d) / FILE).items()):
            entries[key] = unite(entries[key], entry) if key in entries else entry
    if trim is not None:  # an entry trimmed to None is dropped (`reseed transfer --prune`)
        entries = {key: e for key, e in ((k, trim(k, v)) for k, v in sorted(entries.items())) if e is not None}
    text = json.dumps(entries, sort_keys=True).encode("utf-8")
    with open(seed, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        gz.write(text)
    return len(entries)
