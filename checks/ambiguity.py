"""Ambiguous orderings: which pairs of pending reactions depend on their order.

The detector explores the model built with the proposal's bounds and the
`printed-rules` orderings (A1, A2 and A5 set to `unordered`, every other
switch as the proposal chose), so that every order the printed rules leave
open is reachable. Pending reactions wait at a hub stage (`HUBS`): the
arrival reactions at `react` (Terror, BG advisor, Ecaz Ambassador) and the
Mentat Pause events at `mentat_open` (placement, Extortion collection and, with the
Assassinate Leaders module, its Traitor replacement draw: A6 is then left open too). At
each reachable hub state where two or more reactions may resolve, it
resolves each pair (r1, r2) both ways and explores each branch, with every
player choice, until the pair is settled: the stage is back at the hub with
neither reaction pending. Only the two reactions' scheduler
steps are taken inside a branch, and engine faults (reload, retry) are left
out. The two sets of settled outcomes (non-ghost slots) are compared.

Classes, strongest first (a pair's class is the strongest seen in any state):

- `cascades`: the orders differ and, in at least one order, resolving the
  pair created a further pending reaction (e.g. a Sneak Attack adds a BG
  advisor accompaniment, A14);
- `disables`: the orders differ in whether a reaction lapses or cannot take
  effect (`lapse_terror`, an advisor that can no longer accompany, an
  Ambassador whose payer has no spice left);
- `diverges`: the settled outcome sets differ;
- `commutes`: same outcome sets and same events.

A reportable class (not `commutes`) is `violated` unless the proposal
settles the pair, that is its choice for the settling switch is not
`unordered`.

>>> # from model.moritani.profiles import PROFILES
>>> # [(r.id, r.extra["class"], r.verdict) for r in analyse(PROFILES["default"])]
>>> # [('bg-advisor~ecaz-ambassador', 'diverges', 'holds'), ...]
"""
from __future__ import annotations

import argparse
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from checks.config import CheckConfig
from checks.explore import Explorer
from checks.results import CheckResult
from checks.run import validated
from model.compile import CompiledModel
from model.moritani.build import build_model
from model.moritani.config import Interpretation

CLASSES = ("commutes", "diverges", "disables", "cascades")  # weakest to strongest
NAMES = {"advisor": "bg-advisor", "ambassador": "ecaz-ambassador", "terror": "terror",
         "placement": "mentat-placement", "extortion": "extortion-collection", "draw": "traitor-replacement"}
SCHEDULER = {"resolve_advisor": "advisor", "resolve_ambassador": "ambassador",
             "open_terror": "terror", "lapse_terror": "terror",
             "begin_placement": "placement", "begin_extortion": "extortion", "begin_draw": "draw"}
# The hub stage where each group of reactions waits for the scheduler.
# The Assassinate Leaders replacement draw ("draw") exists only with that module on (A6).
HUBS = {"react": ("terror", "advisor", "ambassador"), "mentat_open": ("placement", "extortion", "draw")}
# The switch that settles each pair, and the catalogue IDs it concerns.
SETTLES = {frozenset(("advisor", "terror")): ("terror-vs-arrival-reactions", ("A1", "A25")),
           frozenset(("ambassador", "terror")): ("ambassador-vs-terror", ("A2",)),
           frozenset(("advisor", "ambassador")): ("terror-vs-arrival-reactions", ("A1", "A2")),
           frozenset(("placement", "extortion")): ("extortion-mentat-order", ("A5", "A6")),
           frozenset(("draw", "placement")): ("assassinate-mentat-order", ("A6", "R43")),
           frozenset(("draw", "extortion")): ("assassinate-mentat-order", ("A6", "R43"))}
ORDER = ("terror", "advisor", "ambassador", "placement", "extortion", "draw")  # fixes how a pair id is spelled


def pair_id(a: str, b: str) -> str:
    x, y = sorted((a, b), key=ORDER.index)
    return f"{NAMES[x]}~{NAMES[y]}"


def printed_rules(interp: Interpretation, module: bool = False) -> Interpretation:
    """The proposal's interpretation with every reaction order left open (A6 too with the module on)."""
    chosen = dict(interp.chosen)
    chosen.update({"terror-vs-arrival-reactions": "unordered", "ambassador-vs-terror": "unordered",
                   "extortion-mentat-order": "unordered"})
    if module:
        chosen["assassinate-mentat-order"] = "unordered"
    return Interpretation(tuple(sorted(chosen.items())))


@dataclass
class Branch:
    """Everything one order of a pair can lead to."""

    outcomes: dict = field(default_factory=dict)  # projected outcome -> (start action, path labels)
    events: dict = field(default_factory=dict)    # ('disable'|'cascade', what) -> path labels


