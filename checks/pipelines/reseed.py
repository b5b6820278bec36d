"""Regenerate the shipped lemma seed: unite caches into it, keep only what proofs need, re-seed after a rule change.

    python -m checks.pipelines.reseed unite [--all] [--jobs N] DIR...
    python -m checks.pipelines.reseed transfer [--out DIR] [--jobs N] [--keep-stale] [PROFILE...]
    python -m checks.pipelines.reseed spacer [--jobs N] [PROFILE...]

`unite`: the caches in DIR... united into the seed, each entry of a seeded proposal (`--all`: every entry)
trimmed to its cone (`infer.cone`) if that re-proves it and re-checks its certificates. `transfer`: each seeded
proposal whose digest the seed lacks (a rule change) searched from its nearest entry, united and trimmed, the
stale entries dropped. `spacer`: `rulecheck check`'s Spacer records. The seeded proposals are the embedded
profiles and `neighbour:<stem>`, the files of `checks/engines/seed-neighbours/`. Why, and the measurements:
docs/lemmas.md ("The lemma cache", "Re-seeding after a rule change", "Seed neighbours").
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from checks.analyses.infer import cone, recheck
from checks.analyses.prove import _aim, _infer
from checks.analyses.quick_z3 import quick_proofs
from checks.analyses.transfer import declarations
from checks.clock import Clock
from checks.config import CHECK_RLIMIT
from model.digest import transition_digest
from checks.engines.lemmacache import FILE, SEED, LemmaCache, _load, from_data, reseed, to_data
from checks.engines.pool import TaskPool
from checks.formats.proposal import load_proposal
from checks.pipelines.common import GAME
from checks.pipelines.proofs import lemma_samples

NEIGHBOURS = Path(__file__).resolve().parents[1] / "engines" / "seed-neighbours"


def seeded() -> dict:
    """Name -> proposal of everything the seed holds an entry for: the embedded profiles, then the seed
    neighbours (`neighbour:<stem>`, the proposal files in NEIGHBOURS)."""
    out = dict(GAME.profiles)
    out.update({f"neighbour:{f.stem}": load_proposal(GAME, str(f)) for f in sorted(NEIGHBOURS.glob("*.yaml"))})
    return out


def seeded_models() -> dict:
    """Digest -> name, for every seeded proposal (the first name of a shared model)."""
    out: dict = {}
    for name, prop in sorted(seeded().items()):
        out.setdefault(transition_digest(GAME.build(prop, unbounded=True)), name)
    return out


def trim_entry(model, entry: dict) -> dict:
    """The entry with only the lemmas its proofs need, or the entry itself when the smaller one does
    not re-prove everything the whole one does."""
    if "lemmas" not in entry:  # check's Spacer records only
        return entry
    lemmas = [(str(t), from_data(d)) for t, d in entry["lemmas"]]
    names = [str(n) for n in entry["invariants"]]
    kept = cone(model, lemmas, names, dict(entry.get("certificates") or {}))  # all, unless the cone re-proves them
    if len(kept) == len(lemmas) or recheck(model, kept, names) is None:
        return entry
    return {**entry, "lemmas": [[t, to_data(e)] for t, e in kept]}


def _trim_one(args: tuple) -> tuple:
    key, profile, entry = args
    out = trim_entry(GAME.build(seeded()[profile], unbounded=True), entry)
    print(f"{profile}: {len(entry.get('lemmas', []))} -> {len(out.get('lemmas', []))} lemmas", flush=True)
    return key, out


def _pooled(fn, todo: list, jobs: int) -> list:
    """`fn` over `todo`, the results in the order they come: here with one job (or one item), else in the task
    pool (checks/engines/pool.py); the first job that failed stops the regeneration (a seed is never written
    from part of the work)."""
    if jobs <= 1 or len(todo) <= 1:
        return list(map(fn, todo))
    out: list = []
    with TaskPool(jobs) as pool:
        for job, result, error in pool.map(fn, todo):
            if error is not None:
                raise RuntimeError(f"{fn.__name__} failed on {job[0]!r}: {error}")
            out.append(result)
    return out


def unite(dirs: list, every: bool = False, jobs: int = 1, models: dict | None = None) -> int:
    """Unite `dirs` into the seed, then trim the entries they touched (all with `every`). `models`:
    `seeded_models()`, if the caller has it already (building the 19 profiles takes a while)."""
    models = models or seeded_models()
    added = set().union(*[_load(Path(d) / FILE).keys() for d in dirs]) if dirs else set()
    reseed(dirs)
    todo = [(k, models[k], e) for k, e in sorted(_load(SEED).items()) if k in models and (every or k in added)]
    trimmed = dict(_pooled(_trim_one, todo, jobs))
    return reseed([], trim=lambda key, entry: trimmed.get(key, entry))


def _transfer_one(args: tuple) -> None:
    """One profile's entry by transfer (`args`: its name, a store directory, Spacer's rlimit), into that store."""
    profile, out, spacer_rlimit = args
    t0, prop = time.perf_counter(), seeded()[profile]
    model = GAME.build(prop, unbounded=True)
    names = [p.name for p in model.invariants]
    aim = _aim(model, names)  # what the search aims at
    inf = _infer(model, lemma_samples(prop), 0, LemmaCache(out), Clock(None), names, spacer_rlimit, declarations(prop))
    proved = len((set(inf.proved) | set(inf.settled)) & set(aim)) if inf.verdict == "proved" else 0
    print(f"{profile}: {proved} / {len(aim)} invariants and step properties proved by transfer from "
          f"{inf.source[:12] or 'nothing'} ({time.perf_counter() - t0:.0f}s)", flush=True)


def transfer(profiles: list, out: Path | None = None, jobs: int = 1, keep_stale: bool = False,
             spacer_rlimit: int = 20_000_000) -> int:
    """New seed entries, by transfer, for the seeded proposals whose digest the seed lacks (all of
    `profiles` if given), united into the seed; the number of entries."""
    models, stored = seeded_models(), _load(SEED)
    out = Path(out or tempfile.mkdtemp(prefix="rulecheck-transfer-"))
    names = profiles or sorted({p for k, p in models.items() if k not in stored})
    _pooled(_transfer_one, [(p, out, spacer_rlimit) for p in names], jobs)
    n = unite([str(out)], models=models)
    if keep_stale:
        return n
    json_key = lambda d: json.dumps(d, sort_keys=True)  # noqa: E731  (declarations compared as text)
    current = {json_key(declarations(p)) for p in seeded().values()}
    return reseed([], trim=lambda key, entry: None if key not in models and json_key(entry.get("declarations"))
                  in current else entry)


def _spacer_one(args: tuple) -> None:
    """check's Spacer attempts on one seeded proposal (`args`: its name, a store directory), into that store.
    The seed is not read: its records for this entry are the ones being replaced, and a record it already
    holds would otherwise be re-checked and left out of the new ones."""
    proofs, attempted = quick_proofs(GAME.build(seeded()[args[0]], unbounded=True), 0, CHECK_RLIMIT, args[1],
                                     use_seed=False)
    print(f"{args[0]}: check's Spacer proved {len(proofs)} of {attempted}", flush=True)


def spacer_records(profiles: list, jobs: int = 1) -> int:
    """check's Spacer attempts, made from nothing (no user store), for `profiles` (default: every seeded
    proposal), replacing their entries' records in the seed; the number of entries."""
    out = Path(tempfile.mkdtemp(prefix="rulecheck-spacer-"))
    _pooled(_spacer_one, [(p, out) for p in profiles or sorted(seeded())], jobs)
    new = _load(out / FILE)
    return reseed([out], trim=lambda k, entry: {**entry, "spacer": new[k]["spacer"]} if "spacer" in new.get(k, {})
                  else entry)


