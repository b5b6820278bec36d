"""Regenerates the engine acceptance scenarios of this directory (docs/engines.md).

Each situation read from an engine's tests or code is a goal: the last step of a game (an action, with
conditions on the state before or after it). The shortest game of the engine's embedded profile that
reaches it is found by breadth-first search over the compiled rules, replayed through the reference
semantics, and written with a header citing the engine's repository, file and commit; the expectation
is the values the situation is about (or, for a move the engine refuses, `blocked_at`). Existing files
are kept: delete one to regenerate it. Run from the repository root:

    python scenarios/engines/generate.py
"""
from __future__ import annotations

import collections
import dataclasses
from pathlib import Path

from checks.formats.scenario import dump, trace_to_scenario
from model.compile import CompiledModel
from model.domains import IntRange
from model.moritani import GAME
from model.trace import Step, Trace

def find(model, goal, max_states=2_000_000):
    """The shortest game whose last step satisfies goal(model, label, pre, post), or None."""
    cm = CompiledModel.build(model)
    acts = model.actions
    parent = {}
    q = collections.deque()
    for s in model.init:
        parent[s] = None; q.append(s)
    while q:
        s = q.popleft()
        for i, t in cm.successors(s):
            if goal(model, acts[i].label, s, t):
                path = [(acts[i].label, t)]
                cur = s
                while parent[cur] is not None:
                    p, lab = parent[cur]
                    path.append((lab, cur)); cur = p
                path.reverse()
                return Trace(cur, tuple(Step(l, st) for l, st in path))
            if t not in parent:
                parent[t] = (s, acts[i].label); q.append(t)
                if len(parent) > max_states: return None
    return None

OUT = Path("scenarios/engines")
Q = ("Quintine/Dune", "https://github.com/Quintine/Dune")
T = ("treachery.online", "https://github.com/ronaldossendrijver/treachery.online")

def slotval(model, s, name):
    i = model.schema.slot_names.index(name)
    v = s[i]
    return v if isinstance(model.schema.slot_fields[i].domain, IntRange) else model.schema.show(i, v)

def gen(spec):
    if (OUT / spec["file"]).exists():  # never overwrite a kept file (and do not search for it): delete it to regenerate
        return OUT / spec["file"], None
    prof = GAME.profiles[spec["profile"]]
    bounds = dataclasses.replace(prof.bounds, **spec.get("bounds", {}))
    prop = dataclasses.replace(prof, bounds=bounds, defects=tuple(spec.get("defects", ())))
    model = GAME.build(prop)
    tr = find(model, spec["goal"])
    assert tr is not None, spec["file"]
    assert not tr.replay(model), spec["file"]
    final = tr.steps[-1].state if tr.steps else tr.init
    if "blocked" in spec:
        label = spec["blocked"](model, final) if callable(spec["blocked"]) else spec["blocked"]
        expect = {"blocked_at": len(tr.steps) + 1}
    elif "violates" in spec:
        expect = {"violates": spec["violates"]}
    else:
        expect = {"reachable": True} if not spec.get("values") else {}
        if spec.get("values"):
            expect["values"] = {n: slotval(model, final, n) for n in spec["values"]}
    doc = trace_to_scenario(model, tr, prop, spec["title"], expect, spec["cites"])
    if "blocked" in spec:
        doc["steps"].append({"do": label, "says": spec["blocked_says"]})
    # Only what differs from the engine's embedded profile: the profile name is the base (docs/scenario-format.md).
    doc["setup"]["proposal"] = {"name": spec["profile"]} | ({"bounds": {k: _plain(v) for k, v in spec["bounds"].items()}}
                                                           if spec.get("bounds") else {})
    if spec.get("defects"):  # an engine's deviation (model/moritani/deviations.py): its seeded defect, built in
        doc["setup"]["defects"] = list(spec["defects"])
    engine, url = spec["engine"]
    head = [f"# {spec['title']}", f"# Derived from {engine} ({url}), commit {spec['commit']}:",
            f"#   {spec['source']}"] + [f"# {line}" for line in spec["why"]] + [
            "# Replayed under the engine's embedded profile; generated as the shortest game (tests/test_engines.py",
            "# replays every file here, and so does `rulecheck check --proposal <profile> --scenarios scenarios/`)."]
    text = "\n".join(head) + "\n" + dump(doc)
    path = OUT / spec["file"]
    if path.exists():  # never overwrite a kept file: delete it first to regenerate it
        return path, None
    path.write_text(text)
    return path, len(tr.steps)

def _plain(v):
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


def raw(m, s, name):
    return s[m.schema.slot_names.index(name)]
def lab(m, s, name):
    i = m.schema.slot_names.index(name)
    return m.schema.show(i, s[i])
def fired(prefix, cond=lambda m, pre, post: True):
    exact = prefix == "decline"
    return lambda m, label, pre, post: (label == prefix if exact else label.startswith(prefix)) and cond(m, pre, post)

QC = "0040ed192183ce5723b1b775287335aad5fe7d8b (docs/RULE_DECISIONS.md, 8 Oct 2026; each test file at the commit named)"
TC = "5e6a9440b144e79e25bb793dd5d7436648c74f1d"
NOALLY = {"alliances": (("Moritani", "Ecaz"),)}
QUINTINE = dict(engine=Q, commit=QC, profile="quintine")
TREACHERY = dict(engine=T, commit=TC, profile="treachery-online")

# Situations both engines were read for: one goal each, shared by the two specs.
ATREIDES_SHIPS_PAST_ROBBERY = fired("decline", lambda m, pre, post: lab(m, pre, "entry_cause") == "shipment"
                                    and lab(m, pre, "entrant") == "Atreides" and lab(m, pre, "entry_face") == "Robbery")
ROBBERY_OF_THREE = fired("rob_spice", lambda m, pre, post: raw(m, pre, "spice[Atreides]") == 3)
ECAZ_DECLINED = fired("decline", lambda m, pre, post: lab(m, pre, "entrant") == "Ecaz")
ECAZ_UNALLIED = {"alliances": (("Atreides", "Bene Gesserit"),),
                 "forces": (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 1, 0))}

def face_offer(m, s):
    return f"offer_alliance_{raw(m, s, 'entry_face')}(e={lab(m, s, 'entrant')})"

