"""Noninterference (`hidden-identity`) by Z3 self-composition (docs/noninterference.md).

Two copies of the transition relation, game A and game B, with their own symbols (`A.slot@k`,
`B.slot@k`). A starts in the initial state, B in σ(initial) for an exchange σ of two hidden
faces chosen by the solver (`pair`). At every step both games take actions with equal public
labels (same rule group, same public ID for the token the action names: `link`). The goal is a
step where some rival's observation (`model/moritani/observe.py: observation_spec`) of A and of B
differ. A step of A with no public-equivalent step in B ends the pair: a reveal of one of the
exchanged faces declassifies it, which is exactly the definition's declassification.

BMC finds the shortest such pair; both games are decoded, replayed through the reference
semantics, and the observations are recomputed concretely before a leak is reported.

The unbounded proof is 1-induction over the product on the unbounded-turn model, strengthened by
the natural invariant of self-composition: B equals A up to a permutation of the hidden faces
(a permutation, not only the first exchange: when a token returns to supply the public IDs of
the whole supply are re-dealt by rank, which composes the exchange with another one), read off
the public IDs (NOTE(pid-matching)); face-valued slots are related only where they are live
(`observe.face_slot_live`); with the Assassinate Leaders module the Traitor cards' custody is
equal up to a permutation of the hidden cards (`_cards_related`); game A satisfies the
stage-consistency lemmas of `model/moritani/lemmas.py`, which the same induction proves.
"""
from __future__ import annotations

import copy
import itertools
import time

import z3

from checks.clock import Clock
from checks.engines.bmc import decode, solver
from checks.engines.encode import Encoder, decide
from checks.engines.product import Product
from checks.results import CheckResult, InternalError, validated
from model.observation import observe_spec
from model.expr import Var
from model.trace import Trace

RULES = ("H3", "H4", "H6", "A21")


# -- BMC -------------------------------------------------------------------------------------------

def leak_bmc(model, depth: int, seed: int = 0, observers: list[str] | None = None,
             timeout: float | None = None) -> tuple[list[CheckResult], dict]:
    """Shortest pair of public-equivalent games that some rival tells apart, up to `depth` steps."""
    from checks.analyses.leaks import Leak
    sec = model.secrets
    rivals = [f for f in sec.observers if observers is None or sec.label(f) in observers]
    t0 = time.perf_counter()
    clock = Clock(timeout, started=t0)
    # NOTE(traitor-secret): with the Assassinate Leaders module on, the second secret (which
    # Traitor card Moritani holds) needs no exchange at the start: both games start with the deck
    # full, and a secret draw's public label hides the card (observe.SECRET_DRAWS), so game B may
    # draw another card than game A under the same public steps. That is the explicit engine's
    # exchange of the private card with a deck card, made by the draws themselves.
    if len(sec.values) < 2 and sec.cards() is None:
        secs = time.perf_counter() - t0
        return [_result(sec.label(f), "proved", None, secs, f"{sec.label(f)}: a single face has no exchange; "
                                                             f"nothing is secret") for f in rivals], \
            {"depth": 0, "seconds": secs}
    # NOTE(product-solver): integers on Z3's default SMT solver, not the bit-vector QF_FD encoding
    # BMC uses for one game: showing that two games look alike is equivalence checking, where
    # the SMT core's congruence closure wins (terror-options-public on the small bounds, depth 6:
    # 152 s with bit-vectors on QF_FD, 5 s with integers; docs/performance.md).
    prod = Product(model, functional=True, bits=None)
    s = solver(prod.ctx, seed, None, logic=None)
    if timeout is not None:  # Z3's own clock for the query in flight; the loop checks between depths
        s.set("timeout", max(1, int(timeout * 1000)))
    s.add(prod.start())
    found: dict = {}
    reached = -1
    for k in range(depth + 1):
        if k > 0:
            s.add(prod.step(k - 1))
        open_f = [f for f in rivals if f not in found]
        goals = {f: z3.Not(prod.obs_equal(f, k)) for f in open_f}
        # One query for "some rival tells the games apart" first: at most depths nobody can.
        any_lit = z3.Bool(f"leak:any@{k}", prod.ctx)
        s.add(z3.Implies(any_lit, z3.Or(list(goals.values()))))
        r = decide(s, any_lit)
        if r == z3.unknown:
            for f in open_f:
                found[f] = f"solver: {s.reason_unknown()} at depth {k}"
        elif r == z3.sat:
            for f in open_f:
                lit = z3.Bool(f"leak:{f}@{k}", prod.ctx)
                s.add(z3.Implies(lit, goals[f]))
                r = decide(s, lit)
                if r == z3.sat:
                    found[f] = _decode_pair(prod, s.model(), k, f, Leak)
                elif r == z3.unknown:
                    found[f] = f"solver: {s.reason_unknown()} at depth {k}"
        reached = k
        if len(found) == len(rivals) or clock.out(slack=0):
            break
    secs = time.perf_counter() - t0
    out = [_bmc_verdict(sec, f, found.get(f), reached, depth, secs) for f in rivals]
    return out, {"depth": reached, "seconds": secs}