@dataclass
class PairFinding:
    pair: str
    cls: str = "commutes"
    states: int = 0
    classes: dict = field(default_factory=dict)   # class -> count of states
    witness_state: int | None = None
    witness_depth: int = 10**9
    orders: dict = field(default_factory=dict)    # reaction name first -> action labels
    slots: tuple = ()


class Analyser:
    """Pairwise order analysis over one explored printed-rules model."""

    def __init__(self, model, config: CheckConfig | None = None):
        self.model = model
        self.config = config or CheckConfig()
        self.cm = CompiledModel.build(model)
        sch = model.schema
        self.sl = {n: sch.slot(n) for n in ("stage", "pend_advisor", "pend_ambassador", "pend_terror",
                                            "amb_payer", "entry2", "placement_used", "ext_reserved")}
        if model.info["ctx"].module:
            self.sl["tr_pending"] = sch.slot("tr_pending")
        self.spice = [sch.slot("spice", (f,)) for f in range(len(model.info["bounds"].factions))]
        self.game_slots = tuple(i for i, f in enumerate(sch.slot_fields) if not f.ghost)
        st = model.info["ctx"].Stage.labels
        self.react, self.advisor_stage, self.amb_stage = (st.index(x) for x in ("react", "advisor", "ambassador"))
        self.hubs = {st.index(h): rs for h, rs in HUBS.items()}
        self.hub_of = {r: st.index(h) for h, rs in HUBS.items() for r in rs}
        acts = model.actions
        self.rule = [a.rule.name for a in acts]
        self.fault = [a.rule.kind == "fault" for a in acts]
        self.reaction = [SCHEDULER.get(a.rule.name) if a.rule.kind == "scheduler" else None for a in acts]

    def pending(self, s, r: str) -> int:
        """How many times reaction r is pending in s (0 when settled)."""
        if r == "placement":
            return int(not s[self.sl["placement_used"]])
        if r == "extortion":
            return int(s[self.sl["ext_reserved"]])
        if r == "draw":  # a revealed Traitor card waits for its Mentat replacement
            return int(s[self.sl["tr_pending"]]) if "tr_pending" in self.sl else 0
        return int(s[self.sl["pend_" + r]])

    def project(self, s) -> tuple:
        return tuple(s[i] for i in self.game_slots)

    def resolvable(self, s) -> dict:
        """reaction -> [(action index, successor)] for scheduler steps enabled in s."""
        out: dict = {}
        if s[self.sl["stage"]] not in self.hubs:
            return out
        for a, t in self.cm.successors(s):
            r = self.reaction[a]
            if r is not None:
                out.setdefault(r, []).append((a, t))
        return out

    def branch(self, starts, pair) -> Branch:
        """Explore from the successors `starts` until both reactions in `pair` are settled."""
        b = Branch()
        seen = {}
        q = deque()
        hub = self.hub_of[pair[0]]
        group = HUBS["react"] if hub == self.react else pair
        for a, t in starts:
            if self.rule[a] == "lapse_terror":
                b.events.setdefault(("disable", "terror lapses"), [self.model.actions[a].label])
            if t not in seen:
                seen[t] = (None, a)
                q.append(t)
        while q:
            s = q.popleft()
            stage = s[self.sl["stage"]]
            if stage == hub and not any(self.pending(s, r) for r in pair) and not (
                    hub == self.react and s[self.sl["entry2"]] and not any(self.pending(s, r) for r in group)):
                o = self.project(s)
                if o not in b.outcomes:
                    b.outcomes[o] = self._path(seen, s)
                continue
            succ = [(a, t) for a, t in self.cm.successors(s) if not self.fault[a]
                    and (self.reaction[a] is None or self.reaction[a] in pair)]
            if stage == self.advisor_stage and not any(self.rule[a] == "accompany" for a, _ in succ):
                self._event(b, ("disable", "advisor cannot accompany"), seen, s)
            if stage == self.amb_stage and s[self.spice[s[self.sl["amb_payer"]]]] == 0:
                self._event(b, ("disable", "ambassador payer has no spice"), seen, s)
            for a, t in succ:
                if self.rule[a] == "lapse_terror":
                    self._event(b, ("disable", "terror lapses"), seen, s, a)
                for r in group:
                    if self.pending(t, r) > self.pending(s, r):
                        self._event(b, ("cascade", f"{NAMES[r]} pending again"), seen, s, a)
                if t not in seen:
                    seen[t] = (s, a)
                    q.append(t)
        return b

    def _event(self, b, ev, seen, s, a=None):
        if ev not in b.events:
            b.events[ev] = self._path(seen, s) + ([self.model.actions[a].label] if a is not None else [])

    def _path(self, seen, s) -> list:
        labels = []
        while s is not None:
            prev, a = seen[s]
            labels.append(self.model.actions[a].label)
            s = prev
        return labels[::-1]

    def compare(self, s, r1, r2, res) -> tuple:
        """(class, {first reaction: labels}, differing slot names) for the pair at state s."""
        b1, b2 = self.branch(res[r1], (r1, r2)), self.branch(res[r2], (r1, r2))
        o1, o2 = set(b1.outcomes), set(b2.outcomes)
        e1, e2 = set(b1.events), set(b2.events)
        if o1 == o2 and e1 == e2:
            return "commutes", {}, ()
        if any(k == "cascade" for k, _ in e1 | e2):
            cls = "cascades"
        elif {e for e in e1 if e[0] == "disable"} != {e for e in e2 if e[0] == "disable"}:
            cls = "disables"
        else:
            cls = "diverges"
        names = [self.model.schema.slot_names[i] for i in self.game_slots]
        only1, only2 = o1 - o2, o2 - o1
        diff: set = set()
        for mine, other in ((only1, o2), (only2, o1)):
            for x in mine:  # the slots that separate x from the nearest outcome of the other order
                near = min(other, key=lambda y: sum(a != b for a, b in zip(x, y)), default=None)
                diff |= {j for j, (a, b) in enumerate(zip(x, near or x)) if a != b}
        diff = [names[j] for j in sorted(diff)]
        if cls != "diverges" or not (only1 or only2):
            # Witness the event that tells the orders apart: a cascade, else a differing disable.
            pick = [e for e in e1 ^ e2 if e[0] == "cascade"] or sorted(e1 ^ e2) or \
                [e for e in e1 | e2 if e[0] == "cascade"]
            if pick:
                ev = pick[0]
                w1 = b1.events.get(ev) or min(b1.outcomes.values(), key=len, default=[])
                w2 = b2.events.get(ev) or min(b2.outcomes.values(), key=len, default=[])
                return cls, {r1: [f"[{ev[1]}]"] + w1, r2: [f"[{ev[1]}]" if ev in b2.events else "[no such event]"] + w2}, tuple(diff)
        w1 = b1.outcomes[min(only1, key=lambda o: len(b1.outcomes[o]))] if only1 else next(iter(b1.outcomes.values()), [])
        w2 = b2.outcomes[min(only2, key=lambda o: len(b2.outcomes[o]))] if only2 else next(iter(b2.outcomes.values()), [])
        return cls, {r1: w1, r2: w2}, tuple(diff)

    def run(self, ex) -> dict:
        """pair id -> PairFinding over every multi-choice react state of the exploration `ex`."""
        found: dict = {}
        for idx, s in enumerate(ex.states):
            res = self.resolvable(s)
            if len(res) < 2:
                continue
            rs = sorted(res, key=ORDER.index)
            for i in range(len(rs)):
                for r2 in rs[i + 1:]:
                    r1 = rs[i]
                    cls, orders, slots = self.compare(s, r1, r2, res)
                    f = found.setdefault(pair_id(r1, r2), PairFinding(pair_id(r1, r2)))
                    f.states += 1
                    f.classes[cls] = f.classes.get(cls, 0) + 1
                    stronger = CLASSES.index(cls) > CLASSES.index(f.cls)
                    if stronger or (cls == f.cls and ex.depth[idx] < f.witness_depth):
                        f.cls, f.witness_state, f.witness_depth = cls, idx, ex.depth[idx]
                        f.orders, f.slots = orders, slots
        return found


