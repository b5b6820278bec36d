"""A cache of inferred lemmas, keyed by the model they were proved on; every hit is re-proved.

`rulecheck prove` (engine auto) spends most of its time finding lemmas (checks/analyses/infer.py):
exploring, mining, Houdini, blocking rounds. What it finds is a set of expressions whose
conjunction, with the invariants it proves, is inductive. That set is stored here under a digest of
the unbounded-turn model's transition system (its schema, initial states, actions and monitors, not its
state properties: `model.digest.transition_digest`), so a second run on the same rules skips the search,
and so does a run after a state property was added or changed (the entry's properties are re-proved in
their current form; the new one is proved with the entry's lemmas as facts).

Nothing stored is trusted. A hit is handed back as candidates only: the caller re-proves their
conjunction from scratch (Init => L and L /\\ T => L' through the same monolithic encoding the
inference's own re-check uses) before any verdict relies on it; a set that fails is ignored and
the inference runs as if there were no entry. A changed rule changes the digest, so it misses.

Entries are JSON: each lemma is its text and its expression tree (`to_data` / `from_data`, over the
node types of `model.expr` only). The file is `inferred-lemmas.json` next to the Spacer cache
(`checks.engines.proofcache.default_dir`: `$RULECHECK_CACHE`, else `~/.cache/rulecheck`); a
read-only seed for the embedded profiles ships next to this module, gzip-compressed
(`inferred-lemmas.json.gz`: the lemma trees compress about 18 times). Writes merge under the same
lock and atomic replace as the Spacer cache. `python -m checks.pipelines.reseed unite DIR...` adds the
entries of the caches in DIR... to the seed and trims them (docs/lemmas.md, "The lemma cache").

>>> from model.expr import Const, Var
>>> e = Var("tloc", (Const(2),)).ne(Const(0)) | (Var("turn") <= 3)
>>> from_data(to_data(e)) == e
True
"""
from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path
from typing import Any

from checks.engines import proofcache
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


def _entry_ok(k, v) -> bool:
    return (isinstance(k, str) and proofcache.KEY.fullmatch(k) is not None and isinstance(v, dict)
            and isinstance(v.get("lemmas"), list) and isinstance(v.get("invariants"), list))


def _load(path: Path) -> dict:
    """The well-formed entries of a cache file; a damaged or missing file is an empty cache (the search runs)."""
    return proofcache.read_entries(path, FILE, _entry_ok)[0]


