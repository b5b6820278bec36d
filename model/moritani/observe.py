"""What each rival sees: the observation function of the noninterference check (docs/noninterference.md).

An observation is the public board (every field that is not secret, ghost or another
faction's private card), the Terror tokens as the public sees them (placed tokens by public ID
and location, revealed tokens with their face), the observer's own Karama card, and the prompt
it is shown: the public labels of the actions it may take now. The secret is the face of every
unrevealed token; `entry_face` and `pending_face` name such faces and are secret too.

Seeded leaks (model/moritani/defects.py, target `hidden-identity`) add what a buggy engine shows.
"""
from __future__ import annotations

import re
from operator import itemgetter

from model.evaluate import eval_expr
from model.expr import Const, Expr, Ite, Var, any_of
from model.observation import Bag, Value

SECRET_FIELDS = {"tstatus", "tloc", "pid", "pid_shown", "pending_face", "entry_face", "karama",
                 "trz"}  # Traitor custody (Assassinate Leaders module): public part in `traitor_public`
# Where a token's face is still secret: in supply, on the map, or set aside face down by a Grumman removal (A18).
HIDDEN_STATUSES = ("supply", "placed", "set aside")
ENGINE_FIELDS = {"reloads_left", "retries_left", "next_pid"}  # never projected (H5)


def public_slots(model) -> tuple:
    sch = model.schema
    return tuple(i for i, f in enumerate(sch.slot_fields)
                 if not f.ghost and f.name not in SECRET_FIELDS | ENGINE_FIELDS)


def owner_slots(model) -> tuple:
    """The slots Moritani reads directly: the public board, its own tokens' custody, faces and public
    IDs (per-face fields), the face it declared or decides on, its Traitor cards' custody and its own
    Karama card; never another faction's Karama card, the supply epoch (H5: private to the engine,
    the owner included) or engine and ghost fields. The explorer's Moritani view shows these
    (checks/formats/explorer_view.py); no leak check needs it, Moritani being the secrets' owner."""
    sch, c = model.schema, model.vocabulary
    own = {"tstatus", "tloc", "pid", "pid_shown", "pending_face", "entry_face", "trz"}
    mine = {sch.slot("karama", (c.M,))}
    return tuple(i for i, f in enumerate(sch.slot_fields)
                 if i in public_slots(model) or i in mine or (not f.ghost and f.name in own))


def face_params(action) -> list:
    return [p.name for p in action.rule.params if p.domain.name == "Face"]


def public_face_params(model, action) -> list:
    """The face parameters whose token the public sees by public ID: all of them, except in Moritani's
    private picks (`Ctx.secret_choices`: which token of a stack an entry opens, R47)."""
    if action.rule.name in model.vocabulary.secret_choices:
        return []
    return face_params(action)


_FAMILY = re.compile(r"^(.*)_(\d+)$")


def face_family(model, rule_name: str):
    """(base, face) when the rule is one of a family written once per face (`offer_alliance_3`).

    The family member names the face only because the rule's legality depends on it; the
    public sees the base name (Moritani offers an alliance), never which member fired.
    """
    return face_families(model).get(rule_name)


def face_families(model) -> dict:
    """{rule name: (base, face)} for every rule of a per-face family (see `face_family`).

    The leak checks ask once per step compared, so a model's `FaceSecrets` keeps the table."""
    table = getattr(model.secrets, "families", None)
    return table if table is not None else _face_families(model)


def _face_families(model) -> dict:
    faces = model.vocabulary.faces
    names = {r.name for r in model.rules}
    out = {}
    for name in sorted(names):
        m = _FAMILY.match(name)
        if m and int(m.group(2)) in faces and all(f"{m.group(1)}_{k}" in names for k in faces):
            out[name] = (m.group(1), int(m.group(2)))
    return out


# Rules whose Traitor-card parameter is the card Moritani takes privately from the reserve deck
# (R43): the public sees that a card is drawn, never which. Every other rule naming a card reveals
# it (a normal call, an Assassinate Leaders reveal), so its card is part of the public label.
SECRET_DRAWS = ("deal_traitor", "draw_replacement")