def _result(observer: str, verdict: str, depth, secs: float, detail: str, **kw) -> CheckResult:
    return CheckResult(id="hidden-identity", kind="noninterference", verdict=verdict, engine="z3", rules=RULES,
                       states=None, depth=depth, seconds=secs, detail=detail,
                       extra={"observer": observer} | kw.pop("extra", {}), **kw)


def _bmc_verdict(sec, f: int, lk, reached: int, depth: int, secs: float) -> CheckResult:
    """violated (with the replayed pair), unknown (a solver answer or the clock), or bounded."""
    name = sec.label(f)
    if lk is not None and not isinstance(lk, str):
        labels = sec.value_labels if lk.secret == "value" else sec.card_labels
        return _result(name, "violated", lk.game_a.depth, secs,
                       f"{name} can tell {labels[lk.faces[0]]} from {labels[lk.faces[1]]} after "
                       f"{lk.game_a.depth} steps: its {lk.component} differs (Z3 pair, both games replayed)",
                       trace=lk.game_a, extra={"leak": lk})
    if isinstance(lk, str) or reached < depth:
        why = lk if isinstance(lk, str) else f"timeout after depth {reached}"
        return _result(name, "unknown", reached, secs, f"{name}: {why}; nothing is claimed")
    return _result(name, "bounded", depth, secs,
                   f"{name} sees the same in every pair of public-equivalent games' first {depth} steps "
                   f"(Z3 self-composition, every exchange of two faces"
                   + (", every Traitor card Moritani may draw" if sec.cards() is not None else "") + ")")


def _decode_pair(prod: Product, m: z3.ModelRef, k: int, f: int, Leak):
    """Both games from a Z3 model, replayed concretely; the observation difference recomputed."""
    model, sec = prod.model, prod.sec
    a, b = prod.pairs[m.eval(prod.pair, model_completion=True).as_long()]
    game_a = decode(prod.A, m, k, "hidden-identity (game A)")
    # Game B starts in σ(init); the concrete game B is the model whose initial public IDs are
    # exchanged. The two starts differ only in the idle declared/entry face (read after written),
    # so B's labels are replayed from model_b's own initial state and must be enabled there.
    enc_b = copy.copy(prod.B)
    labels_b = enc_b.read_actions(m, k)
    b_z3 = [enc_b.read_state(m, j) for j in range(k + 1)]
    model_b = next(iter(sec.partner_models(model, (a, b))))
    try:
        game_b = Trace.from_actions(model_b, model_b.init[0], labels_b)
    except Exception as e:
        raise InternalError(f"Z3 leak pair: game B does not replay from its initial state: {e}") from None
    idle = set(sec.exchange_slots(a, b)[1])
    for j, st in enumerate(game_b.states):
        bad = [i for i in range(len(st)) if st[i] != b_z3[j][i] and i not in idle]
        if bad:
            raise InternalError(f"Z3 leak pair: game B disagrees with the concrete semantics at step {j}")
    for mm, t, side in ((model, game_a, "A"), (model_b, game_b, "B")):
        validated(mm, t, f"the Z3 leak pair (game {side})")
    spec = sec.spec(f)
    o1 = observe_spec(model.schema, spec, game_a.states[-1])
    o2 = observe_spec(model_b.schema, spec, game_b.states[-1])
    if o1 == o2:
        raise InternalError("Z3 reported a leak that the concrete observations do not show")
    comp = next(i for i, (x, y) in enumerate(zip(o1, o2)) if x != y)
    secret, pair = "value", (a, b)
    cards = sec.cards()
    if cards is not None:
        # The games drew different Traitor cards: the leak is about that secret (the cards Moritani
        # held privately at the first step where custody differs), as the explicit engine reports it.
        slots, _, hand = cards
        for sa, sb in zip(game_a.states, game_b.states):
            if any(sa[i] != sb[i] for i in slots):
                mine = lambda st: next((t for t, i in enumerate(slots) if st[i] == hand), None)  # noqa: E731
                if mine(sa) is not None and mine(sb) is not None:
                    secret, pair = "card", (mine(sa), mine(sb))
                break
        if secret == "card":
            # The face exchange the solver also picked is idle here when B's steps replay from the
            # unexchanged start and still look different: show the pair the explicit engine shows.
            try:
                plain = Trace.from_actions(model, model.init[0], labels_b)
            except Exception:
                plain = None
            if plain is not None and plain.replay(model) == [] and \
                    observe_spec(model.schema, spec, plain.states[-1])[comp] != o1[comp]:
                game_b, model_b, o2 = plain, model, observe_spec(model.schema, spec, plain.states[-1])
    return Leak(sec.label(f), pair, game_a, game_b, spec[comp].name, o1[comp], o2[comp], model_b, secret)


