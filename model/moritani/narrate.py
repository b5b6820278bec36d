"""Game words for traces: one line per step, saying who did what where."""
from __future__ import annotations

from model.moritani.observe import SECRET_DRAWS  # rules whose Traitor card is taken in secret

PHASES = {
    "storm": "Storm", "bidding": "Bidding", "mentat_place": "Mentat Pause",
    "placement_karama": "Mentat Pause", "extortion_collect": "Mentat Pause", "extortion_pay": "Mentat Pause",
    "mentat_end": "Mentat Pause", "mentat_open": "Mentat Pause", "game_over": "end",
    "traitor_deal": "setup", "setup": "setup", "revival": "Revival", "collection": "Spice Collection", "worm": "worm rides", "battle": "Battle", "assassinate_offer": "Battle", "traitor_draw": "Mentat Pause",
}


# One line per rule, in game words; {placeholders} come from the step (see `narrate`).
TEMPLATES = {
    "ship": "{f} ships 1 force into {to}, paying 1 spice",
    "move": "{f} moves 1 force from the open desert into {to}",
    "pass_turn": "{f} neither ships nor moves",
    "draw_card": "{f} takes the Treachery card on offer",
    "karama_placement": "{f} plays Karama: Moritani's placement is cancelled",
    "karama_eome": "{f} plays Karama: the alliance offer to {entrant} is cancelled",
    "karama_eome_preempt": "{f} plays Karama against Enemy of My Enemy: no alliance offer for the rest of this "
                           "phase",
    "pay_extortion": "{f} pays Moritani 3 spice; Extortion leaves the game",
    "refuse_extortion": "{f} declines to pay for Extortion",
    "skip_payer": "{f} may not pay for Extortion (A8)",
    "place_token": "Moritani places a hidden token ({k}) in {to}",
    "move_token": "Moritani moves its hidden {k} token to {to}",
    "place_token_cunning": "Moritani plays Nexus Cunning: a hidden token ({k}) joins the token in {to}",
    "move_token_cunning": "Moritani plays Nexus Cunning: its hidden {k} token moves onto the token in {to}",
    "place_token_high": "Moritani (Grumman high side) places a hidden token ({k}) onto the token in {to}",
    "move_token_high": "Moritani (Grumman high side) moves its hidden {k} token onto the token in {to}",
    "grumman_add": "Spice Collection, Grumman: a hidden token ({k}) joins the token in {to}; Moritani takes 4 spice",
    "grumman_remove": "Spice Collection, Grumman: the {k} token in {tloc} leaves the board unrevealed; Moritani "
                      "takes 4 spice",
    "worm_ride": "Fremen rides a worm: {n} forces from the open desert into {to}",
    "end_rides": "Fremen rides no more worms this turn",
    "grumman_pass": "Spice Collection: Moritani makes no Grumman operation",
    "betrayal": "{holder} plays Nexus Betrayal: the {k} token in {tloc} goes back to Moritani's supply unrevealed",
    "skip_placement": "Moritani does not place or move a token",
    "commit_placement": "nobody plays Karama: the token lands in {dest}",
    "collect_extortion": "Moritani collects the 5 spice reserved by Extortion",
    "no_extortion": "no Extortion to collect",
    "recover_extortion": "nobody paid: Extortion returns to Moritani's supply with new public IDs",
    "end_turn": "turn {next_turn} begins",
    "end_game": "the bounded game ends",
    "storm_moves": "the storm settles over {to}",
    "no_card": "nobody takes a Treachery card",
    "end_shipment_movement": "Shipment & Movement ends",
    "intrusion_flip": "BG Intrusion: Bene Gesserit flips its fighters in {where} to advisors",
    "intrusion_stay": "Bene Gesserit keeps its fighters in {where} (no Intrusion)",
    "separate_allies": "{g} ends its turn beside its ally in {l}: its forces there go to the Tanks (ally separation)",
    "begin_placement": "Moritani's placement opportunity resolves next (A5 left open)",
    "begin_extortion": "the Extortion collection resolves next (A5 left open)",
    "close_mentat": "both Mentat Pause events are settled",
    "resolve_advisor": "the BG advisor reaction to {entrant}'s arrival in {where} resolves next",
    "resolve_ambassador": "the Ecaz Ambassador reaction in {where} resolves next",
    "open_terror": "Moritani's Terror decision opens: {entrant} entered {where}, where its {k} token lies",
    "lapse_terror": "the queued Terror decision in {where} lapses",
    "open_queued_entry": "the BG advisors' own entry into {where} opens a Terror decision ({k})",
    "lapse_queued_entry": "the BG advisors' queued entry lapses",
    "arrival_settled": "the arrival in {where} is fully resolved",
    "accompany": "Bene Gesserit sends an advisor into {where} with the shipment",
    "decline_advisor": "Bene Gesserit sends no advisor",
    "ambassador_effect": "the Ecaz Ambassador takes 1 spice from {p}",
    "decline": "Moritani declines: the {face} token stays hidden in {where}",
    "keep_for_gift": "Moritani keeps the {face} token for the gift: it stays hidden in {where}",
    "no_karama_eome": "nobody plays Karama on the alliance offer",
    "accept_alliance": "{entrant} accepts the alliance with Moritani; the {face} token returns to supply",
    "refuse_alliance": "{entrant} refuses the alliance: Moritani must reveal",
    "rob_spice": "Robbery: Moritani takes {half} spice from {entrant}",
    "rob_card": "Robbery: Moritani draws the top Treachery card",
    "moritani_setup": "Moritani sets up last, putting {setup} into {l}",
    "revive_onto_planet": "{reviver} revives 1 force from the Tanks straight into {to}",
    "guild_cross_ship": "the Guild cross-ships 1 force from {frm} into {to}",
    "guild_to_reserves": "the Guild ships 1 force from {frm} back to its reserves",
    "ambassador_relocate": "the Fremen Ambassador: Ecaz moves 1 force from {frm} into {to}",
    "open_relocation_entry": "Ecaz's relocation into {relocated} gets its Terror decision",
    "lapse_relocation_entry": "Ecaz's queued relocation entry lapses",
    "end_revival": "{reviver} revives nothing more onto the planet; Shipment & Movement begins",
    "robbery_discard": "Moritani discards down to its hand limit",
    "gift_card": "Moritani gives {entrant} a card",
    "no_gift": "Moritani gives no card",
    "sneak_attack": "Sneak Attack: {n} Moritani forces arrive in {where}",
    "assassinate": "the random victim is {entrant}'s {j}; it goes to the Tanks",
    "assassination_fizzles": "{entrant} has no living leader: the Assassination kills nobody and pays nothing",
    "retry_rerolls": "the retried reveal kills {entrant}'s {j} as well (fault)",
    "close_entry": "{entrant}'s entry into {where} is finished",
    "reload": "the server reloads (fault)",
    "reload_extortion": "the server reloads and credits Extortion again (fault)",
    "retry_accepted": "a client retries the accepted action (fault)",
    "deal_traitor": "Moritani secretly draws a Traitor card ({t})",
    "no_battle": "Moritani fights no battle",
    "lose_battle": "Moritani loses a battle against {e}'s {j}; no traitor was called",
    "call_traitor": "Moritani calls its Traitor ({t}) normally and wins: that leader goes to the Tanks; "
                    "Assassinate Leaders is forfeited for the game",
    "assassinate_leader": "Moritani reveals Traitor {t} after the loss: {fate}",
    "continue_battle": "Moritani continues without revealing a Traitor card",
    "begin_draw": "the Assassinate Leaders replacement draw resolves next (A6 left open)",
    "draw_replacement": "the revealed Traitor card is set aside face up; Moritani draws a new one in secret ({t})",
    "retire_no_draw": "the revealed Traitor card is set aside face up; the Traitor deck is empty",
    "no_draw": "no Traitor replacement is due",
}


