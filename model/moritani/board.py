"""The Moritani board as plain data: what a report draws for one state, and one step's public words.

`board(model, state)` projects a state onto a generic board description (the HTML report,
checks/formats/html.py, draws it without knowing the game):

- `regions`: the strongholds and the open desert, each with `notes` (storm, Aftermath, Ecaz
  Ambassador), `pieces` (forces per faction) and `tokens` (Terror tokens placed there);
- `factions`: per faction its `items` (spice, reserves, Tanks, hand, Karama card, ally, leaders);
- `counters`: turn, bank, Aftermath, Extortion and the engine's flags;
- `tokens`: every Terror token as the public sees it (placed ones by public ID and place,
  revealed ones with their face, the supply as one entry with a `count`);
- `pending`: the decision the game waits for (stage, who acts, the entry being resolved, the
  reactions still pending).

An item is `{"name", "value"}`; a token is `{"id", "face", "status", "where"}` (optional `count`,
and `alert` where the engine's custody is inconsistent). Either may carry
`secret` (text for the designer's omniscient view only: the face of a hidden token) or
`"omniscient": True` (the whole item is hidden from every rival, e.g. a Karama card), and then
`seen_by`: the factions that do see it (Moritani its own tokens' faces and Traitor card, each
faction its own Karama card; nobody the engine's bookkeeping). What is
public follows model/moritani/observe.py: a rival sees placed tokens by public ID, revealed
tokens by face, and neither a face in supply or on the map nor another faction's Karama card.
The order of tokens depends only on what is public, so a list never hints at a face.

`step(model, action, pre, post)` gives a step's game words (model/moritani/narrate.py) as
segments: plain text, and `{"public": "#1", "secret": "Assassination"}` for each value a rival
does not see after the step; and the action's public label.

>>> from model.moritani.build import build_model
>>> from model.trace import Trace
>>> m = build_model()
>>> t = Trace.from_actions(m, m.init[0], ["place_token(k=Robbery, to=Carthag)", "commit_placement(k=Robbery)"])
>>> b = board(m, t.states[-1])
>>> [(r["name"], r["tokens"]) for r in b["regions"] if r["tokens"]]
[('Carthag', [{'id': '#4', 'face': None, 'status': 'placed', 'where': 'Carthag', 'secret': 'Robbery', 'seen_by': ['Moritani']}])]
>>> step(m, m.action("place_token(k=Robbery, to=Carthag)"), *t.states[:2])["words"][1:]
[{'public': '#4', 'secret': 'Robbery', 'seen_by': ['Moritani']}, ') in Carthag']
"""
from __future__ import annotations

from model.moritani.context import TERROR_STAGES
from model.moritani.narrate import narrate
from model.moritani.observe import SECRET_DRAWS, hidden_faces, public_label

STAGE_WORDS = {
    "storm": "the storm moves", "bidding": "a Treachery card is on offer",
    "ship_move": "Shipment & Movement", "react": "the arrival's reactions resolve",
    "advisor": "Bene Gesserit may send an advisor along", "ambassador": "the Ecaz Ambassador reacts",
    "terror": "Moritani decides: reveal, offer an alliance or decline",
    "eome_karama": "Karama window on the alliance offer", "eome_reply": "the entrant answers the alliance offer",
    "robbery": "Robbery: Moritani takes spice or a card", "robbery_discard": "Moritani discards to its hand limit",
    "assassinate": "Assassination resolves", "sabotage_gift": "Sabotage: Moritani may give a card",
    "sneak": "Sneak Attack: Moritani chooses its forces", "entry_done": "the entry closes",
    "mentat_place": "Mentat Pause: Moritani may place or move a token",
    "placement_karama": "Karama window on the placement", "extortion_collect": "Mentat Pause: Extortion is collected",
    "extortion_pay": "Mentat Pause: rivals may pay to remove Extortion", "mentat_end": "the turn ends",
    "game_over": "the bounded game is over", "mentat_open": "Mentat Pause: the next event is chosen (A5 open)",
    "traitor_deal": "setup: Moritani draws a Traitor card", "battle": "the battle",
    "assassinate_offer": "Moritani may reveal its Traitor card (Assassinate Leaders)",
    "traitor_draw": "Mentat Pause: the Traitor replacement draw",
}
# Stages in which an arrival (entrant, stronghold, cause) is being resolved.
ENTRY_STAGES = ("react", "advisor", "ambassador", "entry_done") + TERROR_STAGES
STATUS_WORDS = {"supply": "in supply", "placed": "placed", "removed": "revealed, out of the game",
                "extortion": "revealed Extortion, waiting for the Mentat Pause",
                "set aside": "set aside face down by Grumman, out of the game"}


def item(name: str, value, secret: str | None = None, omniscient: bool = False, seen_by: tuple = ()) -> dict:
    out = {"name": name, "value": value}
    if secret is not None:
        out["secret"] = secret
    if omniscient:
        out["omniscient"] = True
    if secret is not None or omniscient:
        out["seen_by"] = list(seen_by)
    return out