# -- unbounded proof ----------------------------------------------------------------------------

def _within(s, clock: Clock) -> bool:
    """Give solver `s` what is left of `clock` as its timeout; False if nothing is left."""
    if clock.timeout is None:
        return True
    if clock.out(slack=0):
        return False
    s.set("timeout", clock.ms())
    return True


def leak_proof(model, seed: int = 0, rlimit: int = 0, observers: list[str] | None = None,
               debug: bool = False, timeout: float | None = None) -> dict:
    """1-induction of "observations equal" over the product of the unbounded-turn model.

    Three obligations, each an unsat query: the start pair is related (base); a related pair
    stays related after any two steps with equal public labels (step); related states look the
    same to the observer. The step is asked one conjunct of the relation at a time on one solver
    (NOTE(split-step)): a conjunction is implied iff each conjunct is, and the 143 small queries
    take about 45 s on the default profile where the single query took 170 s.

    `model` is the unbounded-turn model (games of any length). Returns {observer: (verdict, reason,
    seconds)} with verdict proved or unknown. `timeout` (seconds) bounds every query together: what
    it cuts short is unknown.
    """
    sec = model.secrets
    rivals = [f for f in sec.observers if observers is None or sec.label(f) in observers]
    t0 = time.perf_counter()
    clock = Clock(timeout, started=t0)
    late = {f: ("unknown", "--timeout reached before the proof finished", 0.0) for f in rivals}
    prod = Product(model, functional=False, bits=None)
    rel0 = related(prod, 0)
    # Base: the start pair is related.
    base = z3.Solver(ctx=prod.ctx)
    base.set("random_seed", seed)
    base.add(prod.start())
    if not _within(base, clock):
        return late
    if decide(base) != z3.sat:  # an empty start would make the base case hold vacuously
        return {f: ("unknown", "the start pair is inconsistent", time.perf_counter() - t0) for f in rivals}
    base.add(z3.Not(rel0))
    r = decide(base)
    if r != z3.unsat:
        why: str | None = ("the start pair is not related up to a permutation of hidden faces" if r == z3.sat
               else f"solver: {base.reason_unknown()}")
        return {f: ("unknown", why, time.perf_counter() - t0) for f in rivals}
    # Related states look the same (first: a leaky model fails here in seconds, before the step).
    for f in rivals:
        why = _check_obs_implied(prod, f, seed, rlimit, clock)
        if why is not None:
            return {g: ("unknown", why if g == f else f"not attempted: {sec.label(f)}: {why}",
                        time.perf_counter() - t0) for g in rivals}
    # Step: related pairs stay related after any two steps with equal public labels.
    s = z3.Solver(ctx=prod.ctx)
    s.set("random_seed", seed)
    if rlimit:
        s.set("rlimit", rlimit)
    s.add(rel0, prod.step(0))
    # Not vacuous: some related pair takes a step (an inconsistent lemma would make every query unsat).
    if not _within(s, clock):
        return late
    if decide(s) != z3.sat:
        why = f"the relation admits no step ({decide(s)}); nothing is claimed"
        return {f: ("unknown", why, time.perf_counter() - t0) for f in rivals}
    why = _step_obligations(model, prod, s, clock, debug)
    if why is not None:
        return {f: ("unknown", why, time.perf_counter() - t0) for f in rivals}
    cards = " and of the hidden Traitor cards" if sec.cards() is not None else ""
    return {f: ("proved", f"1-inductive over the product: B equals A up to a permutation of the hidden faces{cards}, "
                          "with the stage-consistency lemmas proved alongside, and related states look the same "
                          "to every rival", time.perf_counter() - t0) for f in rivals}