def main(argv: list | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m checks.pipelines.reseed", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("unite", help="add lemma caches to the seed and trim the entries")
    u.add_argument("dirs", nargs="*", help="lemma cache directories to add to the seed")
    u.add_argument("--all", action="store_true", help="trim every entry, not only those the directories add to")
    t = sub.add_parser("transfer", help="new seed entries by transfer for embedded profiles whose model changed")
    t.add_argument("profiles", nargs="*", help="these profiles or neighbour:<stem> (default: those whose digest "
                                              "the seed lacks)")
    t.add_argument("--out", help="lemma cache directory for the new entries (default: a temporary one)")
    t.add_argument("--keep-stale", action="store_true", help="keep the entries of the profiles' old models")
    t.add_argument("--spacer-rlimit", type=int, default=20_000_000)
    c = sub.add_parser("spacer", help="record check's Spacer attempts in the seed entries")
    c.add_argument("profiles", nargs="*", help="these profiles or neighbour:<stem> (default: every seeded one)")
    for each, what in ((u, "entries trimmed"), (t, "proposals searched"), (c, "proposals attempted")):
        each.add_argument("--jobs", type=int, default=1, help=f"{what} at once (processes)")
    a = ap.parse_args(argv)
    run = {"spacer": lambda: spacer_records(a.profiles, a.jobs), "unite": lambda: unite(a.dirs, a.all, a.jobs),
           "transfer": lambda: transfer(a.profiles, a.out, a.jobs, a.keep_stale, a.spacer_rlimit)}
    print(f"{run[a.cmd]()} entries in {SEED.name}")


if __name__ == "__main__":
    main()
