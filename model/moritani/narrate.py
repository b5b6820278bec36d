"""Game words for traces: one line per step, saying who did what where."""
from __future__ import annotations

PHASES = {
    "storm": "Storm", "bidding": "Bidding", "ship_move": "Shipment & Movement", "mentat_place": "Mentat Pause",
    "placement_karama": "Mentat Pause", "extortion_collect": "Mentat Pause", "extortion_pay": "Mentat Pause",
    "mentat_end": "Mentat Pause",
}


def narrate(model, action, pre, post) -> str:
    """One line: 'turn 2, Shipment & Movement: Atreides ships 1 force into Arrakeen'."""
    c = model.info["ctx"]
    g = lambda name, *idx: model.get(pre, name, *idx)  # noqa: E731
    stage = c.Stage.labels[g("stage")]
    phase = PHASES.get(stage, "Shipment & Movement")
    args = dict(action.args)
    name = action.rule.name
    F, L, K, D = c.F.labels, c.L.labels, c.K.labels, c.Dest.labels
    entrant = F[g("entrant")]
    where = L[g("entry_loc")]
    face = K[g("entry_face")]
    base, _, num = name.rpartition("_")
    who = F[int(num)] if num.isdigit() and base in {"ship", "move", "pass", "draw_card", "karama_placement",
                                                    "karama_eome", "pay_extortion", "refuse_extortion",
                                                    "skip_payer"} else None
    text = {
        "ship": lambda: f"{who} ships 1 force into {L[args.get('to', 0)]} and pays 1 spice",
        "move": lambda: f"{who} moves 1 force from the open desert into {L[args.get('to', 0)]}",
        "pass": lambda: f"{who} neither ships nor moves",
        "draw_card": lambda: f"{who} takes the Treachery card on offer",
        "karama_placement": lambda: f"{who} plays Karama: Moritani's placement is cancelled",
        "karama_eome": lambda: f"{who} plays Karama: the alliance offer to {entrant} is cancelled",
        "pay_extortion": lambda: f"{who} pays Moritani 3 spice; Extortion leaves the game",
        "refuse_extortion": lambda: f"{who} declines to pay for Extortion",
        "skip_payer": lambda: f"{who} may not pay for Extortion (A8)",
    }.get(base if who else "", None)
    if text is None:
        text = {
            "place_token": lambda: f"Moritani places a hidden token ({K[args['k']]}) in {D[args['to']]}",
            "move_token": lambda: f"Moritani moves its hidden {K[args['k']]} token to {D[args['to']]}",
            "skip_placement": lambda: "Moritani does not place or move a token",
            "commit_placement": lambda: f"nobody plays Karama: the token lands in {D[g('pending_dest')]}",
            "collect_extortion": lambda: "Moritani collects the 5 spice reserved by Extortion",
            "no_extortion": lambda: "no Extortion to collect",
            "recover_extortion": lambda: "nobody paid: Extortion returns to Moritani's supply with new IDs",
            "end_turn": lambda: f"turn {g('turn') + 1} begins",
            "end_game": lambda: "the bounded game ends",
            "storm_moves": lambda: f"the storm settles over {D[args['to']]}",
            "no_card": lambda: "nobody takes a Treachery card",
            "end_shipment_movement": lambda: "Shipment & Movement ends",
            "resolve_advisor": lambda: f"the BG advisor reaction to {entrant}'s arrival in {where} resolves next",
            "resolve_ambassador": lambda: f"the Ecaz Ambassador reaction in {where} resolves next",
            "open_terror": lambda: f"Moritani's Terror decision opens: {entrant} entered {where} (token: {K[args['k']]})",
            "lapse_terror": lambda: f"the queued Terror decision in {where} lapses",
            "open_queued_entry": lambda: f"the BG advisors' own entry into {where} opens a Terror decision",
            "lapse_queued_entry": lambda: "the BG advisors' queued entry lapses",
            "arrival_settled": lambda: f"the arrival in {where} is fully resolved",
            "accompany": lambda: f"Bene Gesserit sends an advisor into {where} with the shipment",
            "decline_advisor": lambda: "Bene Gesserit sends no advisor",
            "ambassador_effect": lambda: f"the Ecaz Ambassador takes 1 spice from {F[args['p']]}",
            "decline": lambda: f"Moritani declines: the {face} token stays hidden in {where}",
            "no_karama_eome": lambda: "nobody plays Karama on the alliance offer",
            "accept_alliance": lambda: f"{entrant} accepts the alliance with Moritani; the {face} token returns to supply",
            "refuse_alliance": lambda: f"{entrant} refuses the alliance: Moritani must reveal",
            "rob_spice": lambda: f"Robbery: Moritani takes {(g('spice', args['e']) + 1) // 2} spice from {entrant}",
            "rob_card": lambda: "Robbery: Moritani draws the top Treachery card",
            "robbery_discard": lambda: "Moritani discards down to its hand limit",
            "gift_card": lambda: f"Moritani gives {entrant} a card",
            "no_gift": lambda: "Moritani gives no card",
            "sneak_attack": lambda: f"Sneak Attack: {args['n']} Moritani forces arrive in {where}",
            "close_entry": lambda: f"{entrant}'s entry into {where} is finished",
            "reload": lambda: "the server reloads (fault)",
            "reload_extortion": lambda: "the server reloads and credits Extortion again (fault)",
            "retry_accepted": lambda: "a client retries the accepted action (fault)",
        }.get(name)
    if text is None:
        if name.startswith("offer_alliance"):
            text = lambda: f"Moritani offers {entrant} an alliance instead of revealing"  # noqa: E731
        elif name.startswith("reveal_"):
            text = lambda: f"Moritani reveals {face} against {entrant} in {where}"  # noqa: E731
        elif name.startswith("assassinate_") or name.startswith("retry_rerolls_"):
            j = int(num)
            text = lambda: f"the random victim is {entrant}'s {c.Leader.labels[j]}"  # noqa: E731
        else:
            text = lambda: action.label  # noqa: E731
    return f"turn {g('turn')}, {phase}: {text()}"