def _step_obligations(model, prod: Product, s, clock: Clock, debug: bool) -> str | None:
    """The step of the 1-induction, one conjunct of the relation at a time (NOTE(split-step)): None
    when every conjunct is implied, else why not."""
    A = prod.A
    rel1 = related(prod, 1)
    for part in rel1.children() if z3.is_and(rel1) else [rel1]:
        if not _within(s, clock):
            return "--timeout reached before the proof finished"
        s.push()
        s.add(z3.Not(part))
        r = decide(s)
        if r == z3.sat:
            m = s.model()
            act = model.actions[m.eval(A.act(0), model_completion=True).as_long()].label
            if debug:
                for j in (0, 1):
                    print("A", j, model.schema.pretty(A.read_state(m, j)))
                    print("B", j, model.schema.pretty(prod.B.read_state(m, j)))
                print("B act", model.actions[m.eval(prod.B.act(0), model_completion=True).as_long()].label)
            return (f"the relation is not 1-inductive: '{_short(part)}' breaks after '{act}' from an "
                    f"unconstrained related pair (maybe unreachable; the relation needs strengthening)")
        if r == z3.unknown:
            return f"solver: {s.reason_unknown()} on the step for '{_short(part)}'"
        s.pop()
    return None


def lemmas_inductive(model, seed: int = 0) -> str | None:
    """None when the single-game facts of the relation (`lemmas.strengthening`) are 1-inductive
    on one game by themselves (so they hold in every reachable state of games of any length,
    whatever B does); else why not. Base: the initial states satisfy them."""
    enc = Encoder(model, unbounded_slots=model.unbounded_slots)
    facts = list(model.lemmas)
    s = z3.Solver(ctx=enc.ctx)
    s.set("random_seed", seed)
    at = lambda k: z3.And([enc.as_bool(enc.translate(e, k)) for _, e in facts])  # noqa: E731
    for query in (z3.And(enc.init(0), enc.domain(0), z3.Not(at(0))),
                  z3.And(enc.domain(0), at(0), enc.trans(0), enc.domain(1), z3.Not(at(1)))):
        s.push()
        s.add(query)
        r = decide(s)
        if r != z3.unsat:
            return f"solver: {s.reason_unknown()}" if r == z3.unknown else "not 1-inductive on one game"
        s.pop()
    return None


def _short(e: z3.ExprRef, width: int = 80) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _check_obs_implied(prod: Product, f: int, seed: int, rlimit: int, clock: Clock | None = None) -> str | None:
    """Related states look the same to f (None), or why this could not be shown."""
    s = z3.Solver(ctx=prod.ctx)
    s.set("random_seed", seed)
    if rlimit:
        s.set("rlimit", rlimit)
    if not _within(s, clock or Clock(None)):
        return "--timeout reached before the proof finished"
    s.add(prod.A.domain(1), prod.B.domain(1), related(prod, 1), z3.Not(prod.obs_equal(f, 1)))
    r = decide(s)
    if r == z3.unsat:
        return None
    if r == z3.sat:
        return "two states equal up to a permutation of hidden faces look different (maybe unreachable)"
    return f"solver: {s.reason_unknown()}"


