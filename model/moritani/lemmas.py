"""Stage-consistency lemmas: facts about one reachable state that the invariants leave implicit.

The contract's invariants are true of every reachable state but are not inductive on their own:
their induction failures are unreachable states of the decision-stage machine (docs/proofs.md).
These lemmas rule those states out. They are never assumed: the Z3 relational proof of
`hidden-identity` (checks/analyses/leaks_z3.py) conjoins them, with `token-conservation` and
`public-ids-fresh`, to its relation and proves the whole conjunction inductive, which proves each
lemma for games of any length; tests/test_leaks_z3.py also evaluates them on every reachable
state of the explicit graph.
"""
from __future__ import annotations

from model.expr import Const, Expr, all_of, implies
from model.moritani import grumman, separation
from model.moritani.nexus import card_lemmas
from model.moritani.stacks import sharing
from model.properties import Property, always

# The contract invariants the relational induction conjoins with the lemmas below.
STRENGTHEN = ("token-conservation", "public-ids-fresh", "stacks-only-by-cunning")  # the last: Nexus module only


def lemmas(model) -> list[Property]:
    """The lemmas of `model` as `always` properties (not contract checks: not in model.invariants)."""
    c = model.vocabulary
    v, S = c.v, c.Status
    hidden = lambda k: v("tstatus", k).eq(S.index("supply")) | v("tstatus", k).eq(S.index("placed"))  # noqa: E731
    out = [
        # Public IDs are dealt below the supply epoch (R2, H4): a fresh deal never reuses one.
        always("pid-below-epoch", all_of(v("pid", k) < v("next_pid") for k in c.faces), ("H4",),
               "every public ID is below the supply epoch"),
        # The placement window (R7, R8): the declared token is still hidden and its destination is a
        # stronghold no token occupies, so the commit cannot stack two tokens.
        always("placement-window", implies(
            c.stage_is("placement_karama"),
            v("pending_dest").ne(c.none_dest) & _empty_or_cunning(c, v("pending_dest")) & hidden(v("pending_face"))),
            ("R7", "R8"), "a declared placement names a hidden token and an empty stronghold (or one token's, once "
                          "Nexus Cunning is spent)"),
        # While Moritani decides (R11, R19): the decided token is placed where the entrant arrived.
        always("decision-token", implies(
            c.stage_is("terror", "eome_karama", "eome_reply"),
            v("tstatus", v("entry_face")).eq(S.index("placed")) & v("tloc", v("entry_face")).eq(v("entry_loc"))),
            ("R11", "R19"), "during a Terror decision the token is placed in the entered stronghold"),
    ]
    out += card_lemmas(c)
    ext = c.face("Extortion")
    if ext is not None:
        # The payer queue (R37) is open exactly while the 5 are credited and the token is revealed.
        out.append(always("extortion-window", v("ext_credited").eq(c.stage_is("extortion_pay"))
                          & implies(v("ext_credited"), v("tstatus", ext).eq(S.index("extortion"))),
                          ("R37",), "the payer queue is open exactly while the collected Extortion is out"))
    return out


def _empty_or_cunning(c, dest) -> Expr:
    """No token at dest, unless Moritani's Nexus card has been played (Cunning stacks onto one, R48)."""
    empty = ~c.any_token_at(dest)
    if grumman.addition_at_placement(c):  # the high side lets the placement go onto a token (R46)
        empty = empty | grumman.high(c)
    if c.nexus and c.fac(c.bounds.nexus_card) == c.M:
        # The Cunning declaration just spent the card: the commit makes the first and only pair (with the
        # Grumman module a stack may already lie there).
        first = Const(True) if c.grumman else ~sharing(c)
        return empty | (c.v("nexus_holder").eq(c.none_ally) & c.v("cunning_played").eq(1) & first)
    return empty


def hints(model) -> list[tuple[str, Expr]]:
    """(name, predicate) of the candidate lemmas offered to `prove`'s lemma inference (NOTE(hints) in
    checks/analyses/infer.py): true of every reachable state (tests/test_lemmas_proof.py checks them state by
    state) but inductive only together with lemmas the inference finds, so not among `lemmas` above, which the
    relational induction of `hidden-identity` must prove with the contract invariants alone."""
    return separation.visit_lemma(model.vocabulary)


def strengthening(model) -> list[tuple[str, Expr]]:
    """(name, predicate) of every single-game fact the relational induction conjoins."""
    inv = {p.name: p.predicate for p in model.invariants}
    return [(n, inv[n]) for n in STRENGTHEN if n in inv] + [(p.name, p.predicate) for p in lemmas(model)]