def narrate(model, action, pre, post, secret=None) -> str:
    """One line, e.g. 'turn 2, Shipment & Movement: Atreides ships 1 force into Arrakeen, paying 1 spice'.

    `secret(domain name, value)`, if given, spells every value a rival might not see: a Terror face
    and a Traitor card drawn in secret. model/moritani/board.py passes one that keeps a hidden face
    out of the public words; by default every value is named (the designer's words).
    """
    c = model.vocabulary
    g = lambda name, *idx: model.get(pre, name, *idx)  # noqa: E731
    stage = c.Stage.labels[g("stage")]
    phase = PHASES.get(stage, "Shipment & Movement")
    doms = {p.name: p.domain for p in action.rule.params}
    a = {k: doms[k].show(v) for k, v in action.args}
    raw = dict(action.args)
    if secret is not None:
        private = {"Face"} | ({"Traitor"} if action.rule.name in SECRET_DRAWS else set())
        a |= {k: secret(doms[k].name, v) for k, v in action.args if doms[k].name in private}
    entrant, where = c.F.labels[g("entrant")], c.L.labels[g("entry_loc")]
    face = c.K.labels[g("entry_face")] if secret is None else secret("Face", g("entry_face"))
    name = action.rule.name
    if name.startswith("offer_alliance"):
        text = "Moritani offers {entrant} an alliance instead of revealing"
    elif name.startswith("reveal_"):
        text = "Moritani reveals {face} against {entrant} in {where}"
    else:
        text = TEMPLATES.get(name, action.label)
    if name == "worm_ride" and raw.get("n") == 1:
        text = text.replace("{n} forces", "1 force")
    if name in ("ship", "move") and "n" in raw and raw["n"] != 1:  # the Grumman module's groups (R45)
        text = text.replace("1 force", "{n} forces").replace("paying 1 spice", "paying {n} spice")
    if name == "rob_card" and c.bounds.deck is not None and model.get(post, "hand", c.M) == g("hand", c.M):
        text = "Robbery: Moritani takes the card option, but there is no card to draw (A16)"
    elif name == "rob_card" and c.bounds.deck is not None and g("deck") == 0:
        text = "Robbery: the discard pile is shuffled into a new deck and Moritani draws its top card (A16)"
    half = (g("spice", raw["e"]) + 1) // 2 if "e" in raw else 0
    fate = ""
    if name == "assassinate_leader":
        f, j = c.cards[raw["t"]]
        fate = (f"that leader goes to the Tanks and pays {c.bounds.leaders[j]} spice" if g("leader", f, j)
                else "that leader is already dead: legal, nothing is paid")
    words = dict(a, entrant=entrant, where=where, face=face, half=half, fate=fate, next_turn=g("turn") + 1,
                 dest=c.Dest.labels[g("pending_dest")], holder=c.bounds.nexus_card or "",
                 setup=f"{c.bounds.setup_forces} force" + ("s" if (c.bounds.setup_forces or 0) > 1 else ""),
                 reviver=c.bounds.revival or "",
                 relocated=c.Dest.labels[g("relocated")] if c.bounds.ambassador_relocation else "",
                 tloc=c.Dest.labels[g("tloc", raw["k"])] if "k" in raw else "")
    return f"turn {g('turn')}, {phase}: {text.format(**words)}"