specs = [
 # ---------------- Quintine/Dune ----------------
 dict(file="quintine-shipment-opens-terror-decline-keeps-token.scenario.yaml", **QUINTINE,
      title="quintine: a rival's shipment opens Moritani's private Terror decision; declining keeps the token hidden",
      source='tests/moritani-entry.test.ts (at 28ba1618/745e4fa8), "shipment opens a private Terror choice after settlement and decline survives reload without replay"',
      why=["The shipment settles (paid, forces placed) before the decision opens; a decline changes nothing else."],
      cites=["R11", "R13", "R17"], goal=ATREIDES_SHIPS_PAST_ROBBERY,
      values=["tstatus[Robbery]", "spice[Atreides]", "forces[Atreides][Arrakeen]"]),
 dict(file="quintine-ally-does-not-trigger.scenario.yaml", **QUINTINE,
      title="quintine: Moritani's ally ships into a stronghold with a token and no Terror decision opens",
      source='tests/moritani-entry.test.ts, "Moritani and its ally do not trigger Terror when shipping"',
      why=["Ecaz (Moritani's ally in these bounds) ships where a token lies: the arrival settles with nothing owed."],
      cites=["R12"], bounds={"forces": (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 1, 0))},
      goal=fired("arrival_settled", lambda m, pre, post: lab(m, pre, "entrant") == "Ecaz"
                 and any(lab(m, pre, f"tloc[{k}]") == lab(m, pre, "entry_loc") and lab(m, pre, f"tstatus[{k}]") == "placed"
                         for k in ("Robbery", "Sabotage"))),
      values=["tstatus[Robbery]", "tstatus[Sabotage]", "forces[Ecaz][Arrakeen]"]),
 dict(file="quintine-robbery-half-rounded-up.scenario.yaml", **QUINTINE,
      title="quintine: Robbery takes half the entrant's spice, rounded up, once",
      source='tests/moritani-entry.test.ts, "Robbery transfers half the entrant spice rounded up exactly once after reload"',
      why=["Atreides starts with 4 spice and pays 1 to ship: Robbery takes 2 of its 3 (half, rounded up)."],
      cites=["R38"], bounds={"spice": 4},
      goal=ROBBERY_OF_THREE,
      values=["spice[Atreides]", "spice[Moritani]", "tstatus[Robbery]"]),
 dict(file="quintine-robbery-card-full-hand-discards.scenario.yaml", **QUINTINE,
      title="quintine: Robbery lets a full hand draw, then Moritani discards down to its limit",
      source='tests/moritani-entry.test.ts, "Robbery permits a full hand to draw before requiring a chosen private discard"',
      why=["Moritani starts at its hand limit (3 here); it draws the top card, then discards one of its choice."],
      cites=["R38", "R5"], goal=fired("robbery_discard"), values=["hand[Moritani]", "tstatus[Robbery]"]),
 dict(file="quintine-sabotage-discard-and-gift.scenario.yaml", **QUINTINE,
      title="quintine: Sabotage discards one random card of the entrant, then Moritani may give it a card",
      source='tests/moritani-entry.test.ts, "Sabotage discards a victim card once, conceals it from opponents and allows an optional gift"',
      why=["Atreides holds 1 card: it loses it to the random discard, then receives one of Moritani's 3."],
      cites=["R40", "A12"], goal=fired("gift_card"), values=["hand[Atreides]", "hand[Moritani]", "tstatus[Sabotage]"]),
 dict(file="quintine-movement-triggers.scenario.yaml", **QUINTINE,
      title="quintine: moving a force into a stronghold with a token is an entry that opens the Terror decision",
      source='tests/moritani-entry.test.ts, "normal movement triggers after moving forces once, while an internal sector move does not enter a territory"',
      why=["Atreides moves its open-desert force into the token's stronghold: the decision opens with cause movement."],
      cites=["R11", "R17", "A24"], goal=fired("open_terror", lambda m, pre, post: lab(m, pre, "entry_cause") == "movement"),
      values=["stage", "entry_cause", "forces[Atreides][open desert]"]),
 dict(file="quintine-bg-accompanying-advisor-is-an-entry.scenario.yaml", **QUINTINE,
      title="quintine: a BG accompanying advisor is a separate entry by BG that opens its own Terror decision",
      source='tests/moritani-entry.test.ts, "Bene Gesserit accompanied advisor arrival triggers Terror without changing it into a fighter"',
      why=["BG is not Moritani's ally: its free advisor landing in the token's stronghold earns a Terror decision (cause advisor, A25)."],
      cites=["A25", "R17"], goal=fired("open_", lambda m, pre, post: lab(m, post, "entry_cause") == "advisor"
                                       and lab(m, post, "entrant") == "Bene Gesserit" and lab(m, post, "stage") == "terror"),
      values=["entrant", "entry_cause", "spice[Bene Gesserit]"]),
 dict(file="quintine-eome-karama-window-before-reply.scenario.yaml", **QUINTINE,
      title="quintine: the Enemy of My Enemy offer opens a public Karama window before only the entrant may reply",
      source='tests/moritani-alliance.test.ts (745e4fa8), "Enemy of My Enemy opens a public Karama opportunity before allowing only the entrant to reply"',
      why=["After everyone lets the offer stand, the entrant's reply is the next decision (A4 before-reply)."],
      cites=["R19", "A4"], goal=fired("no_karama_eome"), values=["stage", "karama[Atreides]"]),
 dict(file="quintine-eome-accepted-token-returns-hidden.scenario.yaml", **QUINTINE,
      title="quintine: an accepted Enemy of My Enemy allies the two and returns the token unrevealed; the shipment is not refunded",
      source='tests/moritani-alliance.test.ts (745e4fa8), "acceptance outside Nexus joins both factions and returns the token hidden without repeating shipment"',
      why=["Atreides keeps its force in the stronghold and the spice it paid; the token goes back to supply with fresh IDs."],
      cites=["R20", "H12", "H21"], goal=fired("accept_alliance", lambda m, pre, post: lab(m, pre, "entry_cause") == "shipment"
                                                              and lab(m, pre, "entrant") == "Atreides"),
      values=["ally[Moritani]", "ally[Atreides]", "spice[Atreides]", "forces[Atreides][Arrakeen]"]),
 dict(file="quintine-eome-refused-must-reveal.scenario.yaml", **QUINTINE,
      title="quintine: after a refused Enemy of My Enemy offer Moritani must reveal; declining is refused",
      source='tests/moritani-alliance.test.ts (745e4fa8), "refusing an offered alliance immediately reveals Robbery and does not restore the optional decline"',
      why=["The refusal makes the reveal mandatory (R21): the decline that was legal before the offer is not."],
      cites=["R21", "H24"], goal=fired("refuse_alliance"), blocked="decline",
      blocked_says="Moritani tries to decline after the refusal (refused: the reveal is mandatory)"),
 dict(file="quintine-karama-blocks-a-second-offer.scenario.yaml", **QUINTINE,
      title="quintine: Karama cancels the Enemy of My Enemy offer and blocks a repeated offer for this entry",
      source='tests/moritani-alliance.test.ts (745e4fa8), "Karama cancels the alliance offer while preserving reveal or decline and blocking repeated offers"',
      why=["After the Karama the decision is open again with the alliance blocked: a new offer is refused."],
      cites=["R30", "H8"], goal=fired("karama_eome"), blocked=face_offer,
      blocked_says="Moritani offers the alliance again (refused: blocked for this entry)"),
 dict(file="quintine-karama-then-decline.scenario.yaml", **QUINTINE,
      title="quintine: after Karama cancels the offer, Moritani may still decline and the token stays hidden",
      source='tests/moritani-alliance.test.ts (745e4fa8), "Karama cancels the alliance offer while preserving reveal or decline and blocking repeated offers"',
      why=["The Karama'd offer restores the ordinary choice: decline keeps the token placed and hidden."],
      cites=["R30", "R13"], goal=fired("decline", lambda m, pre, post: raw(m, pre, "eome_blocked") == 1),
      values=["karama[Atreides]", "eome_blocked"]),
 dict(file="quintine-no-offer-to-ecaz.scenario.yaml", **QUINTINE,
      title="quintine: Ecaz entering a token's stronghold cannot be offered Enemy of My Enemy",
      source='tests/moritani-alliance.test.ts (745e4fa8), "Ecaz entrants cannot be offered Enemy of My Enemy"',
      why=["Ecaz is not Moritani's ally here; its entry opens the decision, whose only choices are to reveal or decline:",
           "the model has no offer action for Ecaz at all (the offer's guard excludes it, so grounding drops it)."],
      cites=["R19", "H23"], bounds=ECAZ_UNALLIED,
      goal=ECAZ_DECLINED,
      values=["entrant", "ally[Moritani]", "ally[Ecaz]"]),
 dict(file="quintine-eome-extortion-refusal-reserves-five.scenario.yaml", **QUINTINE,
      title="quintine: a refused offer on Extortion reveals it and sets 5 spice aside for the next Mentat",
      source='tests/moritani-alliance.test.ts (745e4fa8), "Extortion refusal reserves the award while acceptance returns the token without collecting it"',
      why=["Refusal forces the reveal; Extortion's 5 are reserved, not yet Moritani's spendable spice."],
      cites=["R21", "R37"], goal=fired("reveal_extortion", lambda m, pre, post: raw(m, pre, "eome_refused") == 1),
      values=["tstatus[Extortion]", "ext_reserved", "spice[Moritani]"]),
 dict(file="quintine-assassination-kills-one-leader.scenario.yaml", **QUINTINE,
      title="quintine: Assassination kills exactly one living leader of the entrant; Moritani gains its strength",
      source='tests/moritani-force-leader.test.ts (3bebc68c), "Assassination selects exactly one live ordinary leader, spends its token and leaves the client no victim choice"',
      why=["One leader goes to the Tanks; the bank pays Moritani the leader's strength; the token is spent."],
      cites=["R35", "H31"], goal=fired("assassinate("),
      values=["spice[Moritani]", "tstatus[Assassination]", "leader[Atreides][leader 1 (strength 5)]",
              "leader[Atreides][leader 2 (strength 2)]"]),
 dict(file="quintine-assassination-empty-pool-gated.scenario.yaml", **QUINTINE,
      title="quintine: with no living leader in the entrant's pool the Assassination reveal is refused",
      source='tests/moritani-force-leader.test.ts (3bebc68c), "Assassination pays three for Zoal but leaves unaudited empty live-leader pools unchanged"',
      why=["Atreides has no living leader: the reveal is rejected and the token stays placed (A11 gated)."],
      cites=["A11", "R35"], bounds={"leaderless": ("Atreides",)},
      goal=fired("open_terror(k=Assassination)", lambda m, pre, post: lab(m, post, "entrant") == "Atreides"),
      blocked="reveal_assassination(e=Atreides)", blocked_says="Moritani reveals Assassination (refused: no living leader)"),
 dict(file="quintine-sneak-attack-five-free.scenario.yaml", **QUINTINE,
      title="quintine: Sneak Attack sends up to five reserves for free",
      source='tests/moritani-force-leader.test.ts (3bebc68c), "Sneak Attack deploys up to five reserves for free and does not consume ordinary shipment or movement"',
      why=["Moritani sends all 5 of its reserves; its spice does not change."],
      cites=["R41"], bounds={"moritani_forces": 5}, goal=fired("sneak_attack(n=5"),
      values=["reserves[Moritani]", "spice[Moritani]", "tstatus[Sneak Attack]"]),
 dict(file="quintine-sneak-attack-two-enemies-block.scenario.yaml", **QUINTINE,
      title="quintine: with two other factions in the stronghold a positive Sneak Attack is refused (zero is still legal)",
      source='tests/moritani-force-leader.test.ts (3bebc68c), "Sneak Attack respects storm, printed sector, and two-enemy stronghold occupancy"',
      why=["Atreides and BG (not allied here) both stand in the stronghold: one force would make a third faction."],
      cites=["R41", "H32", "A31"], bounds=NOALLY,
      goal=fired("reveal_sneak_attack", lambda m, pre, post: sum(raw(m, pre, f"forces[{f}][{lab(m, pre, 'entry_loc')}]") > 0
                                                                  for f in ("Atreides", "Bene Gesserit")) == 2),
      blocked=lambda m, s: f"sneak_attack(n=1, l={lab(m, s, 'entry_loc')})",
      blocked_says="Moritani sends 1 force (refused: two other factions are there)"),
 dict(file="quintine-extortion-paid-removes-token.scenario.yaml", **QUINTINE,
      title="quintine: at Mentat, after the placement, a rival pays 3 to Moritani and Extortion leaves the game",
      source='tests/moritani-extortion-engine.test.ts (745e4fa8), "real entry reserves five, then placement precedes one Mentat award and storm-order payer choices"',
      why=["Placement (A5 placement-first) then the +5 award, then payers in storm order; one payment ends it."],
      cites=["R37", "A5", "A8"], goal=fired("pay_extortion"), values=["tstatus[Extortion]", "ext_reserved"]),
 dict(file="quintine-extortion-all-pass-returns.scenario.yaml", **QUINTINE,
      title="quintine: when every rival passes, Extortion returns to supply with fresh public IDs",
      source='tests/moritani-extortion-engine.test.ts (745e4fa8), "all players including an ally and an insolvent payer get a decline; all pass returns and rotates hidden supply"',
      why=["Each rival, Moritani's ally included, is asked; after the last pass the token is back in supply."],
      cites=["R37", "A8", "H12"], goal=fired("recover_extortion"), values=["tstatus[Extortion]", "ext_reserved"]),
 dict(file="quintine-atomics-kills-every-force.scenario.yaml", **QUINTINE,
      title="quintine: Atomics kills every force in the stronghold, Moritani's own included, and leaves the Aftermath",
      source='tests/moritani-atomics.test.ts (66a427ab), "no ally at activation: all owners lose typed forces in the territory, not elsewhere"',
      why=["Moritani has a force there from an earlier Sneak Attack; it dies with the entrant's."],
      cites=["R36", "H16"], goal=fired("reveal_atomics", lambda m, pre, post: raw(m, pre, f"forces[Moritani][{lab(m, pre, 'entry_loc')}]") > 0),
      values=["aftermath", "tanks[Moritani]"]),
]