def _owner(c) -> tuple:
    """Who sees Moritani's secrets: Moritani."""
    return (c.F.labels[c.M],)


def board(model, state) -> dict:
    """The board of `state` as plain data (see the module docstring)."""
    c = model.vocabulary
    g = lambda name, *idx: model.get(state, name, *idx)  # noqa: E731
    stage = c.Stage.labels[g("stage")]
    return {"caption": f"turn {g('turn')}: {STAGE_WORDS.get(stage, stage)}",
            "regions": _regions(model, c, g), "factions": _factions(c, g), "counters": _counters(c, g),
            "tokens": _tokens(c, g), "pending": _pending(c, g, stage)}


def _token(c, g, k: int) -> dict:
    """One token as the public sees it, with its face as the secret while it is hidden.

    Custody is the pair (status, location) the engine stores; where they disagree (a token in
    supply that is still on the map: the duplicate of H30) the token carries an `alert`.
    """
    status = c.Status.labels[g("tstatus", k)]
    face = c.K.labels[k]
    pid = f"#{g('pid', k)}"
    where = None if g("tloc", k) == c.none_dest else c.Dest.labels[g("tloc", k)]
    out = {"id": pid, "face": None, "status": STATUS_WORDS[status], "where": where, "secret": face,
           "seen_by": list(_owner(c))}
    if status not in ("supply", "placed", "set aside"):  # revealed: the face is public
        out["face"] = face
        del out["secret"], out["seen_by"]
    if (status == "placed") != (where is not None):
        out["alert"] = (f"{STATUS_WORDS[status]}, yet still on the map in {where}" if where
                        else "placed, but on no stronghold")
    return out


def _tokens(c, g) -> list:
    """Placed tokens by public ID, revealed ones by face, then the supply as one entry with a count.

    The public sees how many tokens are in supply, not which; their next public IDs are the
    engine's (H5), shown once a token is placed. Sorted on public fields only.
    """
    rank = {w: i for i, w in enumerate(("placed", STATUS_WORDS["removed"], STATUS_WORDS["extortion"],
                                        STATUS_WORDS["supply"]))}
    toks = [_token(c, g, k) for k in c.faces]
    supply = [t for t in toks if t["status"] == STATUS_WORDS["supply"] and "alert" not in t]
    out = sorted((t for t in toks if t not in supply),
                 key=lambda t: (rank[t["status"]], int(t["id"][1:]), t["face"] or "", t["where"] or ""))
    if supply:
        out.append({"id": None, "face": None, "status": STATUS_WORDS["supply"], "where": None,
                    "count": len(supply),
                    "secret": "next IDs " + ", ".join(f"{t['secret']} {t['id']}" for t in supply),
                    "seen_by": list(_owner(c))})
    return out


def _regions(model, c, g) -> list:
    b = c.bounds
    out = []
    for loc, name in enumerate(c.L.labels):
        notes = []
        if loc != c.desert:
            if g("storm") == loc:
                notes.append(item("storm", "over it: no shipment in"))
            if g("aftermath") == loc:
                notes.append(item("Atomics Aftermath", "no shipment may land"))
            if b.ambassador == name:
                notes.append(item("Ecaz Ambassador", "here"))
        pieces = [item(f, g("forces", i, loc)) for i, f in enumerate(c.F.labels) if g("forces", i, loc)]
        tokens = [t for t in _tokens(c, g) if loc != c.desert and t["where"] == name]
        out.append({"name": name, "kind": "desert" if loc == c.desert else "stronghold", "notes": notes,
                    "pieces": pieces, "tokens": tokens})
    return out


def _factions(c, g) -> list:
    b = c.bounds
    out = []
    for f, name in enumerate(c.F.labels):
        items = [item("spice", g("spice", f)), item("reserves", g("reserves", f)), item("Tanks", g("tanks", f)),
                 item("hand", g("hand", f)),
                 # Each faction sees only its own Karama card (observe.SECRET_FIELDS).
                 item("Karama", "yes" if g("karama", f) else "no", omniscient=True, seen_by=(name,)),
                 item("ally", c.Ally.labels[g("ally", f)])]
        if f != c.M:
            alive = sum(bool(g("leader", f, j)) for j in range(len(b.leaders)))
            items.append(item("leaders", f"{alive} of {len(b.leaders)} alive"))
        if c.module and f == c.M:
            mine = [c.T.labels[t] for t in range(len(c.cards)) if c.TZone.labels[g("trz", t)] == "hand"]
            items.append(item("Traitor card", ", ".join(mine) or "none", omniscient=True, seen_by=_owner(c)))
        out.append({"name": name, "items": items})
    return out