def analyse(proposal, config: CheckConfig | None = None, with_model: bool = False, prove: bool = True):
    """One CheckResult per reaction pair found; `violated` if reportable and not settled.

    With `prove`, every pair the explicit search found commuting is also handed to Z3
    (checks/commute_z3.py), which tries to prove it commutes on every state of its class.
    """
    config = config or CheckConfig()
    t0 = time.perf_counter()
    model = build_model(proposal.bounds, printed_rules(proposal.interpretation, proposal.bounds.assassinate_leaders),
                        proposal.defects)
    ex = Explorer(model, config).run()
    an = Analyser(model, config)
    found = an.run(ex)
    out = []
    for pid in sorted(found, key=lambda p: [ORDER.index(r) for r in _reactions(p)]):
        f = found[pid]
        key, ids = SETTLES[frozenset(_reactions(pid))]
        choice = proposal.interpretation.choice(key)
        settled = choice != "unordered"
        verdict = "violated" if f.cls != "commutes" and not settled else "holds"
        if not ex.complete:
            verdict = "unknown"
        trace = validated(model, ex.trace_to(f.witness_state), pid) if f.witness_state is not None else None
        z3_note = {}
        if prove and f.cls == "commutes":
            from checks.commute_z3 import prove_commutes
            p = prove_commutes(model, *_reactions(pid))
            z3_note = {"verdict": p.verdict, "reason": p.reason, "macro_steps": p.lengths,
                       "seconds": round(p.seconds, 2)}
        orders = {f"{NAMES[r]} first": labels for r, labels in f.orders.items()}
        per = ", ".join(f"{c} {f.classes[c]}" for c in reversed(CLASSES) if c in f.classes)
        detail = (f"{f.cls} (pending together in {f.states} states: {per}); " + (f"differs in {', '.join(f.slots[:6])}; " if f.slots else "")
                  + (f"settled by {key}={choice}" if settled else f"not settled ({key} unordered)")
                  + (f"; Z3: commutes {z3_note['reason']}" if z3_note.get("verdict") == "proved" else
                     f"; Z3: {z3_note['verdict']} ({z3_note['reason']})" if z3_note else ""))
        out.append(CheckResult(
            pid, kind="ambiguity", verdict=verdict, engine="explicit", rules=ids, states=len(ex.states),
            depth=trace.depth if trace else None, seconds=time.perf_counter() - t0, detail=detail, trace=trace,
            extra={"class": f.cls, "switch": key, "settled_by": choice if settled else None, "pending_states": f.states,
                   "classes": dict(f.classes), "orders": orders, "slots": list(f.slots)}
            | ({"z3": z3_note} if z3_note else {})))
    if not ex.complete:
        # A cut search may have missed pairs altogether: say so, never let an empty list read as "holds".
        out.append(CheckResult(
            "ambiguity-search", kind="ambiguity", verdict="unknown", engine="explicit", rules=(),
            states=len(ex.states), depth=None, seconds=time.perf_counter() - t0,
            detail=f"the search stopped ({ex.stop_reason}); pairs pending only beyond it were not examined",
            extra={"class": None, "switch": None, "settled_by": None}))
    return (out, model) if with_model else out