tspecs = [
 dict(file="treachery-pass-keeps-token.scenario.yaml", **TREACHERY,
      title="treachery-online: a non-ally's shipment queues Terror; Moritani passes and the token stays",
      source="Shared/Game_Move.cs:833-843 (the trigger), Shared/Events/TerrorRevealed.cs:146-152 (pass)",
      why=["The arrival queues the Terror check; passing removes it from the queue and leaves the token placed."],
      cites=["R11", "R13"], goal=ATREIDES_SHIPS_PAST_ROBBERY,
      values=["tstatus[Robbery]", "spice[Atreides]", "forces[Atreides][Arrakeen]"]),
 dict(file="treachery-eome-accepted-breaks-both-alliances.scenario.yaml", **TREACHERY,
      title="treachery-online: an accepted Enemy of My Enemy breaks both earlier alliances and allies the two",
      source="Shared/Events/AllianceByTerror.cs:37-78, Shared/Game_Alliances.cs:45-64",
      why=["Moritani-Ecaz and Atreides-BG are broken; Moritani and Atreides are allied; the token goes back to supply."],
      cites=["R20", "H21"], goal=fired("accept_alliance", lambda m, pre, post: lab(m, pre, "entrant") == "Atreides"),
      values=["ally[Moritani]", "ally[Atreides]", "ally[Ecaz]", "ally[Bene Gesserit]"]),
 dict(file="treachery-eome-refused-must-reveal.scenario.yaml", **TREACHERY,
      title="treachery-online: after a refusal Moritani may no longer pass; it must reveal",
      source="Shared/Events/AllianceByTerror.cs:72-75, Shared/Events/TerrorRevealed.cs:74, 88-91",
      why=["The refusal returns play to the Terror decision with passing refused."],
      cites=["R21", "H24"], goal=fired("refuse_alliance"), blocked="decline",
      blocked_says="Moritani tries to pass after the refusal (refused)"),
 dict(file="treachery-no-offer-to-ecaz.scenario.yaml", **TREACHERY,
      title="treachery-online: Ecaz entering a token's stronghold cannot be offered Enemy of My Enemy",
      source="Shared/Events/TerrorRevealed.cs:93-99 (MayOfferAlliance excludes an Ecaz entrant)",
      why=["Ecaz (not Moritani's ally here) enters: Moritani may reveal or pass; the model has no offer action for Ecaz."],
      cites=["R19", "H23"], bounds=ECAZ_UNALLIED,
      goal=ECAZ_DECLINED,
      values=["entrant", "ally[Moritani]", "ally[Ecaz]"]),
 dict(file="treachery-assassination-fizzles.scenario.yaml", **TREACHERY,
      title="treachery-online: Assassination revealed against an entrant with no living leader fizzles; the token is spent",
      source="Shared/Events/TerrorRevealed.cs:165, 173-187",
      why=["The reveal is not gated (A11 fizzles): nobody dies, Moritani gains nothing, the token leaves the board."],
      cites=["A11", "R35"], bounds={"leaderless": ("Atreides",)}, goal=fired("assassination_fizzles"),
      values=["tstatus[Assassination]", "spice[Moritani]", "leader[Atreides][leader 1 (strength 5)]"]),
 dict(file="treachery-assassination-kills-one-leader.scenario.yaml", **TREACHERY,
      title="treachery-online: Assassination kills one random living leader; Moritani gains its value",
      source="Shared/Events/TerrorRevealed.cs:173-187",
      why=["The victim's revival cost (its strength, for these leaders) goes to Moritani."],
      cites=["R35"], goal=fired("assassinate("),
      values=["spice[Moritani]", "tstatus[Assassination]", "leader[Atreides][leader 1 (strength 5)]"]),
 dict(file="treachery-movement-into-aftermath-allowed.scenario.yaml", **TREACHERY,
      title="treachery-online: the Atomics Aftermath blocks shipment but not movement",
      source="Shared/Events/TerrorRevealed.cs:189-202; Shared/Events/Shipment.cs:331 (shipment blocked); no Aftermath check in movement",
      why=["After Atomics in a stronghold, a force may still move into it from the open desert."],
      cites=["R36", "A23"], goal=fired("move(", lambda m, pre, post: lab(m, post, "aftermath") != "none"
                                       and lab(m, post, "entry_loc") == lab(m, post, "aftermath")),
      values=["aftermath", "entry_cause"]),
 dict(file="treachery-extortion-paid-to-moritani.scenario.yaml", **TREACHERY,
      title="treachery-online: a rival pays 3 spice to Moritani and Extortion leaves the game",
      source="Shared/Events/ExtortionPrevented.cs:33-52 (paid to Moritani since issue #36)",
      why=["At the next Mentat (Extortion before placement, A5 extortion-first) a rival pays 3; the token never returns."],
      cites=["R37", "A5", "A8"], goal=fired("pay_extortion"), values=["tstatus[Extortion]", "ext_reserved"]),
 dict(file="treachery-extortion-nobody-pays-returns.scenario.yaml", **TREACHERY,
      title="treachery-online: when nobody pays, Extortion returns to Moritani's unplaced tokens",
      source="Shared/Game_Contemplate.cs:72-122",
      why=["Moritani gains the 5 first, then the payment window; with no payment the token is back in supply."],
      cites=["R37", "A5"], goal=fired("recover_extortion"), values=["tstatus[Extortion]", "ext_reserved"]),
 dict(file="treachery-robbery-half-rounded-up.scenario.yaml", **TREACHERY,
      title="treachery-online: Robbery takes half the entrant's spice, rounded up",
      source="Shared/Events/TerrorRevealed.cs:210-224",
      why=["Atreides starts with 4 spice and pays 1 to ship: ceil(3/2) = 2 moves to Moritani."],
      cites=["R38"], bounds={"spice": 4},
      goal=ROBBERY_OF_THREE,
      values=["spice[Atreides]", "spice[Moritani]"]),
 dict(file="treachery-robbery-card-then-discard.scenario.yaml", **TREACHERY,
      title="treachery-online: Robbery's card option draws the top card, then Moritani discards down to its limit",
      source="Shared/Events/TerrorRevealed.cs:212-215, 259; Shared/Game_Move.cs:214-219",
      why=["Moritani starts at its limit (3 here), draws to 4, then discards a card of its choice."],
      cites=["R38", "R5"], goal=fired("robbery_discard"), values=["hand[Moritani]"]),
 dict(file="treachery-sabotage-discard-then-gift.scenario.yaml", **TREACHERY,
      title="treachery-online: Sabotage discards one random card of the entrant, then Moritani gives one",
      source="Shared/Events/TerrorRevealed.cs:226-242",
      why=["The random discard comes before the gift, so the victim's hand never grows past where it was."],
      cites=["R40", "A12"], goal=fired("gift_card"), values=["hand[Atreides]", "hand[Moritani]"]),
 dict(file="treachery-sneak-attack-two-others-block.scenario.yaml", **TREACHERY,
      title="treachery-online: a positive Sneak Attack into a stronghold two other factions hold is illegal",
      source="Shared/Events/TerrorRevealed.cs:116-134; Shared/Game.cs:951-959",
      why=["Atreides and BG fighters (not allied here) are both there; sending 0 stays legal."],
      cites=["R41", "H32", "A31"], bounds=NOALLY,
      goal=fired("reveal_sneak_attack", lambda m, pre, post: raw(m, pre, f"forces[Atreides][{lab(m, pre, 'entry_loc')}]") > 0
                 and raw(m, pre, f"forces[Bene Gesserit][{lab(m, pre, 'entry_loc')}]")
                 > raw(m, pre, f"advisors[{lab(m, pre, 'entry_loc')}]")),
      blocked=lambda m, s: f"sneak_attack(n=1, l={lab(m, s, 'entry_loc')})",
      blocked_says="Moritani sends 1 force (refused: two other factions are there)"),
 dict(file="treachery-ambassador-before-terror.scenario.yaml", **TREACHERY,
      title="treachery-online: on one arrival the Ecaz Ambassador resolves before Terror (fixed order, A2)",
      source="Shared/Game_Move.cs:790-796 (queue: BG Intrusion, Ambassador, Terror), 845-857 (FIFO)",
      why=["An arrival into the Ambassador's stronghold where a token lies owes both; the Ambassador goes first."],
      cites=["A2", "R11"], goal=fired("resolve_ambassador", lambda m, pre, post: raw(m, pre, "pend_terror") == 1),
      values=["stage", "pend_terror"]),
 dict(file="treachery-terror-before-accompaniment.scenario.yaml", **TREACHERY,
      title="treachery-online: Terror resolves before BG's accompanying advisor (accompaniment comes last)",
      source="Shared/Game_Move.cs:384-395 (accompaniment only once no intrusion is left); Shared/Events/BlueAccompanies.cs:59-80",
      why=["A shipment that owes Terror and a BG accompaniment: the Terror decision opens while the advisor waits (A1 terror-first).",
           "BG is unallied here: treachery.online never lets BG accompany its ally's shipment with Moritani's ruleset (issue 33)."],
      cites=["A1", "A25"], bounds=NOALLY, goal=fired("open_terror", lambda m, pre, post: raw(m, pre, "pend_advisor") > 0),
      values=["stage", "pend_advisor"]),
 dict(file="treachery-sneak-attack-never-accompanied.scenario.yaml", **TREACHERY,
      title="treachery-online: a positive Sneak Attack never offers BG accompaniment",
      source="Shared/Events/TerrorRevealed.cs:244-251 (no BlueMayAccompany), compare Shared/Events/Shipment.cs:584",
      why=["BG still has a force in reserve, yet nothing is owed after Moritani's forces arrive (A14 not-shipment)."],
      cites=["A14", "A25", "R41"], goal=fired("sneak_attack(n=2", lambda m, pre, post: raw(m, pre, "reserves[Bene Gesserit]") >= 1
                 and raw(m, pre, "pend_advisor") == 0),
      values=["pend_advisor", "reserves[Bene Gesserit]"]),
]

tspecs += [
 dict(file="treachery-karama-prevents-offers-for-the-phase.scenario.yaml", **TREACHERY,
      title="treachery-online: a Karama played before Moritani decides prevents Enemy of My Enemy for the rest of the phase",
      source="Shared/Events/Karma.cs:216-221 (CyanEnemyOfEnemy), Shared/Game.cs:299-312, 583-587 (cleared at the phase end), TerrorRevealed.cs:93-99",
      why=["Atreides plays Karama during Shipment & Movement; at the next Terror decision of that phase the offer is refused."],
      cites=["R30", "A4"], goal=fired("open_terror", lambda m, pre, post: raw(m, post, "eome_prevented") == 1
                                       and lab(m, post, "entrant") == "Atreides"),
      blocked=face_offer, blocked_says="Moritani offers Atreides an alliance (refused: Karama prevented it this phase)"),
 dict(file="treachery-offer-made-karama-too-late.scenario.yaml", **TREACHERY,
      title="treachery-online: once the offer stands, Karama cannot undo it; the entrant's reply comes next",
      source="Shared/Events/AllianceByTerror.cs:28-31 (the reply is not re-checked), Shared/Events/Karma.cs:218",
      why=["No Karama window follows the offer: playing Karama now is not an action, and the entrant accepts."],
      cites=["R30", "A4"], goal=fired("offer_alliance", lambda m, pre, post: raw(m, post, "karama[Atreides]") == 1
                                       and lab(m, post, "entrant") == "Atreides"),
      blocked="karama_eome_preempt(f=Atreides)", blocked_says="Atreides plays Karama on the standing offer (refused)"),
]

def _lone_advisors(m, s, l):
    return raw(m, s, f"forces[Bene Gesserit][{l}]") > 0 and raw(m, s, f"advisors[{l}]") == raw(m, s, f"forces[Bene Gesserit][{l}]")

tspecs += [
 dict(file="treachery-sneak-attack-beside-lone-advisors.scenario.yaml", **TREACHERY,
      title="treachery-online: BG advisors alone do not occupy, so a positive Sneak Attack may join the entrant beside them",
      source="Shared/Model/Battalion.cs:37 (CanOccupy), Shared/Game.cs:951-959 (IsNotFull), Shared/Events/TerrorRevealed.cs:128",
      why=["The stronghold holds the entrant and BG advisors only: one occupant besides Moritani, so Moritani sends a force."],
      cites=["R41", "R25", "A25"],
      goal=fired("sneak_attack(n=1", lambda m, pre, post: _lone_advisors(m, pre, lab(m, pre, "entry_loc"))
                 and lab(m, pre, "entrant") != "Bene Gesserit"),
      values=["advisors[Arrakeen]", "forces[Bene Gesserit][Arrakeen]", "forces[Moritani][Arrakeen]"]),
 dict(file="treachery-shipment-beside-lone-advisors.scenario.yaml", **TREACHERY,
      title="treachery-online: a shipment into a stronghold holding one faction and BG advisors alone is legal",
      source="Shared/Model/Battalion.cs:37 (CanOccupy), Shared/Events/Shipment.cs:336, Shared/Game.cs:888-917",
      why=["Atreides and BG's lone advisors stand there; Ecaz ships in as the second occupant (BG advisors do not count)."],
      cites=["R25", "A25"], bounds={"alliances": (("Moritani", "Bene Gesserit"),),
                                    "forces": (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 1, 0))},
      goal=fired("ship(f=Ecaz", lambda m, pre, post: _lone_advisors(m, pre, lab(m, post, "entry_loc"))
                 and any(raw(m, pre, f"forces[{f}][{lab(m, post, 'entry_loc')}]") > 0 for f in ("Atreides",))),
      values=["entry_loc", "advisors[Arrakeen]", "forces[Ecaz][Arrakeen]"]),
]


tspecs += [
 dict(file="treachery-sneak-attack-triggers-ambassador.scenario.yaml", **TREACHERY,
      title="treachery-online: a positive Sneak Attack into the Ecaz Ambassador's stronghold makes the Ambassador react to Moritani",
      source="Shared/Events/TerrorRevealed.cs:244-251 (CheckIntrusion after the Sneak Attack), Shared/Game_Move.cs:821-831",
      why=["Moritani is not Ecaz's ally here; its forces arriving in Carthag by Sneak Attack owe the Ambassador's reaction.",
           "The entrant is Ecaz's ally (Atreides), so the Ambassador has not reacted to it: a triggered Ambassador is set",
           "aside (issue 33), so it must not have reacted to the entry the Sneak Attack answers."],
      cites=["R41", "A14", "A2"], bounds={"alliances": (("Atreides", "Ecaz"),)},
      goal=fired("ambassador_effect(p=Moritani"), values=["spice[Moritani]", "spice[Ecaz]"]),
]

def _new_allies_share(m, s):
    """Moritani and its ally (made this turn) both have forces in Arrakeen."""
    ally = lab(m, s, "ally[Moritani]")
    return (raw(m, s, "allied_this_turn") and ally not in ("none", "Ecaz")
            and raw(m, s, "forces[Moritani][Arrakeen]") > 0 and raw(m, s, f"forces[{ally}][Arrakeen]") > 0)