def public_group(model, action) -> str:
    """The public label without the token: equal groups differ at most in which face is meant
    (and, for a secret draw, in which Traitor card Moritani took)."""
    fam = face_family(model, action.rule.name)
    name = fam[0] if fam else action.rule.name
    doms = {p.name: p.domain for p in action.rule.params}
    secret = {"Face"} | ({"Traitor"} if action.rule.name in SECRET_DRAWS else set())
    args = [f"{k}={doms[k].show(v)}" for k, v in action.args if doms[k].name not in secret]
    args += ["token=#" for k, v in action.args if doms[k].name == "Face"]
    args += ["card=#" for k, v in action.args if doms[k].name == "Traitor" and "Traitor" in secret]
    return f"{name}({', '.join(args)})" if args else name


def exchange_label(model, action, a: int, b: int, domain: str = "Face") -> str:
    """The label of `action` with the secret values a and b of `domain` exchanged.

    Both places where a secret value can sit in an action are exchanged: a parameter over the
    domain, and (for Terror faces) the member of a rule family written once per face
    (`offer_alliance_<face>`). Game B of a leak pair plays these labels.
    """
    swap = lambda v: b if v == a else a if v == b else v  # noqa: E731
    name = action.rule.name
    fam = face_family(model, name) if domain == "Face" else None
    if fam is not None:
        name = f"{fam[0]}_{swap(fam[1])}"
    doms = {p.name: p.domain for p in action.rule.params}
    args = [(k, swap(v) if doms[k].name == domain else v) for k, v in action.args]
    if not args:
        return name
    return f"{name}(" + ", ".join(f"{k}={doms[k].show(v)}" for k, v in args) + ")"


def public_key(model, action, pre, group: str | None = None) -> tuple:
    """What the public sees of `action` taken in `pre`: its public group (`group`, when known) and the
    public IDs of the tokens it names. Two steps with equal keys have equal public labels (the Z3
    product's `link`)."""
    params = public_face_params(model, action)
    pids = tuple(pre[model.schema.slot("pid", (v,))] for k, v in action.args if k in params) if params else ()
    return (public_group(model, action) if group is None else group), pids


def public_label(model, action, pre) -> str:
    """The action as the public sees it: face parameters become the token's public ID."""
    fam = face_family(model, action.rule.name)
    if fam and not action.args:
        return fam[0]
    if not face_params(action) and not fam:
        return action.label
    args = []
    doms = {p.name: p.domain for p in action.rule.params}
    shown = public_face_params(model, action)
    for k, v in action.args:
        if doms[k].name == "Face":
            args.append(f"token=#{pre[model.schema.slot('pid', (v,))]}" if k in shown else "token=#")
        else:
            args.append(f"{k}={doms[k].show(v)}")
    return f"{fam[0] if fam else action.rule.name}({', '.join(args)})"


def actor_of(model, action, pre):
    return eval_expr(action.actor, pre, model.schema) if action.actor is not None else None