def _counters(c, g) -> list:
    out = [item("turn", g("turn")), item("bank", g("bank")),
           item("Aftermath", c.Dest.labels[g("aftermath")])]
    if g("aftermath") != c.none_dest:
        out.append(item("ally at Atomics", c.Ally.labels[g("atomics_ally")]))
    out += [item("Extortion's 5 spice reserved", "yes" if g("ext_reserved") else "no"),
            item("placement used this turn", "yes" if g("placement_used") else "no"),
            item("engine: Extortion credited", "yes" if g("ext_credited") else "no"),
            # Engine bookkeeping of the bounded run (observe.ENGINE_FIELDS): no player sees it.
            item("engine: reloads left", g("reloads_left"), omniscient=True),
            item("engine: retries left", g("retries_left"), omniscient=True)]
    if c.module:
        zones = [c.TZone.labels[g("trz", t)] for t in range(len(c.cards))]
        out.append(item("Traitor deck", f"{zones.count('deck')} cards"))
        for t, z in enumerate(zones):
            if z in ("shown", "held", "marker"):
                out.append(item(f"Traitor {c.T.labels[t]}", z))
    if c.has("decline-logs-face"):
        # A seeded engine bug: the public log names the last declined face (public there: that is the leak).
        out.append(item("engine log: declined face", c.Effect.labels[g("declined_log")]))
    return out


def _pending(c, g, stage: str) -> list:
    n = len(c.bounds.factions)
    turn = g("turn")
    out = [item("decision", STAGE_WORDS.get(stage, stage))]
    if stage == "ship_move" and g("mover") < n and not c.unbounded:
        out.append(item("to ship or move", c.F.labels[c.order(turn)[g("mover")]]))
    if stage == "placement_karama":
        k = g("pending_face")
        out.append(item("declared placement", f"token #{g('pid', k)} to {c.Dest.labels[g('pending_dest')]}",
                        secret=c.K.labels[k], seen_by=_owner(c)))
    if stage in ENTRY_STAGES:
        out += [item("entrant", c.F.labels[g("entrant")]), item("entered", c.L.labels[g("entry_loc")]),
                item("by", c.Cause.labels[g("entry_cause")])]
        waiting = ([f"BG advisor x{g('pend_advisor')}"] if g("pend_advisor") else []) \
            + ([f"Ecaz Ambassador (payer {c.F.labels[g('amb_payer')]})"] if g("pend_ambassador") else []) \
            + (["Terror decision"] if g("pend_terror") else []) \
            + (["queued BG advisor entry"] if g("entry2") else [])
        out.append(item("pending reactions", ", ".join(waiting) or "none"))
    if stage in TERROR_STAGES:
        k = g("entry_face")
        out.append(item("token decided on", f"#{g('pid', k)}", secret=c.K.labels[k], seen_by=_owner(c)))
        if g("eome_blocked"):
            out.append(item("alliance offer", "blocked by Karama"))
        if g("eome_refused"):
            out.append(item("alliance offer", "refused: Moritani must reveal"))
    if g("ext_reserved"):
        out.append(item("Extortion revealed by", c.F.labels[g("ext_entrant")]))
        if stage == "extortion_pay" and g("payer") < n and not c.unbounded:
            out.append(item("may pay next", c.F.labels[c.order(turn)[g("payer")]]))
    if c.module and g("tr_pending"):
        out.append(item("Traitor replacement", "due at the Mentat Pause"))
    if c.module and stage == "assassinate_offer":
        out.append(item("battle lost to", c.F.labels[g("tr_opp")]))
    return out


def step(model, action, pre, post) -> dict:
    """`{"words": segments, "action": public label}` for one step (see the module docstring)."""
    c = model.vocabulary
    hidden = set(hidden_faces(model, post))
    marks: list = []

    def secret(domain: str, v: int) -> str:
        if domain == "Face" and v not in hidden:
            return c.K.labels[v]  # revealed by this step or before: public
        public = f"#{model.get(pre, 'pid', v)}" if domain == "Face" else "a hidden card"
        marks.append({"public": public, "secret": c.K.labels[v] if domain == "Face" else c.T.labels[v],
                      "seen_by": list(_owner(c))})
        return f"\0{len(marks) - 1}\0"

    text = narrate(model, action, pre, post, secret)
    words = [marks[int(x)] if i % 2 else x for i, x in enumerate(text.split("\0")) if i % 2 or x]
    label = public_label(model, action, pre)
    if action.rule.name in SECRET_DRAWS:  # the card drawn is Moritani's secret (observe.public_group)
        label = action.rule.name
    return {"words": words, "action": label}


class MoritaniBoard:
    """The `Board` declaration (model/declarations.py): `board` and `step` bound to one model."""

    def __init__(self, model):
        self.model = model

    def draw(self, state: tuple) -> dict:
        return board(self.model, state)

    def step(self, action, pre: tuple, post: tuple) -> dict:
        return step(self.model, action, pre, post)

    def value_words(self, field: str, label: str) -> str | None:
        """What a value of a field means in game words, where the field's doc does not say it (the
        stage: which decision the game waits for); model/guards.py explains a refusal with it."""
        return STAGE_WORDS.get(label) if field == "stage" else None