ONE_STRONGHOLD_THREE_TURNS = {"strongholds": ("Arrakeen",), "ambassador": "Arrakeen", "turns": 3}
specs += [
 dict(file="quintine-new-allies-keep-their-forces-on-the-formation-turn.scenario.yaml", **QUINTINE,
      title="quintine: new allies sharing a stronghold keep their forces through the formation turn (Basic)",
      source='tests/moritani-alliance.test.ts (at 745e4fa8), "new allies survive their current movement finish and must separate on the following turn"',
      why=["Atreides accepts the alliance in Arrakeen beside Moritani's Sneak Attack forces; Shipment & Movement ends "
           "with both still there (allySinceTurn = turn exempts the pair, R26, H22)."],
      cites=["R26", "H22", "A20"], goal=fired("end_shipment_movement", lambda m, pre, post: _new_allies_share(m, pre)),
      values=["ally[Moritani]", "forces[Moritani][Arrakeen]", "forces[Atreides][Arrakeen]", "tanks[Atreides]"]),
 dict(file="quintine-new-allies-separate-on-the-next-turn.scenario.yaml", **QUINTINE,
      title="quintine: a turn after the alliance, the later mover still beside its ally loses its forces there (Basic)",
      source='tests/moritani-alliance.test.ts (at 745e4fa8), "new allies survive their current movement finish and must separate on the following turn"; game/allied-separation.ts (at 7cef1a34) quoteAlliedSeparation',
      why=["Three Shipment & Movement phases on one stronghold: the alliance formed in the second, and in the third the "
           "later mover of the pair ends its turn beside its ally (R26)."],
      cites=["R26", "H22", "A20"], bounds=ONE_STRONGHOLD_THREE_TURNS, goal=fired("separate_allies"),
      values=["ally[Moritani]", "forces[Moritani][Arrakeen]", "forces[Atreides][Arrakeen]", "tanks[Moritani]",
              "tanks[Atreides]"]),
]
tspecs += [
 dict(file="treachery-new-allies-separate-at-once.scenario.yaml", **TREACHERY,
      title="treachery-online: an alliance accepted beside Moritani costs the later mover its forces there at once",
      source="Shared/Game_Move.cs:656-690 (CheckIfForcesShouldBeDestroyedByAllyPresence: the ally has acted, no formation-turn exemption)",
      why=["Atreides accepts in Arrakeen, where Moritani (which moved earlier this turn) stands: when Atreides's turn "
           "ends its forces there go to the Tanks (R27, A20)."],
      cites=["R27", "A20"], goal=fired("separate_allies"),
      values=["ally[Moritani]", "forces[Atreides][Arrakeen]", "tanks[Atreides]", "forces[Moritani][Arrakeen]"]),
]
tspecs += [
 dict(file="treachery-atomics-returns-the-ambassador.scenario.yaml", **TREACHERY,
      title="treachery-online: Atomics in the Ambassador's stronghold returns it; a later arrival there owes it nothing",
      source="Shared/Events/TerrorRevealed.cs:189-193 (Atomics: KillAllForcesIn, KillAmbassadorIn), Shared/Game_Move.cs:221-231, 821-831",
      why=["Atomics struck Carthag, where the Ecaz Ambassador stood; Atreides then moves into Carthag and no Ambassador "
           "reaction is owed (R36)."],
      cites=["R36", "A2"], goal=fired("move(f=Atreides, to=Carthag)", lambda m, pre, post:
                                      lab(m, pre, "aftermath") == "Carthag" and raw(m, post, "pend_ambassador") == 0),
      values=["aftermath", "pend_ambassador", "forces[Atreides][Carthag]"]),
 dict(file="treachery-ecaz-ally-does-not-trigger-the-ambassador.scenario.yaml", **TREACHERY,
      title="treachery-online: Ecaz's ally ships into the Ambassador's stronghold and owes it no reaction",
      source="Shared/Game_Move.cs:821-831 (CheckAmbassadorTriggered: not Ecaz, not Ecaz's ally)",
      why=["Atreides is Ecaz's ally in these bounds; its shipment into Carthag settles with no Ambassador reaction."],
      cites=["A2", "R25"], bounds={"alliances": (("Atreides", "Ecaz"),)},
      goal=fired("ship(f=Atreides, to=Carthag)", lambda m, pre, post: raw(m, post, "pend_ambassador") == 0),
      values=["ally[Ecaz]", "pend_ambassador", "forces[Atreides][Carthag]"]),
 dict(file="treachery-sneak-attack-beside-allied-ecaz.scenario.yaml", **TREACHERY,
      title="treachery-online: a positive Sneak Attack may land beside Moritani's ally Ecaz and the entrant (#105)",
      source="Shared/Game.cs:893-917 (CountDifferentFactions: Ecaz and its ally count once, none when excluded); issue #105, fixed in 4dd532b9",
      why=["Ecaz (Moritani's ally) and Atreides stand in Arrakeen; Ecaz and its ally coexist, so Moritani's forces "
           "may still arrive there."],
      cites=["R41", "R25", "H32"], bounds={"forces": (("Atreides", 1, 1), ("Bene Gesserit", 1, 0), ("Ecaz", 1, 0))},
      goal=fired("sneak_attack(n=1", lambda m, pre, post: raw(m, pre, f"forces[Ecaz][{lab(m, pre, 'entry_loc')}]") > 0
                 and lab(m, pre, "entrant") == "Atreides"),
      values=["forces[Ecaz][Arrakeen]", "forces[Atreides][Arrakeen]", "forces[Moritani][Arrakeen]"]),
]
tspecs += [
 dict(file="treachery-sneak-attack-meets-bg-intrusion.scenario.yaml", **TREACHERY,
      title="treachery-online: Moritani's forces arriving by Sneak Attack beside BG fighters let BG flip them to advisors",
      source="Shared/Game_Move.cs:790-819 (CheckIntrusion: BG Intrusion first; not BG, not BG's ally, BG forces there), "
             "Shared/Events/BlueFlip.cs, Shared/Events/TerrorRevealed.cs:244-251",
      why=["BG's fighter stands in the entered stronghold; the Sneak Attack is an arrival for BG Intrusion (A14 "
           "arrival-checks), and BG flips: its forces there are advisors now and no longer occupy."],
      cites=["A14", "A1", "R25"], goal=fired("intrusion_flip"),
      values=["advisors[Arrakeen]", "forces[Bene Gesserit][Arrakeen]", "forces[Moritani][Arrakeen]"]),
]

# The Nexus card module (model/moritani/nexus.py): Quintine/Dune's choices on nexus-cunning / nexus-betrayal,
# treachery.online's on nexus-treachery.
QN = "5c1c944a4fae0a48dc54dd56007dd8c345e8b289 (docs/NEXUS_MORITANI_RULES.md)"
QG = "1db11a01873a4e7959fa49a10eb07471844ee930 (docs/GRUMMAN_STACKED_TERROR_RULES.md)"
FACES = ("Assassination", "Atomics", "Extortion", "Robbery", "Sabotage", "Sneak Attack")
BETRAYAL_BOUNDS = {"nexus_card": "Atreides", "alliances": (("Moritani", "Ecaz"),)}

def at(m, s, where):
    """Faces placed at `where` in s."""
    return [k for k in FACES if lab(m, s, f"tstatus[{k}]") == "placed" and lab(m, s, f"tloc[{k}]") == where]

def stack_entered(m, s):
    return len(at(m, s, lab(m, s, "entry_loc"))) >= 2

nspecs = [
 dict(file="quintine-cunning-stacks-a-second-token.scenario.yaml", engine=Q, commit=QN, profile="nexus-cunning",
      title="quintine: Nexus Cunning puts a second hidden token where one already lies; the card is spent",
      source='docs/NEXUS_MORITANI_RULES.md, "Resolved effect and ordinary composition" 1-3 (one earned placement, '
             'an existing Terror stack is a legal destination, the card spent once)',
      why=["Moritani (unallied) holds its Nexus card; its second Mentat placement goes onto the first token."],
      cites=["R48", "R47", "H11"], goal=fired("commit_placement", lambda m, pre, post: len(at(m, post, "Arrakeen")) == 2),
      values=["tloc[Assassination]", "tloc[Atomics]", "nexus_holder"]),
 dict(file="quintine-cunning-cancelled-by-karama-spends-the-card.scenario.yaml", engine=Q, commit=QN,
      profile="nexus-cunning",
      title="quintine: Karama cancels a Cunning placement; the opportunity and the Nexus card are both spent",
      source='docs/NEXUS_MORITANI_RULES.md, "One committed native attempt" (if canceled, no token moves and the '
             'attempted opportunity is consumed)',
      why=["Atreides plays Karama on the declared Cunning placement: no token moves, the card is gone."],
      cites=["R48", "R29", "A13"], goal=fired("karama_placement", lambda m, pre, post: lab(m, pre, "nexus_holder") == "none"),
      values=["nexus_holder", "karama[Atreides]", "tstatus[Atomics]", "placement_used"]),
 dict(file="quintine-stack-entry-opens-the-token-moritani-picks.scenario.yaml", engine=Q, commit=QG,
      profile="nexus-cunning",
      title="quintine: an entry into a stack opens the token Moritani picks, not the first one; the other stays",
      source='docs/GRUMMAN_STACKED_TERROR_RULES.md (one candidate chosen privately by the owner at a select stage; '
             'no entry for its neighbours)',
      why=["Both tokens lie in Arrakeen; Moritani picks Atomics (not the first in array order) and reveals it."],
      cites=["R47", "A17", "H10"],
      goal=fired("reveal_atomics", lambda m, pre, post: "Assassination" in at(m, pre, lab(m, pre, "entry_loc"))),
      values=["tstatus[Assassination]", "tstatus[Atomics]", "aftermath"]),
 dict(file="quintine-stack-decline-covers-the-whole-entry.scenario.yaml", engine=Q, commit=QG, profile="nexus-cunning",
      title="quintine: declining on a stack covers the whole entry; the arrival settles with both tokens hidden",
      source='docs/GRUMMAN_STACKED_TERROR_RULES.md (declining covers the whole entry)',
      why=["A rival enters the stack, Moritani declines, and the arrival settles: no second decision opens."],
      cites=["R47", "A17", "R13"], goal=fired("arrival_settled", lambda m, pre, post: stack_entered(m, pre)),
      values=["tstatus[Assassination]", "tstatus[Atomics]", "tloc[Atomics]"]),
 dict(file="quintine-betrayal-returns-a-token-with-fresh-ids.scenario.yaml", engine=Q, commit=QN, profile="nexus-betrayal",
      title="quintine: Nexus Betrayal returns a board token to supply unrevealed; supply IDs rotate; placement unused",
      source='docs/NEXUS_MORITANI_RULES.md, "Opposing Betrayal token return prototype"',
      why=["Atreides (unallied) holds Moritani's Nexus card and plays it on the placed token between actions."],
      cites=["R48", "H4", "H41"], goal=fired("betrayal"),
      values=["tstatus[Assassination]", "pid[Assassination]", "pid[Atomics]", "nexus_holder", "placement_used"]),
 dict(file="quintine-betrayal-waits-for-the-pending-terror-decision.scenario.yaml", engine=Q, commit=QN,
      profile="nexus-betrayal",
      title="quintine: Betrayal cannot interrupt an arrival whose Terror decision is still pending",
      source='docs/NEXUS_MORITANI_RULES.md, "Opposing Betrayal token return prototype" (a clean play boundary; pending '
             'Terror continuations are not interrupted)',
      why=["Bene Gesserit ships into the token's stronghold; while its reactions are pending, Atreides may not play "
           "Betrayal."],
      cites=["R48", "H20"], goal=fired("ship(f=Bene Gesserit", lambda m, pre, post: raw(m, post, "pend_terror") == 1),
      blocked="betrayal(k=Assassination)", blocked_says="Atreides plays Nexus Betrayal (refused: the arrival is pending)"),
 dict(file="treachery-stack-decision-reopens-after-a-reveal.scenario.yaml", engine=T, commit=TC, profile="nexus-treachery",
      title="treachery-online: after a reveal in a stack the Terror decision reopens for the token left",
      source="Shared/Events/TerrorRevealed.cs:167 (the Terror intrusion is dequeued only when no token is left there)",
      why=["Both tokens lie in Arrakeen; Moritani reveals one, and the decision opens again for the other."],
      cites=["R47", "A17"], goal=fired("open_terror", lambda m, pre, post: raw(m, pre, "entry_decisions") >= 1),
      values=["tstatus[Assassination]", "tstatus[Atomics]", "entry_face"]),
 dict(file="treachery-acceptance-returns-the-whole-stack.scenario.yaml", engine=T, commit=TC, profile="nexus-treachery",
      title="treachery-online: an accepted alliance returns every token of the entered stack to supply",
      source="Shared/Events/AllianceByTerror.cs:62-66 (every token in the territory goes back to the supply)",
      why=["The entrant accepts Moritani's offer on a stack of two: both tokens go back, unrevealed."],
      cites=["R47", "A17", "R20"], goal=fired("accept_alliance", lambda m, pre, post: stack_entered(m, pre)),
      values=["tstatus[Assassination]", "tstatus[Atomics]"]),
 dict(file="treachery-betrayal-before-the-terror-decision.scenario.yaml", engine=T, commit=TC, profile="nexus-treachery",
      title="treachery-online: Betrayal takes the token an arrival's Terror decision was owed for; the decision lapses",
      source="Shared/Events/NexusPlayed.cs:190, 242, 472-474 (playable whenever a token is on the planet; the token "
             "goes back to the supply since v169); Shared/Game_Move.cs:343 (a Terror intrusion with no token left is "
             "dequeued)",
      why=["Atreides holds Moritani's Nexus card (bounds); Bene Gesserit ships into the token's stronghold and, before "
           "the decision opens, Atreides returns the token."],
      cites=["R48", "H35"], bounds=BETRAYAL_BOUNDS, goal=fired("lapse_terror"),
      values=["tstatus[Assassination]", "nexus_holder", "pend_terror"]),
]