class Observer:
    """obs(state, enabled actions) for one rival faction, as a hashable tuple.

    >>> from model.moritani.build import build_model
    >>> m = build_model()
    >>> len(Observer(m, 1).observe(m.init[0], []))  # board, tokens, revealed, own card, prompt, leaks
    6
    """

    def __init__(self, model, faction: int):
        c = model.vocabulary
        self.model, self.c, self.f = model, c, faction
        sch = model.schema
        self.public = public_slots(model)
        self.board = itemgetter(*self.public) if len(self.public) > 1 else (lambda s: (s[self.public[0]],))
        self.tokens = [(sch.slot("tstatus", (k,)), sch.slot("tloc", (k,)), sch.slot("pid", (k,))) for k in c.faces]
        self.placed = c.Status.index("placed")
        self.supply = c.Status.index("supply")
        # Public by ID, face unseen: on the map, or set aside face down by a Grumman removal (A18).
        self.shown = tuple(c.Status.index(x) for x in ("placed", "set aside") if x in c.Status.labels)
        self.hidden = tuple(c.Status.index(x) for x in HIDDEN_STATUSES if x in c.Status.labels)
        self.own = (sch.slot("karama", (faction,)),)
        self.leaks = model.provenance.defects
        if "set-aside-face-shown" in self.leaks and "set aside" in c.Status.labels:
            # Seeded leak (A18): a token the Grumman removal set aside shows its face, as if revealed.
            self.hidden = tuple(x for x in self.hidden if x != c.Status.index("set aside"))
        self.pending_face = sch.slot("pending_face")
        self.stage = sch.slot("stage")
        self.cards = traitor_slots(model)

    def observe(self, s: tuple, enabled: list) -> tuple:
        board = self.board(s) + traitor_public(model_cards=self.cards, s=s) if self.public \
            else traitor_public(model_cards=self.cards, s=s)
        placed = tuple(sorted((s[p], s[l]) for st, l, p in self.tokens if s[st] in self.shown))
        revealed = tuple((k, s[st]) for k, (st, l, p) in enumerate(self.tokens) if s[st] not in self.hidden)
        prompt = tuple(sorted(public_label(self.model, a, s) for a in enabled
                              if actor_of(self.model, a, s) == self.f))
        extra = self._leaks(s, enabled)
        return board, placed, revealed, tuple(s[i] for i in self.own), prompt, extra

    def _leaks(self, s, enabled) -> tuple:
        """What seeded engine bugs expose (empty for a correct engine)."""
        out: list[tuple | bool | int] = []
        st = self.c.Stage.labels[s[self.stage]]
        if "face-printed" in self.leaks:
            out.append(tuple((s[p], k) for k, (st_slot, _, p) in enumerate(self.tokens) if s[st_slot] == self.placed))
        if "terror-options-public" in self.leaks and st == "terror":
            out.append(tuple(sorted(a.rule.name for a in enabled if a.rule.name.startswith("reveal"))))
        if "offer-availability-public" in self.leaks and st == "terror":
            out.append(any(a.rule.name.startswith("offer_alliance") for a in enabled))
        if "placement-declaration-public" in self.leaks and st == "placement_karama":
            out.append(s[self.pending_face])
        return tuple(out)


# -- Traitor cards (Assassinate Leaders module) -------------------------------------------------
# The second secret: which Traitor card Moritani holds privately. A card in the deck or Moritani's
# private hand is hidden; a card shown by a normal call, held after an Assassinate Leaders reveal or
# set aside as a used marker is public, card and zone (R43).

def traitor_slots(model):
    """(trz slots, hidden zone codes) of the module, or None when it is off."""
    c = model.vocabulary
    if not c.module:
        return None
    return (tuple(model.schema.slot("trz", (t,)) for t in range(len(c.cards))),
            (c.TZone.index("deck"), c.TZone.index("hand")), c.TZone.index("hand"))


def traitor_public(model=None, s=None, model_cards=None) -> tuple:
    """The public Traitor cards in s as ((card, zone), ...); () without the module."""
    cards = model_cards if model_cards is not None or model is None else traitor_slots(model)
    if cards is None:
        return ()
    slots, hidden, _ = cards
    return tuple((t, s[i]) for t, i in enumerate(slots) if s[i] not in hidden)


def hidden_traitor_pairs(model, s: tuple) -> list:
    """Exchanges of Moritani's private card with a card still in the deck: [(hand card, deck card)]."""
    cards = traitor_slots(model)
    if cards is None:
        return []
    slots, (deck, hand), _ = cards
    mine = [t for t, i in enumerate(slots) if s[i] == hand]
    rest = [t for t, i in enumerate(slots) if s[i] == deck]
    return [(a, b) for a in mine for b in rest]


def swap_traitors(model, s: tuple, a: int, b: int) -> tuple:
    """The same public board with Traitor cards a and b exchanged (Moritani holds the other one)."""
    out = list(s)
    for name in ("trz", "tr_retired"):
        i, j = model.schema.slot(name, (a,)), model.schema.slot(name, (b,))
        out[i], out[j] = s[j], s[i]
    return tuple(out)


def hidden_faces(model, s: tuple) -> list:
    """Faces whose identity is secret in s (in supply or placed)."""
    c, sch = model.vocabulary, model.schema
    hidden = tuple(c.Status.index(s) for s in HIDDEN_STATUSES if s in c.Status.labels)
    return [k for k in c.faces if s[sch.slot("tstatus", (k,))] in hidden]


def swap_faces(model, s: tuple, a: int, b: int) -> tuple:
    """The same public board with the hidden faces a and b exchanged (the secret permuted)."""
    sch = model.schema
    out = list(s)
    for name in ("tstatus", "tloc", "pid", "pid_shown"):
        i, j = sch.slot(name, (a,)), sch.slot(name, (b,))
        out[i], out[j] = s[j], s[i]
    for name in ("entry_face", "pending_face"):
        i = sch.slot(name)
        out[i] = b if s[i] == a else a if s[i] == b else s[i]
    return tuple(out)