def _reactions(pid: str) -> tuple:
    back = {v: k for k, v in NAMES.items()}
    return tuple(back[x] for x in pid.split("~"))


def render_docs(results, model, seconds: float) -> str:
    """docs/ambiguities.md from the results on the default bounds."""
    lines = ["# Ambiguous orderings", "",
             "Generated by `python -m checks.ambiguity --write-docs`; do not edit by hand.", "",
             "Pairs of pending reactions (arrival reactions, Mentat Pause events) whose order the printed "
             "rules leave open, found by exploring the default bounds with the `printed-rules` orderings "
             "(A1, A2 and A5 `unordered`) and "
             "resolving each pair both ways (method and classes: `checks/ambiguity.py`). The default "
             "profile's choice for the settling switch is shown. A pair found commuting is also handed to Z3 "
             "(`checks/commute_z3.py`), which tries to prove that it commutes on every state where both may "
             "resolve, reachable or not; its answer follows the pair's detail.", "",
             "| pair | class | states | per class | switch | default choice | IDs |",
             "| --- | --- | ---: | --- | --- | --- | --- |"]
    for r in results:
        per = ", ".join(f"{k} {v}" for k, v in sorted(r.extra["classes"].items()))
        lines.append(f"| `{r.id}` | {r.extra['class']} | {r.extra['pending_states']} | {per} | `{r.extra['switch']}` "
                     f"| {r.extra['settled_by'] or 'unordered'} | {', '.join(r.rules)} |")
    for r in results:
        lines += ["", f"## `{r.id}`: {r.extra['class']}", "",
                  f"{r.detail}. Catalogue: {', '.join(r.rules)}.", ""]
        if r.trace is not None:
            lines += ["Shortest game to a state where both reactions are pending:", "", "```",
                      r.trace.narrative(model), "```", ""]
        for order, labels in r.extra["orders"].items():
            lines.append(f"- {order}: `{' ; '.join(labels)}`")
    lines += ["", f"Explored {results[0].states if results else 0:,} states in {seconds:.1f}s.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    from checks.proposal import resolve
    ap = argparse.ArgumentParser(prog="python -m checks.ambiguity", description=__doc__.split("\n\n")[0])
    ap.add_argument("--proposal", default=None, help="proposal file or embedded profile (default: default)")
    ap.add_argument("--write-docs", action="store_true", help="write docs/ambiguities.md")
    args = ap.parse_args(argv)
    proposal = resolve(args.proposal)
    t0 = time.perf_counter()
    results, model = analyse(proposal, CheckConfig(), with_model=True)
    seconds = time.perf_counter() - t0
    for r in results:
        print(f"{r.id:30} {r.extra['class']:9} {r.verdict:9} {r.extra['pending_states']:>6}  {r.detail}")
    print(f"{seconds:.1f}s")
    if args.write_docs:
        path = Path(__file__).resolve().parent.parent / "docs" / "ambiguities.md"
        path.write_text(render_docs(results, model, seconds), encoding="utf-8")
        print(f"wrote {path}")
    return 12 if any(r.verdict == "violated" for r in results) else 0


if __name__ == "__main__":
    main()  # only checks/cli.py sets the exit code (tests/test_layering.py); main() returns it