def _seed_entry(text: str, key: str) -> dict | None:
    """The entry stored under `key` in the text of a seed, decoded alone, or None.

    >>> _seed_entry('{"%s": {"lemmas": [], "invariants": ["p"]}}' % ("ab" * 32), "ab" * 32)
    {'lemmas': [], 'invariants': ['p']}
    """
    if proofcache.KEY.fullmatch(key) is None:
        return None
    at = text.find(f'"{key}":')
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
    """Lemma sets by transition digest: `get` (decoded, or None), `put`, `save` (merge under the lock).

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
        if self.path is not None:
            self.entries, problem = proofcache.read_entries(self.path, FILE, _entry_ok)
            if problem:  # the valid entries are used (each verified); a save writes a clean file
                warn(f"the lemma cache {self.path}: {problem}; "
                                + ("the valid entries are kept" if self.entries else "ignored; it is rebuilt"))
        self._read = dict(self.entries)
        self.use_seed = use_seed and self.path is not None and self.path != SEED
        self.seed: dict = {}  # the seed's entries decoded so far, by key (None: not in the seed)
        self._seed_text: str | None = None  # read on the first lookup (_from_seed)
        self._put: dict = {}
        self._dropped: dict = {}

    def _from_seed(self, key: str) -> dict | None:
        # The seed's JSON is about 16 MB. Parsing all of it costs a second in one C call, and the
        # million objects it makes stretch every later garbage collection, both of which hold a signal
        # back (NOTE(signals)); so only the entry asked for is decoded, from where its key stands. The
        # seed is written by `reseed` (json.dumps: `"<digest>": {...}` at the top level), and a digest
        # is 64 hex digits, so its quoted text followed by a colon is that entry's key.
        if not self.use_seed:
            return None
        if key not in self.seed:
            if self._seed_text is None:
                try:
                    with gzip.open(SEED, "rb") as f:
                        self._seed_text = f.read(proofcache.MAX_BYTES + 1).decode("utf-8")
                except (OSError, EOFError, ValueError) as e:
                    warn(f"the shipped lemma seed {SEED} cannot be read ({e}); it is not used")
                    self._seed_text = ""
            self.seed[key] = _seed_entry(self._seed_text, key)
        return self.seed[key]

    def get(self, key: str) -> tuple[list, list, dict] | None:
        """(lemmas as [(text, Expr)], names of the invariants proved with them, Spacer certificates) of the
        first stored entry for `key` that decodes (`candidates`: the user's, then the seed's), or None."""
        for _, lemmas, names, certificates in self.candidates(key):
            return lemmas, names, certificates
        return None

    def candidates(self, key: str):
        """(origin, lemmas, invariant names, certificates) for `key`, one at a time: the user's entry
        ("user") first, then the shipped one ("seed", decoded only if asked for), each decoded; one
        that does not decode is skipped (and the user's dropped, `refused`). The caller verifies each
        in turn: an entry that fails never hides the one behind it (issue 40)."""
        for origin in ("user", "seed"):
            entry = self.entries.get(key) if origin == "user" else self._from_seed(key)
            if entry is None:
                continue
            try:
                lemmas = [(str(t), from_data(d)) for t, d in entry["lemmas"]]
                names = [str(n) for n in entry["invariants"]]
            except (BadEntry, TypeError, ValueError) as e:
                self.refused(key, origin, f"an entry that does not decode ({e})")
                continue
            found = entry.get("certificates")
            yield origin, lemmas, names, dict(found) if isinstance(found, dict) else {}

    def refused_certificate(self, origin: str, name: str, why: str) -> None:
        """A stored Spacer certificate that does not re-check: a warning (the property goes down the chain)."""
        warn(f"the lemma cache {SEED if origin == 'seed' else self.path}: the stored certificate "
                        f"for {name} is not a proof ({why}); it is not used")

    def refused(self, key: str, origin: str, why: str) -> None:
        """A stored entry failed verification: a warning; the user's is dropped (the seed is read-only)."""
        warn(f"the lemma cache {SEED if origin == 'seed' else self.path}: {why}; it is not used")
        if origin == "user" and self.entries.pop(key, None) is not None:
            self._put.pop(key, None)
            if key in self._read:
                self._dropped[key] = self._read[key]

    def put(self, key: str, lemmas: list, invariants: list, certificates: dict | None = None,
            declarations: dict | None = None) -> None:
        """Store an entry; `declarations` (checks/analyses/transfer.py) let a model with no entry of its
        own find this one as its nearest."""
        entry: dict[str, object] = {"lemmas": [[t, to_data(e)] for t, e in lemmas], "invariants": list(invariants)}
        if certificates:
            entry["certificates"] = dict(sorted(certificates.items()))
        if declarations:
            entry["declarations"] = dict(sorted(declarations.items()))
        self.entries[key] = entry
        self._put[key] = entry

    def declared(self) -> list:
        """(key, declarations) of every entry that records them, the user's first then the seed's (the
        whole seed is parsed: only a model with no entry of its own asks, checks/analyses/transfer.py)."""
        out = [(k, e.get("declarations")) for k, e in sorted(self.entries.items())]
        if self.use_seed:
            out += [(k, e.get("declarations")) for k, e in sorted(_load(SEED).items()) if k not in self.entries]
        return [(k, d) for k, d in out if isinstance(d, dict)]

    def certify(self, key: str, certificates: dict) -> None:
        """Add Spacer certificates to the entry for `key` (a no-op when there is none), to be saved."""
        entry = self.entries.get(key) or self._from_seed(key)
        if entry is None or not certificates:
            return
        found = entry.get("certificates")
        merged = {**(found if isinstance(found, dict) else {}), **certificates}
        entry = dict(entry, certificates=dict(sorted(merged.items())))
        self.entries[key] = entry
        self._put[key] = entry

    def save(self) -> None:
        if self.path is None or not (self._put or self._dropped):
            return
        merged, why = proofcache.merge_into(self.path, self._put, self._dropped, FILE, _entry_ok)
        if merged is None:
            unwritable("the lemma cache", self.path.parent, why)
            return
        self._read = dict(merged)
        self._put, self._dropped = {}, {}


def unite(a: dict, b: dict) -> dict:
    """Two entries for one model as one: the union of their lemmas (by text) and of the properties
    they prove. Each conjunction was proved inductive with its base case, and the conjunction of two
    inductive invariants is inductive (each step keeps each one), so the union is too; like every
    entry it is re-proved before use. Two searches often find different lemmas (the presence round
    changes what the blocking rounds reach), and the union keeps what either proved. Spacer
    certificates are kept too (the first entry's where both have one): each assumed a subset of the
    united lemmas, and a larger set only strengthens the pre-state; each is re-checked on use.

    >>> unite({"lemmas": [["a", 1]], "invariants": ["p"]}, {"lemmas": [["b", 2], ["a", 1]], "invariants": ["q"]})
    {'lemmas': [['a', 1], ['b', 2]], 'invariants': ['p', 'q']}
    >>> unite({"lemmas": [], "invariants": []}, {"lemmas": [], "invariants": [], "certificates": {"r": "c"}})
    {'lemmas': [], 'invariants': [], 'certificates': {'r': 'c'}}
    """
    seen = {t for t, _ in a["lemmas"]}
    lemmas = list(a["lemmas"]) + [[t, d] for t, d in b["lemmas"] if t not in seen]
    out: dict[str, object] = {"lemmas": lemmas, "invariants": sorted(set(a["invariants"]) | set(b["invariants"]))}
    certificates = {**(b.get("certificates") or {}), **(a.get("certificates") or {})}
    if certificates:
        out["certificates"] = dict(sorted(certificates.items()))
    declared = a.get("declarations") or b.get("declarations")
    if declared:
        out["declarations"] = declared
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