# The Grumman module (model/moritani/grumman.py): Quintine/Dune's choices on `grumman`; treachery.online's choices on
# the same bounds, where the check departs from the engine (docs/engines.md, "Grumman under treachery.online's choices").
QH = "1db11a01873a4e7959fa49a10eb07471844ee930 (docs/HOMEWORLD_COLLECTION_RULES.md)"
GRUMMAN_TREACHERY = dict(engine=T, commit=TC, profile="treachery-online",
                         bounds={"grumman": True, "strongholds": ("Arrakeen",), "ambassador": None, "moritani_forces": 8,
                                 "forces": (("Atreides", 4, 0), ("Bene Gesserit", 1, 0)), "spice": 4})

def low(m, s):
    return raw(m, s, "reserves[Moritani]") < 8

gspecs = [
 dict(file="quintine-grumman-adds-to-a-stack-for-four-spice.scenario.yaml", engine=Q, commit=QH, profile="grumman",
      title="quintine: on Grumman's high side one Collection operation adds a token to a stack and pays 4 spice",
      source='docs/HOMEWORLD_COLLECTION_RULES.md, "Grumman high Collection opportunity" (one operation, 4 bank '
             'spice atomic with the token change; ordinary Mentat placement still needs an empty destination)',
      why=["Moritani has 8 native reserves; at Spice Collection a second token joins the one in Arrakeen."],
      cites=["R46", "H42", "H11"], goal=fired("grumman_add"),
      values=["tloc[Assassination]", "tloc[Atomics]", "spice[Moritani]", "placement_used"]),
 dict(file="quintine-grumman-low-side-three-forces-open-terror.scenario.yaml", engine=Q, commit=QH, profile="grumman",
      title="quintine: on Grumman's low side an entry of three forces in one group opens the Terror decision",
      source='docs/HOMEWORLD_COLLECTION_RULES.md, "Grumman low entry restriction" (at least three forces enter in one '
             'group)',
      why=["A Sneak Attack has taken Moritani below 8 native reserves; Atreides ships 3 forces into the token's "
           "stronghold."],
      cites=["R45", "H13"], goal=fired("open_terror", lambda m, pre, post: low(m, pre)),
      values=["reserves[Moritani]", "group_of[Atreides]", "entry_face"]),
 dict(file="quintine-grumman-low-side-one-force-opens-nothing.scenario.yaml", engine=Q, commit=QH, profile="grumman",
      title="quintine: on Grumman's low side an entry of fewer than three forces owes no Terror decision",
      source='docs/HOMEWORLD_COLLECTION_RULES.md, "Grumman low entry restriction" (existing presence and separate '
             'entries do not add up)',
      why=["Moritani is below 8 native reserves; a rival ships fewer than 3 forces into the token's stronghold."],
      cites=["R45"], goal=fired("ship(", lambda m, pre, post: low(m, pre) and at(m, post, "Arrakeen")
                                and raw(m, post, "entrant") != 0 and lab(m, post, "ally[Moritani]") != lab(m, post, "entrant")),
      values=["reserves[Moritani]", "entrant", "pend_terror"]),
 dict(file="treachery-grumman-removal-repeats-for-four-each.scenario.yaml", **GRUMMAN_TREACHERY,
      title="treachery-online: in one Spice Collection Moritani removes two tokens, 4 spice each (H42 departs)",
      source="Shared/Events/TerrorPlanted.cs:73-76, 93, 116-120 (removal is offered while a token is on the planet; "
             "no once-per-Collection guard); Shared/Game_Events.cs:464",
      why=["Grumman bounds with treachery.online's choices: both tokens of a stack leave in the same Collection."],
      cites=["R46", "H42", "A18"], goal=fired("grumman_remove", lambda m, pre, post: raw(m, pre, "collection_ops") == 1),
      violates="collection-operation-once"),
 dict(file="treachery-grumman-stack-reopens-after-the-low-side-drop.scenario.yaml", **GRUMMAN_TREACHERY,
      title="treachery-online: a one-force entry's stack decision reopens after Sneak Attack drops Grumman to low",
      source="Shared/Game_Move.cs:837 (the threshold is read when the intrusion is queued); "
             "Shared/Events/TerrorRevealed.cs:167 (the decision reopens while a token is left)",
      why=["A one-force entry into a stack on the high side; Moritani reveals Sneak Attack and falls below 8 "
           "reserves; the decision reopens for the other token (Quintine/Dune reads the current population)."],
      cites=["R45", "H13", "A17"], goal=fired("open_terror", lambda m, pre, post: low(m, pre)),
      violates="low-grumman-threshold"),
 dict(file="treachery-grumman-high-side-placement-onto-a-token.scenario.yaml", **GRUMMAN_TREACHERY,
      title="treachery-online: on Grumman's high side the Mentat placement may go onto a token, for no spice",
      source="Shared/Events/TerrorPlanted.cs:70, 78-81 (MayPlaceAtExistingToken: the high threshold)",
      why=["Moritani has 8 native reserves; its second placement goes onto the first token."],
      cites=["R46", "R47", "H11"], goal=fired("commit_placement", lambda m, pre, post: len(at(m, post, "Arrakeen")) == 2),
      values=["tloc[Assassination]", "tloc[Atomics]", "spice[Moritani]"]),
]

# The worm-ride module (model/moritani/worms.py): both engines count a ride as an entry (A24 every-arrival).
QE = "0040ed192183ce5723b1b775287335aad5fe7d8b (docs/MORITANI_TERROR_RULES.md, entry checkpoint; catalogue R17)"
RIDE_OPENS_TERROR = fired("open_terror", lambda m, pre, post: lab(m, pre, "entry_cause") == "worm ride")
wspecs = [
 dict(file="quintine-worm-ride-opens-terror.scenario.yaml", engine=Q, commit=QE, profile="worm-rides",
      title="quintine: a Fremen worm ride into the token's stronghold is an entry and opens the Terror decision",
      source='docs/MORITANI_TERROR_RULES.md (entry checkpoint: worm rides are entries; catalogue R17)',
      why=["Fremen rides its desert forces into Arrakeen before Shipment & Movement, where Moritani's token lies."],
      cites=["A24", "R17", "R11"], goal=RIDE_OPENS_TERROR, values=["entrant", "entry_cause", "rides"]),
 dict(file="treachery-worm-ride-opens-terror.scenario.yaml", engine=T, commit=TC, profile="treachery-online",
      bounds={"worm_rides": True, "factions": ("Moritani", "Atreides", "Fremen"), "strongholds": ("Arrakeen",),
              "ambassador": None, "alliances": (), "forces": (("Atreides", 1, 1), ("Fremen", 0, 2))},
      title="treachery-online: a worm ride checks intrusions, so it opens the Terror decision",
      source="Shared/Events/YellowRidesMonster.cs:172 (CheckIntrusion after the ride); Shared/Game_Move.cs:790-796",
      why=["Fremen rides its desert forces into Arrakeen, where Moritani's token lies."],
      cites=["A24", "R17"], goal=RIDE_OPENS_TERROR, values=["entrant", "entry_cause", "rides"]),
 dict(file="quintine-worm-rides-continue-after-the-entry.scenario.yaml", engine=Q, commit=QE, profile="worm-rides",
      title="quintine: after a ride's Terror entry is resolved, the ride sequence continues and Fremen rides again",
      source='catalogue H20 (finishTerrorEntry runs nextWormRide exactly once; docs/TERROR_DISCARD_CONTINUATIONS.md)',
      why=["Fremen's first ride opens Terror; once the entry is resolved the rides resume and Fremen rides again."],
      cites=["H20", "A24"], goal=fired("worm_ride", lambda m, pre, post: raw(m, pre, "rides") == 1
                                     and lab(m, pre, "tstatus[Atomics]") != "supply"),
      values=["rides", "entrant"]),
]

# The finite-deck module (model/moritani/deck.py): both engines' Robbery card is the ordinary draw (A16 reshuffle).
QD = "0040ed192183ce5723b1b775287335aad5fe7d8b (catalogue A16: the Robbery card is the ordinary draw)"
ROB_EMPTY = fired("rob_card", lambda m, pre, post: raw(m, pre, "deck") == 0 and raw(m, pre, "discards") == 0)
ROB_RESHUFFLE = fired("rob_card", lambda m, pre, post: raw(m, pre, "deck") == 0 and raw(m, pre, "discards") > 0)
dspecs = [
 dict(file="quintine-robbery-with-both-piles-empty-draws-nothing.scenario.yaml", engine=Q, commit=QD,
      profile="finite-deck",
      title="quintine: the Robbery card option with the deck and the discard pile both empty draws nothing",
      source="catalogue A16 (the ordinary draw; with both piles empty nothing happens and no card is invented)",
      why=["The bidding card emptied the one-card deck; Moritani takes the Robbery card option with nothing to draw."],
      cites=["A16", "R39"], goal=ROB_EMPTY, values=["hand[Moritani]", "deck", "discards"]),
 dict(file="quintine-robbery-reshuffles-the-discard-pile.scenario.yaml", engine=Q, commit=QD, profile="finite-deck",
      title="quintine: the Robbery card option on an empty deck shuffles the discard pile into a new deck",
      source="catalogue A16 (the Robbery card is the ordinary draw, which may refill from the discard pile)",
      why=["The deck is empty and a Sabotage discard lies on the pile; the Robbery card reshuffles it and draws."],
      cites=["A16", "R39", "R40"], goal=ROB_RESHUFFLE, values=["hand[Moritani]", "deck", "discards"]),
 dict(file="treachery-robbery-reshuffles-the-discard-pile.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds={"deck": 1, "bidding": True, "strongholds": ("Arrakeen",),
                                          "ambassador": "Arrakeen"},
      title="treachery-online: the Robbery card draw shuffles the discard pile into an empty deck",
      source="Shared/Game_Bidding.cs:354-374 (DrawTreacheryCard reshuffles); Shared/Events/TerrorRevealed.cs:214",
      why=["The deck is empty and the discard pile holds a card; the Robbery card reshuffles it and draws."],
      cites=["A16", "R39"], goal=ROB_RESHUFFLE, values=["hand[Moritani]", "deck", "discards"]),
]