# -- the observation as model data ---------------------------------------------------------
# NOTE(observation-as-data): the explicit check evaluates `Observer.observe` (fast: it reuses the
# enabled actions the search already computed); the Z3 self-composition (checks/analyses/leaks_z3.py)
# translates `observation_spec`. Both are this module's definition; tests/test_leaks_z3.py
# requires that they induce the same equality on every reachable state of the small bounds
# under every exchange of hidden faces, each seeded leak included.

def _slot_var(model, slot: int) -> Var:
    name, idx = model.schema.slot_keys()[slot]
    return Var(name, tuple(Const(i) for i in idx))


def hidden_expr(model, k: int) -> Expr:
    """Face k is secret (in supply or placed)."""
    c = model.vocabulary
    st = Var("tstatus", (Const(k),))
    return any_of(st.eq(c.Status.index(s)) for s in HIDDEN_STATUSES if s in c.Status.labels)


def observation_spec(model, faction: int) -> tuple:
    """What rival `faction` observes, as expressions over one state (components of `Observer`)."""
    c = model.vocabulary
    shown = [c.Status.index(x) for x in ("placed", "set aside") if x in c.Status.labels]
    sentinel = len(c.Status.labels)  # "still hidden" in the revealed-tokens component
    tok = lambda f, k: Var(f, (Const(k),))  # noqa: E731
    spec: list[Value | Bag] = [
        Value("public board", tuple(_slot_var(model, i) for i in public_slots(model))),
    ]
    cards = traitor_slots(model)
    if cards is not None:  # the public Traitor cards (traitor_public): a hidden card shows as a sentinel
        slots, hidden, _ = cards
        z = [_slot_var(model, i) for i in slots]
        spec.append(Value("public board", tuple(Ite(any_of(x.eq(h) for h in hidden), Const(-1), x) for x in z)))
    spec += [
        Bag("Terror tokens on the map",
            tuple((any_of(tok("tstatus", k).eq(x) for x in shown), (Const(0), tok("pid", k), tok("tloc", k)))
                  for k in c.faces)),
        Value("revealed tokens", tuple(Ite(hidden_expr(model, k), Const(sentinel), tok("tstatus", k))
                                       for k in c.faces)),
        Value("own Karama card", (Var("karama", (Const(faction),)),)),
    ]
    groups = sorted({public_group(model, a) for a in model.actions})
    gid = {g: i for i, g in enumerate(groups)}
    prompt = []
    for a in model.actions:
        if a.actor is None or (isinstance(a.actor, Const) and a.actor.value != faction):
            continue
        cond = a.guard if isinstance(a.actor, Const) else (a.guard & a.actor.eq(faction))
        key = (Const(gid[public_group(model, a)]),) + tuple(Var("pid", (Const(v),)) for k, v in a.args
                                                            if k in public_face_params(model, a))
        prompt.append((cond, key))
    spec.append(Bag("prompt (legal choices)", tuple(prompt)))
    leaks = model.provenance.defects
    stage = Var("stage")
    if "face-printed" in leaks:
        spec.append(Value("engine leak", tuple(Ite(tok("tstatus", k).eq(c.Status.index("placed")), tok("pid", k), Const(0))
                                               for k in c.faces)))
    if "terror-options-public" in leaks:
        names = sorted({a.rule.name for a in model.actions if a.rule.name.startswith("reveal")})
        spec.append(Bag("engine leak", tuple((stage.eq(c.st("terror")) & a.guard, (Const(names.index(a.rule.name)),))
                                             for a in model.actions if a.rule.name in names)))
    if "offer-availability-public" in leaks:
        spec.append(Value("engine leak", (stage.eq(c.st("terror")) & any_of(
            a.guard for a in model.actions if a.rule.name.startswith("offer_alliance")),)))
    if "placement-declaration-public" in leaks:
        spec.append(Value("engine leak", (Ite(stage.eq(c.st("placement_karama")), Var("pending_face"),
                                               Const(len(c.faces))),)))
    if "set-aside-face-shown" in leaks and "set aside" in c.Status.labels:
        aside = c.Status.index("set aside")
        spec.append(Value("engine leak", tuple(Ite(tok("tstatus", k).eq(aside), Const(1), Const(0)) for k in c.faces)))
    return tuple(spec)


