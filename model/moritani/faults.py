"""Faults a real engine suffers: a reload re-runs the current phase's start
handler, and a client retries an action the server already accepted (H1, H7).

In a correct engine both are rejected without any change (atomic rejection,
H9), so they are self-loops here; seeded defects give them effects.
"""
from __future__ import annotations

from model.expr import Const, Param
from model.moritani.context import Ctx
from model.rule import P, Rule


def rules(c: Ctx) -> list[Rule]:
    v, M = c.v, c.M
    mentat = c.stage_is("mentat_place", "placement_karama", "extortion_collect", "extortion_pay", "mentat_end",
                        "mentat_open")
    reload_effects: dict = {}
    if c.has("reload-reopens-placement"):
        reload_effects = {("stage", ()): c.st("mentat_place"), ("placement_used", ()): Const(False),
                          ("reloads_left", ()): Const(0)}
    out = [Rule("reload", (), mentat & (v("reloads_left") >= 1), reload_effects, ("H1",), kind="fault",
                doc="the server reloads and re-runs the Mentat Pause start handler")]
    if c.has("reload-restarts-extortion-queue"):
        out.append(Rule("reload_queue", (), c.stage_is("extortion_pay") & (v("payer") >= 1) & (v("reloads_left") >= 1),
                        {("payer", ()): Const(0), ("reloads_left", ()): Const(0)}, ("H1", "H25"), kind="fault",
                        doc="the reload re-opens the Extortion payer queue from its first rival"))
    if c.has("reload-recredits-extortion"):
        out.append(Rule(
            "reload_extortion", (), c.stage_is("extortion_pay") & v("ext_credited") & (v("reloads_left") >= 1)
            & (v("bank") >= 5),
            {("spice", (Const(M),)): v("spice", M) + 5, ("bank", ()): v("bank") - 5,
             ("reloads_left", ()): Const(0)},
            ("H1", "H2"), kind="fault", doc="the reload credits the Extortion 5 a second time"))
    out.append(Rule("retry_accepted", (), c.stage_is("entry_done") & (v("retries_left") >= 1), {},
                    ("H7",), kind="fault", doc="a client re-sends the action the server already accepted"))
    assassination = c.face("Assassination")
    if c.has("retry-rerolls") and assassination is not None:
        e, j = Param("e"), Param("j")
        out.append(Rule(
            "retry_rerolls", (P("e", c.F), P("j", c.Leader)),
            c.stage_is("entry_done") & (v("retries_left") >= 1) & v("entry_face").eq(assassination)
            & v("tstatus", assassination).eq(c.Status.index("removed")) & v("entrant").eq(e)
            & v("leader", e, j) & e.ne(M),
            {("leader", (e, j)): False, ("spice", (Const(M),)): v("spice", M) + c.strength(j),
             ("bank", ()): v("bank") - c.strength(j),
             ("retries_left", ()): Const(0)},
            ("H7",), kind="fault", doc="the retried reveal draws a second Assassination victim"))
    return out