# The setup module (model/moritani/setup.py): where Moritani's starting forces may go (A27).
QS = "0040ed192183ce5723b1b775287335aad5fe7d8b (docs/CURRENT_STATUS.md, 7 Oct, per catalogue A27)"
sspecs = [
 dict(file="quintine-setup-goes-to-the-unoccupied-stronghold.scenario.yaml", engine=Q, commit=QS,
      profile="moritani-setup",
      title="quintine: Moritani sets up last, in the one stronghold no other faction occupies",
      source="docs/CURRENT_STATUS.md (7 Oct: an unoccupied printed stronghold; catalogue A27, R1)",
      why=["Atreides garrisons Arrakeen, so Moritani's setup force goes to Carthag, beside the Ecaz Ambassador."],
      cites=["R1", "A27"], goal=fired("moritani_setup"), values=["forces[Moritani][Carthag]", "reserves[Moritani]"]),
 dict(file="treachery-setup-in-the-open-desert.scenario.yaml", engine=T, commit=TC, profile="treachery-online",
      bounds={"setup_forces": 1, "moritani_forces": 3, "garrisons": (("Atreides", "Arrakeen", 1),)},
      title="treachery-online: Moritani may set up outside the strongholds, in any territory without forces",
      source="Shared/Events/PerformCyanSetup.cs:49-51 (ValidLocations: any location but the HMS, no forces there)",
      why=["Atreides garrisons Arrakeen; Moritani sets up in the open desert instead of a stronghold."],
      cites=["R1", "A27"], goal=fired("moritani_setup", lambda m, pre, post: raw(m, post, "forces[Moritani][open desert]") > 0),
      values=["forces[Moritani][open desert]", "reserves[Moritani]"]),
]

# Moritani's Homeworld occupied (model/moritani/homeworld.py, R23).
QH = "0040ed192183ce5723b1b775287335aad5fe7d8b (MORITANI_ENEMY_ALLIANCE.md: no alliance with a Homeworld's occupier)"
hspecs = [
 dict(file="quintine-homeworld-occupier-gets-no-alliance-offer.scenario.yaml", engine=Q, commit=QH,
      profile="grumman-occupied",
      title="quintine: the occupier of Moritani's Homeworld opens a Terror decision with no alliance offer",
      source="MORITANI_ENEMY_ALLIANCE.md (Homeworld games: no alliance with a faction occupying one's Homeworld; R23)",
      why=["Bene Gesserit, on Moritani's Homeworld, ships into Arrakeen where a token lies; the decision opens, but "
           "no Enemy of My Enemy offer is possible, so Moritani declines."],
      cites=["R23", "R19"], goal=fired("decline", lambda m, pre, post: lab(m, pre, "entrant") == "Bene Gesserit"),
      values=["entrant", "ally[Moritani]"]),
 dict(file="treachery-homeworld-occupiers-ally-opens-no-terror.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).GRUMMAN_OCCUPIED_BOUNDS),
      title="treachery-online: the Homeworld occupier's ally enters a token's stronghold; no Terror opens",
      source="Shared/Game_Move.cs:833-843 (CheckTerrorTriggered: IsOccupiedByFactionOrTheirAlly(World.Cyan, initiator))",
      why=["Bene Gesserit occupies Moritani's Homeworld and is allied with Atreides; Atreides moves into Arrakeen, "
           "where Moritani's token lies, and the arrival settles without a Terror decision."],
      cites=["R23", "R11"], goal=fired("arrival_settled", lambda m, pre, post: lab(m, pre, "entrant") == "Atreides"
                                      and lab(m, pre, "tstatus[Atomics]") == "placed"),
      values=["entrant", "tstatus[Atomics]"]),
]

# The revival module (model/moritani/revival.py): both engines count a revival onto the planet as an entry (A24).
REVIVAL_OPENS_TERROR = fired("open_terror", lambda m, pre, post: lab(m, pre, "entry_cause") == "revival")
rspecs = [
 dict(file="quintine-revival-onto-the-planet-opens-terror.scenario.yaml", engine=Q, commit=QE, profile="revival",
      title="quintine: a revival onto the planet into the token's stronghold is an entry and opens Terror",
      source="docs/MORITANI_TERROR_RULES.md (entry checkpoint: Homeworld revival is an entry; catalogue R17)",
      why=["Atreides revives its force from the Tanks into Arrakeen, where Moritani's token lies."],
      cites=["A24", "R17"], goal=REVIVAL_OPENS_TERROR, values=["entrant", "entry_cause", "tanks[Atreides]"]),
 dict(file="treachery-revival-onto-the-planet-opens-terror.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).REVIVAL_BOUNDS),
      title="treachery-online: a revival onto the planet checks intrusions, so it opens Terror",
      source="Shared/Events/Revival.cs:578-582 (CheckIntrusion after forces are placed, since version 161)",
      why=["Atreides revives its force from the Tanks into Arrakeen, where Moritani's token lies."],
      cites=["A24", "R17"], goal=REVIVAL_OPENS_TERROR, values=["entrant", "entry_cause", "tanks[Atreides]"]),
]

# The Guild's cross-ship (model/moritani/crossship.py): both engines count a cross-ship from the board as an entry, and
# treachery.online checks no intrusion after a shipment back to reserves (A24, R17).
CROSS_SHIP_OPENS_TERROR = fired("open_terror", lambda m, pre, post: lab(m, pre, "entry_cause") == "cross-ship")
cspecs = [
 dict(file="quintine-cross-ship-opens-terror.scenario.yaml", engine=Q, commit=QE, profile="cross-ship",
      title="quintine: the Guild's cross-ship into the token's stronghold is an entry and opens Terror",
      source="docs/MORITANI_TERROR_RULES.md (entry checkpoint: Guild cross-planet transport is an entry; catalogue R17)",
      why=["The Guild ships a force from the board into the stronghold where Moritani's token lies."],
      cites=["A24", "R17"], goal=CROSS_SHIP_OPENS_TERROR, values=["entrant", "entry_cause", "forces[Guild][open desert]"]),
 dict(file="treachery-cross-ship-opens-terror.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).CROSS_SHIP_BOUNDS),
      title="treachery-online: a site-to-site shipment checks intrusions, so it opens Terror",
      source="Shared/Events/Shipment.cs:481-497 (PerformSiteToSiteShipment, then CheckIntrusion unless back to reserves)",
      why=["The Guild ships a force from the board into the stronghold where Moritani's token lies."],
      cites=["A24", "R17"], goal=CROSS_SHIP_OPENS_TERROR, values=["entrant", "entry_cause", "forces[Guild][open desert]"]),
 dict(file="treachery-shipment-back-to-reserves-opens-nothing.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).CROSS_SHIP_BOUNDS),
      title="treachery-online: the Guild leaves a token's stronghold for its reserves; no Terror opens",
      source="Shared/Events/Shipment.cs:483-497 (a shipment back to reserves moves the forces and checks no intrusion)",
      why=["The Guild ships its force in Tuek's Sietch, where Moritani's token lies, back to its reserves; the turn "
           "passes on with no decision."],
      cites=["R17"], goal=fired("guild_to_reserves", lambda m, pre, post: any(
          lab(m, pre, f"tstatus[{k}]") == "placed" and lab(m, pre, f"tloc[{k}]") == "Tuek's Sietch"
          for k in ("Atomics", "Extortion", "Robbery", "Sneak Attack"))
          and lab(m, post, "stage") == "ship_move"),
      values=["reserves[Guild]", "forces[Guild][Tuek's Sietch]", "stage"]),
]

# Ambassador relocation (model/moritani/relocation.py): both engines count the Fremen Ambassador's move as an entry,
# queued behind the arrival that triggered the Ambassador (A24, A2, H9).
RELOCATION_OPENS_TERROR = fired("open_relocation_entry")
lspecs = [
 dict(file="quintine-ambassador-relocation-opens-terror.scenario.yaml", engine=Q, commit=QE,
      profile="ambassador-relocation",
      title="quintine: the Fremen Ambassador's relocation is an entry, resumed after the arrival's own reactions",
      source="docs/MORITANI_TERROR_RULES.md (entry checkpoint: Fremen Ambassador relocation is an entry; catalogue R17; "
             "finishTerrorEntry resumes the Ambassador continuation)",
      why=["Atreides enters Arrakeen, the Ambassador's stronghold; the Fremen Ambassador moves an Ecaz force into the "
           "stronghold where Moritani's token lies, and Ecaz's decision opens once Atreides' arrival is resolved."],
      cites=["A24", "R17", "H9"], goal=RELOCATION_OPENS_TERROR, values=["entrant", "entry_cause", "relocated"]),
 dict(file="treachery-ambassador-relocation-opens-terror.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).RELOCATION_BOUNDS),
      title="treachery-online: the Fremen Ambassador's move checks intrusions, so it opens Terror",
      source="Shared/Events/AmbassadorActivated.cs:388-391 (Ambassador.Yellow: PerformMoveFromLocations, then "
             "CheckIntrusion)",
      why=["Atreides enters Arrakeen, the Ambassador's stronghold; the Fremen Ambassador moves an Ecaz force into the "
           "stronghold where Moritani's token lies, and Ecaz's Terror decision opens."],
      cites=["A24", "R17"], goal=RELOCATION_OPENS_TERROR, values=["entrant", "entry_cause", "relocated"]),
]

# Issue 33: model bugs found by reading the engines. Each file fails on the model before its fix.
_CROSS = dict(__import__("model.moritani.profiles", fromlist=["x"]).CROSS_SHIP_BOUNDS)
_RELOC = dict(__import__("model.moritani.profiles", fromlist=["x"]).RELOCATION_BOUNDS)
ispecs = [
 dict(file="quintine-cross-ship-from-the-open-desert.scenario.yaml", engine=Q, commit=QE, profile="cross-ship",
      title="quintine: with no storm the Guild cross-ships a force out of the open desert",
      source="docs/MORITANI_TERROR_RULES.md (entry checkpoint: Guild cross-planet transport from the board is an entry; "
             "catalogue R17); the source may be any territory of the board not under the storm",
      why=["No storm is on the board: the Guild's force in the open desert may be shipped into a stronghold. The model "
           "refused it before issue 33 (`storm` = none shared the open desert's index)."],
      cites=["A24", "R17"], goal=fired("guild_cross_ship(frm=open desert"),
      values=["forces[Guild][open desert]", "storm", "entry_cause"]),
 dict(file="treachery-cross-ship-from-the-open-desert.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=_CROSS,
      title="treachery-online: with no storm a site-to-site shipment may leave the open desert",
      source="Shared/Game.cs:946-948 (LocationsWithAnyForcesNotInStorm: every location with forces when no sector is "
             "in storm); Shared/Events/Shipment.cs:433",
      why=["No sector is in storm (`SectorInStorm` = -1): the Guild ships its open-desert force into a stronghold. "
           "The model refused it before issue 33."],
      cites=["A24", "R17"], goal=fired("guild_cross_ship(frm=open desert"),
      values=["forces[Guild][open desert]", "storm", "entry_cause"]),
 dict(file="quintine-relocation-from-the-open-desert.scenario.yaml", engine=Q, commit=QE,
      profile="ambassador-relocation",
      title="quintine: with no storm the Fremen Ambassador moves an Ecaz force out of the open desert",
      source="docs/MORITANI_TERROR_RULES.md (entry checkpoint: Fremen Ambassador relocation is an entry; catalogue R17)",
      why=["Ecaz's only board force stands in the open desert and no storm is on the board: the relocation is legal. "
           "The model refused it before issue 33."],
      cites=["A24", "R17"], goal=fired("ambassador_relocate(frm=open desert"),
      values=["forces[Ecaz][open desert]", "storm"]),
 dict(file="treachery-relocation-from-the-open-desert.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=_RELOC,
      title="treachery-online: with no storm the Fremen Ambassador moves a force out of the open desert",
      source="Shared/Events/AmbassadorActivated.cs:133-134 (Ambassador.Yellow: only a source in storm is refused)",
      why=["Ecaz's force in the open desert moves into a stronghold; no sector is in storm. The model refused it before "
           "issue 33."],
      cites=["A24", "R17"], goal=fired("ambassador_relocate(frm=open desert"),
      values=["forces[Ecaz][open desert]", "storm"]),
]