def related(prod: Product, k) -> z3.BoolRef:
    """B@k equals A@k up to some permutation of the faces that moves hidden faces only.

    NOTE(pid-matching): the permutation is not a disjunction over all n! candidates (720 for six
    faces: the step query did not finish in 10 minutes) but is read off the public IDs. IDs are
    distinct in each game, so "every token of A has a token of B under the same ID, with the same
    custody, and a token that changes face is hidden" defines exactly one bijection π, and a
    face-valued slot maps by π exactly when both games' slots name tokens with one ID. The
    relation stays quantifier-free, so its negation at step k+1 is a finite query.
    """
    model, sec = prod.model, prod.sec
    A, B = prod.A, prod.B
    sch = model.schema
    values, idf = sec.values, sec.id_field
    tok_slots = {sch.slot(n, (x,)) for n in sec.per_value_fields for x in values}
    face_slots = sec.exchange_slots(*values[:2])[1] if len(values) > 1 else ()
    # Monitor slots are left out: no rule reads them and no rival observes them (model/monitors.py), so
    # the games' futures and observations never depend on them, and some (an Extortion credit count)
    # legitimately differ between two games whose faces differ.
    history = {i for i, f in enumerate(sch.slot_fields) if f.name in {m.field.name for m in model.monitors}}
    cards = sec.cards()
    card_slots = set(cards[0]) if cards is not None else set()
    same = [A.var(i, k) == B.var(i, k) for i in range(len(sch))
            if i not in tok_slots and i not in face_slots and i not in history and i not in card_slots]
    if cards is not None:
        same += _cards_related(prod, cards, k)
    # Game A satisfies the model's lemmas (for Moritani: token-conservation, public-ids-fresh and the
    # stage-consistency lemmas of model/moritani/lemmas.py). They are part of the relation, so the
    # induction proves them too; none is assumed.
    same += [A.as_bool(A.translate(e, k)) for _, e in model.lemmas]
    same += [A.domain(k), B.domain(k)]
    pa = {x: A.var(sch.slot(idf, (x,)), k) for x in values}
    pb = {y: B.var(sch.slot(idf, (y,)), k) for y in values}
    same += [pb[x] != pb[y] for x, y in itertools.combinations(values, 2)]
    hid = {x: A.as_bool(A.translate(sec.hidden_expr(x), k)) for x in values}
    for x in values:
        same.append(z3.Or([pa[x] == pb[y] for y in values]))
        for y in values:
            custody = [B.var(sch.slot(n, (y,)), k) == A.var(sch.slot(n, (x,)), k) for n in sec.custody_fields]
            same.append(z3.Implies(pa[x] == pb[y], z3.And(custody + ([hid[x]] if x != y else []))))
    # A face slot is read only where it is live (Secrets.live); elsewhere it holds an idle reset or
    # the last entry's face, and is written before it is read again.
    for i, e in sec.live().items():
        name = sch.slot_names[i].split("[")[0]
        live = A.as_bool(A.translate(e, k))
        ida = A.translate(Var(idf, (Var(name),)), k)
        idb = B.translate(Var(idf, (Var(name),)), k)
        same.append(z3.Implies(live, ida == idb))
    return z3.And(same)


def _cards_related(prod: Product, cards, k) -> list:
    """B's Traitor cards equal A's up to a permutation of the hidden ones (NOTE(traitor-secret)).

    A card's zone is public unless it is a hidden zone (the reserve deck, Moritani's private hand).
    Public cards sit in the same zone in both games; the same cards are hidden in both; and each
    hidden zone holds as many cards in A as in B. That is exactly "some permutation of the hidden
    cards maps A's zones onto B's", stated without enumerating permutations.
    """
    A, B = prod.A, prod.B
    slots, hidden, _ = cards
    out = []
    for i in slots:
        a, b = A.var(i, k), B.var(i, k)
        hid_a, hid_b = z3.Or([a == h for h in hidden]), z3.Or([b == h for h in hidden])
        out += [hid_a == hid_b, z3.Implies(z3.Not(hid_a), a == b)]
    for h in hidden:
        out.append(z3.Sum([z3.If(A.var(i, k) == h, 1, 0) for i in slots])
                   == z3.Sum([z3.If(B.var(i, k) == h, 1, 0) for i in slots]))
    return out


def check_leaks_z3(model, depth: int, seed: int = 0, observers: list[str] | None = None,
                   prove: bool = True, rlimit: int = 0, timeout: float | None = None) -> tuple[list[CheckResult], dict]:
    """`hidden-identity` by Z3: BMC for the shortest leak pair, then the unbounded relational proof
    (on the model's unbounded-turn sibling)."""
    t_start = time.perf_counter()
    results, stats = leak_bmc(model, depth, seed, observers, timeout)
    if not prove or not any(r.verdict == "bounded" for r in results):
        return results, stats
    t0 = time.perf_counter()
    want = [r.observer for r in results if r.verdict == "bounded" and r.observer is not None]
    rest = Clock(timeout, started=t_start).left()
    proofs = leak_proof(model.provenance.sibling(unbounded=True), seed, rlimit, want, timeout=rest)
    sec = model.secrets
    stats["proof_seconds"] = time.perf_counter() - t0
    for r in results:
        if r.verdict != "bounded":
            continue
        f = sec.observer_index(r.observer)
        verdict, why, secs = proofs[f]
        if verdict == "proved":
            r.verdict, r.depth = "proved", None
            r.detail = f"{r.observer} sees the same in every pair of public-equivalent games of any length ({why})"
        else:
            r.detail += f"; no unbounded proof: {why}"
        r.seconds += secs
    return results, stats