def face_slot_live(model) -> dict:
    """{face-valued slot: the stage condition under which its value means a face}.

    Outside it the slot holds the idle value 0 its last reset wrote (`pending_face` after a commit,
    `entry_face` after an arrival settles) and no rule reads it before writing it again, so an
    exchange of faces need not map it. The Z3 relational proof (checks/analyses/leaks_z3.py `related`)
    maps a face slot only where it is live; the proof checks that this is inductive, so a wrong
    condition here can only make the proof fail, never make it unsound.
    """
    c, sch = model.vocabulary, model.schema
    stage = Var("stage")
    # entry_face is read while Moritani decides (reveal, offer, the entrant's reply); once the token
    # is revealed or back in supply (re-dealt IDs) the slot only waits for the arrival to settle.
    return {sch.slot("pending_face"): stage.eq(c.st("placement_karama")),
            sch.slot("entry_face"): any_of(stage.eq(c.st(n)) for n in ("terror", "eome_karama", "eome_reply"))}


def exchange_slots(model, a: int, b: int) -> tuple:
    """The exchange of hidden faces a and b as data: (slot permutation, face-valued slots).

    σ(s)[i] = s[perm[i]], and a face-valued slot's value v becomes σ(v).
    """
    sch = model.schema
    perm = list(range(len(sch)))
    for name in ("tstatus", "tloc", "pid", "pid_shown"):
        i, j = sch.slot(name, (a,)), sch.slot(name, (b,))
        perm[i], perm[j] = j, i
    return tuple(perm), (sch.slot("entry_face"), sch.slot("pending_face"))


def face_permutation(model, t: tuple, t2: tuple) -> dict | None:
    """{face of t: face of t2} when t2 equals t up to a permutation of hidden faces, else None.

    The permutation is read off the public IDs, as the Z3 relational proof reads it
    (NOTE(pid-matching) in checks/analyses/leaks_z3.py): the token of t2 under each public ID has the same
    custody as t's token under it, a token that changes face is hidden, every slot no exchange
    touches is equal, and a face-valued slot names tokens with one ID where it is live
    (`face_slot_live`; elsewhere it is idle, written before it is read again).
    """
    return FaceMatcher(model)(t, t2)


class FaceMatcher:
    """`face_permutation` with the slot tables of one model computed once (the leak check calls it
    once per pair of equally labelled steps)."""

    def __init__(self, model):
        c, sch = model.vocabulary, model.schema
        self.model, self.faces = model, tuple(c.faces)
        self.pid = tuple(sch.slot("pid", (x,)) for x in c.faces)
        self.custody = tuple(tuple(sch.slot(n, (x,)) for n in ("tstatus", "tloc", "pid_shown")) for x in c.faces)
        moved = set(exchange_slots(model, *c.faces[:2])[1]) if len(c.faces) > 1 else set()
        moved |= {sch.slot(n, (x,)) for n in ("tstatus", "tloc", "pid", "pid_shown") for x in c.faces}
        # Monitors record history the rules never read and no rival sees; they may differ between the games.
        history = {m.field.name for m in model.monitors}
        moved |= {i for i, f in enumerate(sch.slot_fields) if f.name in history}
        fixed = tuple(i for i in range(len(sch)) if i not in moved)
        self.fixed = itemgetter(*fixed) if fixed else (lambda s: ())
        self.live = tuple(face_slot_live(model).items())

    def __call__(self, t: tuple, t2: tuple) -> dict | None:
        if self.fixed(t) != self.fixed(t2):
            return None
        by_pid = {t2[i]: y for y, i in zip(self.faces, self.pid)}
        if len(by_pid) != len(self.faces):
            return None
        hidden = set(hidden_faces(self.model, t))
        pi = {}
        for x, i, cx in zip(self.faces, self.pid, self.custody):
            y = by_pid.get(t[i])
            if y is None or (x != y and x not in hidden):
                return None
            cy = self.custody[self.faces.index(y)]
            if any(t[a] != t2[b] for a, b in zip(cx, cy)):
                return None
            pi[x] = y
        sch = self.model.schema
        for i, live in self.live:
            if eval_expr(live, t, sch) and pi.get(t[i]) != t2[i]:
                return None
        return pi