# The Ecaz Ambassador is set aside once it reacts: a later arrival in its stronghold owes it nothing.
def _second_arrival_at_ambassador(m, label, pre, post):
    return (label.startswith(("ship(", "move(")) and raw(m, pre, "amb_spent") == 1
            and lab(m, post, "entry_loc") == m.vocabulary.bounds.ambassador and lab(m, post, "entrant") != "Ecaz")
ispecs += [
 dict(file="quintine-ambassador-set-aside-after-it-reacts.scenario.yaml", **QUINTINE,
      title="quintine: a triggered Ambassador is set aside; a later arrival in its stronghold owes it nothing",
      source='docs/ECAZ_AMBASSADORS_RULES.md (at 8c709fb5), "Lifecycle (E3 p.7): ... Triggered tokens are set aside"',
      why=["The Ambassador in Carthag reacted to an earlier arrival; a second arrival there opens no Ambassador "
           "reaction and pays Ecaz nothing. Before issue 33 the model kept the Ambassador until Atomics."],
      cites=["A2", "R17"], goal=_second_arrival_at_ambassador, values=["pend_ambassador", "spice[Ecaz]"]),
 dict(file="treachery-ambassador-set-aside-after-it-reacts.scenario.yaml", **TREACHERY,
      title="treachery-online: an activated Ambassador leaves the planet; a later arrival there owes it nothing",
      source="Shared/Events/AmbassadorActivated.cs:285-306 (not passed: AmbassadorsOnPlanet.Remove, then set aside)",
      why=["The Ambassador in Carthag reacted to an earlier arrival; a second arrival there opens no Ambassador "
           "reaction and pays Ecaz nothing. Before issue 33 the model kept the Ambassador until Atomics."],
      cites=["A2", "R17"], goal=_second_arrival_at_ambassador, values=["pend_ambassador", "spice[Ecaz]"]),
]

# treachery.online lifts every prevention when a main phase ends: a Karama against Enemy of My Enemy played at a worm
# ride's Terror decision (Spice Blow) no longer stops an offer in Shipment & Movement. One turn of play (turns 1: a
# Karama spent before an offer in this turn's Shipment & Movement can only have been spent at a ride's decision).
ispecs += [
 dict(file="treachery-ride-karama-lapses-with-the-spice-blow.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=dict(dict(__import__("model.moritani.profiles", fromlist=["x"]).WORM_BOUNDS),
                                              turns=1),
      title="treachery-online: a Karama against the offer at a worm ride's decision lapses when the Spice Blow ends",
      source="Shared/Game.cs:299-312 (MainPhaseEnd: AllowAllPreventedFactionAdvantages); Shared/Events/Karma.cs:216-221 "
             "(CyanEnemyOfEnemy may be prevented in any phase)",
      why=["Atreides plays Karama against Enemy of My Enemy at the Terror decision of a Fremen worm ride; in the "
           "Shipment & Movement that follows, Atreides enters the token's stronghold and Moritani offers the "
           "alliance. Before issue 33 the model kept the offer prevented until Shipment & Movement ended."],
      cites=["R30", "A4"], goal=fired("offer_alliance", lambda m, pre, post: lab(m, pre, "entry_cause") in
                                     ("shipment", "movement") and raw(m, pre, "karama[Atreides]") == 0),
      values=["karama[Atreides]", "entry_cause", "entrant"]),
]

# Forming an alliance discards both partners' Nexus cards in treachery.online.
ispecs += [
 dict(file="treachery-alliance-discards-the-nexus-card.scenario.yaml", engine=T, commit=TC,
      profile="treachery-online", bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).NEXUS_BETRAYAL_BOUNDS),
      title="treachery-online: accepting Moritani's alliance discards the entrant's Nexus card",
      source="Shared/Game_Alliances.cs:45-52 (MakeAlliance: DiscardNexusCard for both partners); "
             "Shared/Events/AllianceByTerror.cs:56",
      why=["Atreides holds Moritani's Nexus card (Betrayal) and accepts the Enemy of My Enemy offer: the card is "
           "discarded at once, so a later break of that alliance gives no Betrayal back. Before issue 33 the model "
           "kept the card in Atreides's hand."],
      cites=["R48", "R20"], goal=fired("accept_alliance", lambda m, pre, post: lab(m, pre, "nexus_holder") == "Atreides"),
      values=["nexus_holder", "ally[Atreides]"]),
]

# Entering a stronghold one's ally holds (switch ally-entry): legal in both engines, the forces go to the Tanks.
QA = "7cef1a34120190656af0fdc99495fcb00d75425e (docs/ALLIED_TRANSIT_RULES.md, 8 Oct 2026; game/allied-separation.ts)"
def _beside_ally(kind):
    def goal(m, label, pre, post):
        if not label.startswith(kind + "(f=Atreides") and not label.startswith(kind + "(f=Bene Gesserit"):
            return False
        f = "Atreides" if "Atreides" in label else "Bene Gesserit"
        other = "Bene Gesserit" if f == "Atreides" else "Atreides"
        loc = lab(m, post, "entry_loc")
        return lab(m, pre, f"ally[{f}]") == other and raw(m, pre, f"forces[{other}][{loc}]") > 0
    return goal
ispecs += [
 dict(file="quintine-shipment-beside-the-ally-is-legal.scenario.yaml", **dict(QUINTINE, commit=QA),
      title="quintine: a shipment from reserves may enter a stronghold the ally holds",
      source='docs/ALLIED_TRANSIT_RULES.md (at 7cef1a34), "Basic ordinary allied shipment prototype - 8 October 2026"; '
             "game/allied-separation.ts isAlliedShipmentVisit",
      why=["Atreides ships into the stronghold where its ally BG stands (ally-entry: ship-visitors). The model refused "
           "it before issue 33."],
      cites=["R25", "R26", "A20"], goal=_beside_ally("ship"), values=["entry_loc", "entrant"]),
 dict(file="quintine-visitors-beside-the-ally-go-to-the-tanks.scenario.yaml", **dict(QUINTINE, commit=QA),
      title="quintine: the visitors a shipment left beside the ally go to the Tanks at the end of the shipper's turn",
      source='docs/ALLIED_TRANSIT_RULES.md (at 7cef1a34): "excess visiting forces left behind at the end of the '
             "shipper's turn go to Tanks\"",
      why=["The forces Atreides shipped beside BG are lost when its turn ends (the visitors only: older forces stay)."],
      cites=["R25", "R26", "A20"], goal=fired("visitors_to_tanks"), values=["tanks[Atreides]", "tanks[Bene Gesserit]"]),
 dict(file="quintine-movement-beside-the-ally-is-refused.scenario.yaml", **dict(QUINTINE, commit=QA),
      title="quintine: a movement may not end in a stronghold the ally holds",
      source='docs/ALLIED_TRANSIT_RULES.md (at 7cef1a34): "Normal ground-movement endpoints retain the ally guard"',
      why=["Atreides, with a force in the open desert, may not move it beside BG."],
      cites=["R25"], goal=lambda m, label, pre, post: (label == "arrival_settled" and lab(m, post, "stage") == "ship_move"
                                                       and lab(m, post, "ally[Atreides]") == "Bene Gesserit"
                                                       and raw(m, post, "forces[Atreides][open desert]") > 0
                                                       and raw(m, post, "forces[Bene Gesserit][Arrakeen]") > 0
                                                       and raw(m, post, "forces[Bene Gesserit][Carthag]") == 0
                                                       and raw(m, post, "mover") == 1 and raw(m, post, "turn") == 2),
      blocked="move(f=Atreides, to=Arrakeen)", blocked_says="Atreides moves into Arrakeen beside BG (refused)"),
 dict(file="treachery-movement-beside-the-ally-is-legal.scenario.yaml", **TREACHERY,
      title="treachery-online: a movement may end in a stronghold the ally holds",
      source="Shared/Events/Move.cs:73 (ContainsConflictingAlly: the destination is recorded, not refused); "
             "Shared/Game.cs:856-866",
      why=["Atreides moves into the stronghold where its ally BG stands (ally-entry: ship-and-move). The model "
           "refused it before issue 33."],
      cites=["R25", "R27", "A20"], goal=_beside_ally("move"), values=["entry_loc", "entrant"]),
 dict(file="treachery-forces-beside-the-ally-go-to-the-tanks.scenario.yaml", **TREACHERY,
      title="treachery-online: forces that ended beside the ally go to the Tanks at the end of the mover's turn",
      source="Shared/Game_Move.cs:656-668 (CheckIfForcesShouldBeDestroyedByAllyPresence: ChosenDestinationsWithAllies, "
             "whether or not the ally has acted); Shared/Events/Shipment.cs:477",
      why=["Every force of the mover in that stronghold is lost when its turn ends."],
      cites=["R25", "R27", "A20"], goal=fired("visitors_to_tanks"), values=["tanks[Atreides]", "tanks[Bene Gesserit]"]),
]

# BG's accompaniment in the ruleset that has Moritani (AdvisorsDontConflictWithAlly is ServerClassic only).
ispecs += [
 dict(file="treachery-bg-does-not-accompany-its-ally.scenario.yaml", **TREACHERY,
      title="treachery-online: BG may not send its free advisor with its ally's shipment",
      source="Shared/Events/BlueAccompanies.cs:114-142 (AllyPreventsAccompanyingToShipmentLocation unless "
             "AdvisorsDontConflictWithAlly); Shared/Game_Rules.cs:277-300 (that rule is in ServerClassic only)",
      why=["Atreides, BG's ally, ships into a stronghold: no accompaniment is owed (BG may only go to the Polar Sink, "
           "which the model leaves out). Before issue 33 the treachery-online profile let BG accompany it."],
      cites=["A25", "R25"], goal=fired("ship(f=Atreides", lambda m, pre, post: lab(m, pre, "ally[Atreides]") == "Bene Gesserit"),
      values=["pend_advisor", "entrant"]),
]


# ---------------- DuneBot (issue 34) ----------------
# voiceofonecrying/DuneBot at 6593b774; paths under src/main/java/, tests in MoritaniFactionTest.java. Most situations are
# the treachery.online ones (same goal, same bounds) re-read in DuneBot's code; each cites DuneBot's lines.
D = ("DuneBot", "https://github.com/voiceofonecrying/DuneBot")
DC = "6593b774565ea0c1e6f0f014f8f6a7e26c046a7a"
DUNEBOT = dict(engine=D, commit=DC, profile="dunebot")
MF, MB = "model/factions/MoritaniFaction.java", "controller/buttons/MoritaniButtons.java"
TEST = "src/test/java/model/factions/MoritaniFactionTest.java"


def like(treachery_file, file, source, why, title=None, **over):
    """A DuneBot spec with the goal, bounds and expectation of an existing treachery.online (or Quintine) spec."""
    base = next(x for x in specs + tspecs + nspecs + gspecs + wspecs + dspecs + sspecs + hspecs + rspecs + cspecs + lspecs
                if x["file"] == treachery_file)
    keep = {k: v for k, v in base.items() if k in ("goal", "bounds", "values", "blocked", "blocked_says", "cites")}
    text = title or "dunebot:" + base["title"].split(":", 1)[1]
    return dict(keep, file=file, **DUNEBOT, title=text, source=source, why=why) | over


bspecs = [
 like("treachery-pass-keeps-token.scenario.yaml", "dunebot-dont-trigger-keeps-token.scenario.yaml",
      f"{MF}:380-399 (checkForTerrorTrigger), {MB}:102-107 (Don't Trigger)",
      ["Atreides ships where a token lies: Moritani gets Trigger / Offer alliance / Don't Trigger; Don't Trigger "
       "leaves the token placed."]),
 like("quintine-ally-does-not-trigger.scenario.yaml", "dunebot-ally-does-not-trigger.scenario.yaml",
      f"{MF}:381-382; {TEST} testAllyDoesNotTrigger", ["Moritani's ally (Ecaz here) ships where a token lies: no prompt."]),
 like("treachery-robbery-half-rounded-up.scenario.yaml", "dunebot-robbery-half-rounded-up.scenario.yaml",
      f"{MF}:195-205 (Math.ceilDiv); {TEST} testRobberyRobTakesHalfSpiceRoundedUp",
      ["Atreides starts with 4 spice and pays 1 to ship: Robbery takes 2 of its 3."]),
 like("treachery-robbery-card-then-discard.scenario.yaml", "dunebot-robbery-card-full-hand-discards.scenario.yaml",
      f"{MF}:218-234 (the limit is raised by one, then a discard is asked); {TEST} testRobberyDrawFullHand",
      ["Moritani at its hand limit draws the card, then discards one of its choice."]),
 like("treachery-sabotage-discard-then-gift.scenario.yaml", "dunebot-sabotage-discard-then-gift.scenario.yaml",
      f"{MF}:160-171, {MB}:181-190", ["A random card of the entrant is discarded; Moritani then gives it a card."]),
 like("quintine-movement-triggers.scenario.yaml", "dunebot-movement-triggers.scenario.yaml",
      "model/Game.java:1815-1823 (moveForces, then checkForTriggers)",
      ["Atreides moves into the token's stronghold: Moritani's prompt is published."]),
 like("treachery-eome-accepted-breaks-both-alliances.scenario.yaml", "dunebot-eome-accepted-breaks-both-alliances.scenario.yaml",
      "model/factions/Faction.java:1656-1662 (acceptTerrorAlliance), model/Game.java:2256-2269 (createAlliance)",
      ["Yes returns the token to Moritani's supply and createAlliance breaks both earlier alliances."]),
 like("treachery-eome-refused-must-reveal.scenario.yaml", "dunebot-eome-refused-must-reveal.scenario.yaml",
      "model/factions/Faction.java:1664-1670 (denyTerrorAlliance triggers the token at once)",
      ["No triggers the token at once: Moritani has no way left to keep it."]),
 like("treachery-assassination-fizzles.scenario.yaml", "dunebot-assassination-fizzles.scenario.yaml",
      f"{MF}:114, 119-130 (no leader: 'has no leaders to assassinate'; the token was already removed)",
      ["The reveal is always possible (A11 fizzles): nobody dies, nothing is paid, the token is spent."]),
 like("treachery-assassination-kills-one-leader.scenario.yaml", "dunebot-assassination-kills-one-leader.scenario.yaml",
      f"{MF}:101-108, 119-130", ["One shuffled living leader dies; Moritani gains its assassination value."]),
 like("quintine-sneak-attack-five-free.scenario.yaml", "dunebot-sneak-attack-five-free.scenario.yaml",
      f"{MF}:172-181 (buttons 1..5), {MB}:200-211 (placeForces with isShipment false: no cost)",
      ["Moritani sends all 5 of its reserves; its spice does not change."]),
 like("treachery-sneak-attack-never-accompanied.scenario.yaml", "dunebot-sneak-attack-never-accompanied.scenario.yaml",
      f"{MB}:208, model/factions/Faction.java:443-448 (the advisor prompt needs isShipment)",
      ["A Sneak Attack is not a shipment: BG is not asked to accompany it."]),
 like("treachery-sneak-attack-triggers-ambassador.scenario.yaml", "dunebot-sneak-attack-triggers-ambassador.scenario.yaml",
      f"{MB}:208 (canTrigger true), model/factions/EcazFaction.java:207-219",
      ["Moritani, not Ecaz's ally here, arrives by Sneak Attack where the Ambassador stands: Ecaz may trigger it."]),
 like("treachery-extortion-paid-to-moritani.scenario.yaml", "dunebot-extortion-paid-to-moritani.scenario.yaml",
      "model/MentatPause.java:50-64 (the first in storm order that would pay pays Moritani 3)",
      ["A rival pays 3 to Moritani and the Extortion token leaves the game."]),
 like("treachery-extortion-nobody-pays-returns.scenario.yaml", "dunebot-extortion-nobody-pays-returns.scenario.yaml",
      "model/MentatPause.java:36-41, 66-73 (every rival declines, or cannot pay: the token returns)",
      ["Nobody pays: Extortion goes back to Moritani's tokens."]),
 like("treachery-atomics-returns-the-ambassador.scenario.yaml", "dunebot-atomics-returns-the-ambassador.scenario.yaml",
      f"{MF}:131-147 (every force to the Tanks, the Aftermath token, returnAmbassadorToSuppy)",
      ["Atomics struck the Ambassador's stronghold: the Ambassador went back to Ecaz's supply, so a later arrival there "
       "owes it nothing."]),
 like("treachery-shipment-beside-lone-advisors.scenario.yaml", "dunebot-shipment-beside-lone-advisors.scenario.yaml",
      "model/Territory.java:170-174, 474 (only active factions count toward the two-faction limit)",
      ["Advisors are not an active faction: a shipment may join the stronghold beside them."]),
 like("treachery-robbery-reshuffles-the-discard-pile.scenario.yaml", "dunebot-robbery-reshuffles-the-discard-pile.scenario.yaml",
      f"{MF}:207-216; {TEST} testRobberyDrawEmptyHandEmptyTreacheryDeck",
      ["The deck is empty and the discard pile is not: it is shuffled into a new deck and Moritani draws."]),
 like("treachery-setup-in-the-open-desert.scenario.yaml", "dunebot-setup-in-the-open-desert.scenario.yaml",
      f"{MF}:72-82 (stronghold, spice-blow, rock or other territories), model/Territory.java:463-464",
      ["Moritani's starting forces may go to any territory holding no forces: here the open desert."]),
 like("treachery-grumman-high-side-placement-onto-a-token.scenario.yaml",
      "dunebot-grumman-high-side-placement-onto-a-token.scenario.yaml",
      f"{MF}:334-337; {TEST} testSecondTerrorTokenIsPlacedWithHighThreshold",
      ["At high threshold (8 or more reserves) the Mentat placement may go to a stronghold that already holds a token."]),
 like("quintine-grumman-low-side-one-force-opens-nothing.scenario.yaml",
      "dunebot-grumman-low-side-one-force-opens-nothing.scenario.yaml",
      f"{MF}:383-384; {TEST} testCannotTriggerAtLowThreshold",
      ["At low threshold an entry of fewer than 3 forces gets no Terror prompt."],
      bounds={"grumman": True, "strongholds": ("Arrakeen",), "ambassador": None, "moritani_forces": 8,
              "forces": (("Atreides", 4, 0), ("Bene Gesserit", 1, 0)), "spice": 4}),
 like("treachery-cross-ship-opens-terror.scenario.yaml", "dunebot-cross-ship-opens-terror.scenario.yaml",
      "model/factions/Faction.java:1461-1463 (a cross-ship is placeForces with canTrigger true)",
      ["The Guild cross-ships from the board into the token's stronghold: Moritani's prompt is published."]),
 like("treachery-revival-onto-the-planet-opens-terror.scenario.yaml", "dunebot-revival-onto-the-planet-opens-terror.scenario.yaml",
      "model/factions/FremenFaction.java:235-237 (placeFreeRevivalWithHighThreshold: placeForces with canTrigger true)",
      ["A force revived onto the planet is an arrival that checks triggers (entry-causes: every-arrival): DuneBot's "
       "Fremen place a revived force on the board with canTrigger; the model's reviving rival stands for them."]),
 dict(file="dunebot-grumman-removal-for-four.scenario.yaml", **DUNEBOT,
      title="dunebot: at high threshold Moritani removes a token during Spice Collection for 4 spice",
      source=f"{MF}:273-285, 302-316; {TEST} testTerrorTokenRemovedWitHighThreshold",
      why=["The token goes back to Moritani's supply and the bank pays 4."],
      cites=["R46", "A18"], bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).GRUMMAN_BOUNDS),
      goal=fired("grumman_remove"), values=["spice[Moritani]"]),
 dict(file="dunebot-grumman-no-stacking-after-a-removal.scenario.yaml", **DUNEBOT,
      title="dunebot: after a removal in this turn's Spice Collection the Mentat placement may not go onto a token",
      source=f"{MF}:281 (removedTerrorTokenWithHT set), 303 (reset at Collection), 334 (read at placement); "
             f"{TEST} testRemovedTerrorTokenWithHT",
      why=["One add-or-remove per turn (grumman-high-placement: place-unless-removed): having removed a token, Moritani "
           "cannot place onto the token left in Arrakeen."],
      cites=["R46", "H11"], bounds=dict(__import__("model.moritani.profiles", fromlist=["x"]).GRUMMAN_BOUNDS),
      goal=fired("begin_placement", lambda m, pre, post: raw(m, post, "grumman_removed") == 1
                 and any(lab(m, post, f"tloc[{k}]") == "Arrakeen" for k in FACES if f"tloc[{k}]" in m.schema.slot_names)
                 and any(lab(m, post, f"tstatus[{k}]") == "supply" for k in FACES if f"tstatus[{k}]" in m.schema.slot_names)
                 and raw(m, post, "reserves[Moritani]") >= 8),
      blocked=lambda m, s: "place_token_high(k=" + next(k for k in FACES if f"tstatus[{k}]" in m.schema.slot_names
                                                       and lab(m, s, f"tstatus[{k}]") == "supply") + ", to=Arrakeen)",
      blocked_says="Moritani places a token onto the one in Arrakeen (refused: it removed a token this turn)"),
 # Deviations (model/moritani/deviations.py): the engine's behaviour, built in as its seeded defect, breaks the rule.
 dict(file="dunebot-deviation-offer-to-ecaz.scenario.yaml", **DUNEBOT, defects=["offer-to-ecaz"],
      title="dunebot (deviation): Enemy of My Enemy is offered to Ecaz, which R19 forbids",
      source=f"{MF}:389, 455-465 (the offer tests only the ally)",
      why=["Ecaz, unallied, ships where a token lies and Moritani offers it an alliance: eome-obligations is violated."],
      cites=["R19"], bounds=dict(__import__("model.moritani.defects", fromlist=["x"]).DEFECT_BY_ID["offer-to-ecaz"].bounds),
      goal=fired("offer_alliance", lambda m, pre, post: lab(m, pre, "entrant") == "Ecaz"), violates="eome-obligations"),
 dict(file="dunebot-deviation-sneak-attack-into-a-full-stronghold.scenario.yaml", **DUNEBOT,
      defects=["sneak-ignores-occupancy"],
      title="dunebot (deviation): a Sneak Attack joins two other factions in a stronghold, which R41 forbids",
      source=f"{MF}:172-181, {MB}:200-211 (no occupancy or storm test)",
      why=["Two other factions stand in the stronghold; Moritani still sends a force: sneak-attack-legal is violated."],
      cites=["R41", "H32"], bounds=dict(__import__("model.moritani.defects", fromlist=["x"]).DEFECT_BY_ID["sneak-ignores-occupancy"].bounds),
      goal=lambda m, label, pre, post: label.startswith("sneak_attack(n=") and not label.startswith("sneak_attack(n=0")
      and _others_in(m, pre) >= 2, violates="sneak-attack-legal"),
]


def _others_in(m, s):
    """How many factions other than Moritani occupy the entered stronghold (lone BG advisors do not, under coexist)."""
    l = lab(m, s, "entry_loc")
    lone = raw(m, s, f"advisors[{l}]") if f"advisors[{l}]" in m.schema.slot_names else 0
    return sum(raw(m, s, f"forces[{f}][{l}]") - (lone if f == "Bene Gesserit" else 0) > 0
               for f in ("Atreides", "Bene Gesserit", "Ecaz") if f"forces[{f}][{l}]" in m.schema.slot_names)


if __name__ == "__main__":
    for spec in specs + tspecs + nspecs + gspecs + wspecs + dspecs + sspecs + hspecs + rspecs + cspecs + lspecs + ispecs + bspecs:
        path, steps = gen(spec)
        print(f"{path}: " + ("kept" if steps is None else f"{steps} steps"))
