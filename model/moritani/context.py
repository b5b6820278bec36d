"""Shared vocabulary of the Moritani model: domains, stages and expression helpers.

The rule modules (`mentat`, `arrivals`, `terror`, `effects`, `faults`) all
build on one Ctx, so a field or stage has exactly one name.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model.domains import Enum
from model.expr import Const, Var, all_of, any_of, count, ite, lift, sum_of
from model.moritani.config import (ATOMICS_PENALTY, BG_ADVISORS_OCCUPY, GRUMMAN_REMOVAL, C, Bounds, Choices,
                                   Interpretation)

# Seeded defects whose engine throws and stops the game (DuneBot, issue 34): a stage `halted` with no rule.
HALTING_DEFECTS = ("robbery-draw-halts", "sabotage-empty-hand-halts")

STAGES = (
    "storm", "bidding", "ship_move", "react", "advisor", "ambassador",
    "terror", "eome_karama", "eome_reply", "robbery", "robbery_discard",
    "assassinate", "sabotage_gift", "sneak", "entry_done",
    "mentat_place", "placement_karama", "extortion_collect", "extortion_pay",
    "mentat_end", "game_over",
    "mentat_open",  # A5 unordered: the scheduler picks the next pending Mentat event
)
# Stages where a Terror decision is in progress for the current entry.
TERROR_STAGES = ("terror", "eome_karama", "eome_reply", "robbery", "robbery_discard",
                 "assassinate", "sabotage_gift", "sneak")
# Stages of the optional Assassinate Leaders module (appended only when bounds.assassinate_leaders is on,
# so the default model's Stage domain is unchanged): the secret Traitor deal, the abstract battle,
# Moritani's reveal-or-continue decision and the Mentat replacement draw.
ASSASSINATE_STAGES = ("traitor_deal", "battle", "assassinate_offer", "traitor_draw")
# Where a Traitor card is (R43): the reserve deck, Moritani's private hand, Moritani's hand face up after
# a normal traitor call, revealed by Assassinate Leaders and held until the Mentat Pause, set aside face up.
TRAITOR_ZONES = ("deck", "hand", "shown", "held", "marker")
# The Grumman module's Spice Collection step (after Shipment & Movement, before the Mentat Pause), appended
# only when bounds.grumman is on.
GRUMMAN_STAGES = ("collection",)
MENTAT_STAGES = ("mentat_place", "placement_karama", "extortion_collect", "extortion_pay", "mentat_open")
STATUSES = ("supply", "placed", "removed", "extortion")
CAUSES = ("shipment", "movement", "advisor", "sneak")
REACTIONS = ("advisor", "ambassador", "terror")
DESERT = "open desert"


@dataclass
class Ctx:
    bounds: Bounds
    interp: Interpretation
    defects: frozenset = frozenset()
    unbounded: bool = False  # no turn bound: turns cycle (NOTE(unbounded) in mentat.py)
    F: Enum = field(init=False)
    Ally: Enum = field(init=False)
    L: Enum = field(init=False)       # strongholds + the open desert
    Dest: Enum = field(init=False)    # strongholds + none
    K: Enum = field(init=False)
    Stage: Enum = field(init=False)
    Status: Enum = field(init=False)
    Cause: Enum = field(init=False)

    def __post_init__(self):
        b = self.bounds
        self.F = Enum("Faction", b.factions)
        self.Ally = Enum("Ally", b.factions + ("none",))
        self.L = Enum("Location", b.strongholds + (DESERT,))
        self.Dest = Enum("Stronghold", b.strongholds + ("none",))
        self.K = Enum("Face", b.faces)
        self.Effect = Enum("Effect", b.faces)  # a face's name where an engine shows it (seeded leaks only)
        self.module = b.assassinate_leaders
        self.nexus = b.nexus_card is not None  # the Nexus card module (model/moritani/nexus.py)
        # Rules whose face parameter is Moritani's private pick (which token of a stack an entry opens,
        # R47): the public sees that a decision opens, never for which token (model/moritani/observe.py).
        self.grumman = b.grumman  # Homeworlds with Moritani's Grumman card (model/moritani/grumman.py)
        self.stacks = self.nexus or self.grumman  # several tokens may share a stronghold (model/moritani/stacks.py)
        self.secret_choices = ("open_terror",) if self.stacks else ()
        self.worms = b.worm_rides  # Fremen worm rides as entries (model/moritani/worms.py)
        self.Stage = Enum("Stage", STAGES + (ASSASSINATE_STAGES if self.module else ())
                          + (GRUMMAN_STAGES if self.grumman else ()) + (("worm",) if self.worms else ())
                          + (("setup",) if b.setup_forces is not None else ())
                          + (("revival",) if b.revival is not None else ())
                          + (("halted",) if self.halts() else ()))
        # A Grumman removal out of the game (A18) leaves a face nobody saw: a status of its own, still secret.
        set_aside = self.grumman and self.chose(GRUMMAN_REMOVAL.OUT_OF_GAME)
        self.Status = Enum("Status", STATUSES + (("set aside",) if set_aside else ()))
        self.Cause = Enum("Cause", CAUSES + (("worm ride",) if self.worms else ())
                          + (("revival",) if b.revival is not None else ())
                          + (("cross-ship",) if b.cross_ship else ())
                          + (("relocation",) if b.ambassador_relocation else ()))
        # How the entry under way began, as the `entry_begun` monitor sees it (A24; model/moritani/monitors.py).
        self.Begun = Enum("Begun", ("shipment or movement",) + (("worm ride",) if self.worms else ())
                          + (("revival",) if b.revival is not None else ())
                          + (("cross-ship",) if b.cross_ship else ()))
        self.Leader = Enum("Leader", tuple(f"leader {i + 1} (strength {s})" for i, s in enumerate(b.leaders)))
        self.M = 0
        # One Traitor card per rival leader (module only): card index -> (faction index, leader index).
        self.cards = tuple((f, j) for f in range(1, len(b.factions)) for j in range(len(b.leaders)))
        self.T = Enum("Traitor", tuple(f"{b.factions[f]} leader {j + 1}" for f, j in self.cards))
        self.TZone = Enum("TraitorZone", TRAITOR_ZONES)
        self.rivals = tuple(range(1, len(b.factions)))
        self.holds = tuple(range(len(b.strongholds)))   # stronghold indices (same in L and Dest)
        self.desert = len(b.strongholds)
        self.none_dest = len(b.strongholds)
        self.none_ally = len(b.factions)
        self.faces = tuple(range(len(b.faces)))
        # Public IDs grow without bound in an unbounded game; the Z3 encoder drops this upper bound.
        self.pid_max = 10**6 if self.unbounded else len(b.faces) * (2 * b.turns + 2)
        self.spice_max = b.spice * (len(b.factions) - 1) + b.moritani_spice + 5 + 2 * sum(b.leaders) + 6
        self.bank0 = 5 + sum(b.leaders) * (len(b.factions) - 1)

    # -- names -----------------------------------------------------------------------
    def has(self, defect: str) -> bool:
        return defect in self.defects

    def halts(self) -> bool:
        """Does a seeded defect stop the game (an engine exception: no rule applies afterwards)? Only then does the
        Stage domain hold `halted`, so no other model changes."""
        return any(self.has(d) for d in HALTING_DEFECTS)

    def halt_stages(self) -> tuple:
        """("halted",) when a seeded defect can stop the game inside a Terror entry, else ()."""
        return ("halted",) if self.halts() else ()

    def choice(self, sw: type[C]) -> C:
        """The interpretation's choice on a declared switch, a member of it: `c.choice(ALLY_SEPARATION)`
        (NOTE(switches) in config.py)."""
        return self.interp.choice(sw)

    def chose(self, pick: Choices) -> bool:
        """Is `pick` the interpretation's choice on its switch: `c.chose(ALLY_SEPARATION.BASIC)`?"""
        return self.interp.chose(pick)

    def fac(self, name: str | None):
        """Index of a faction if it plays, else None."""
        return self.bounds.factions.index(name) if name in self.bounds.factions else None

    def face(self, name: str):
        return self.bounds.faces.index(name) if name in self.bounds.faces else None

    def start_forces(self, f: int) -> tuple:
        """(reserves, open desert) of rival f at the start."""
        for name, r, d in self.bounds.forces:
            if name == self.bounds.factions[f]:
                return (r, d)
        return (0, 0)

    def start_tanks(self, f: int) -> int:
        """Forces of rival f in the Tanks at the start: one for the reviving rival (bounds.revival)."""
        return 1 if self.bounds.revival is not None and self.bounds.factions[f] == self.bounds.revival else 0

    def garrison(self, f: int, loc: int) -> int:
        """Rival f's starting forces in stronghold index `loc` (bounds.garrisons)."""
        where = self.bounds.strongholds[loc] if loc < len(self.bounds.strongholds) else None
        return sum(n for name, s, n in self.bounds.garrisons if name == self.bounds.factions[f] and s == where)

    def strength(self, j):
        """Printed strength of leader j (an expression over the Leader domain)."""
        out = lift(self.bounds.leaders[-1])
        for i in range(len(self.bounds.leaders) - 2, -1, -1):
            out = ite(lift(j).eq(i), self.bounds.leaders[i], out)
        return out

    def card_fac(self, t):
        """Faction index named by Traitor card t (an expression; constant once t is grounded)."""
        return self._card_table(t, [f for f, _ in self.cards])

    def card_lead(self, t):
        """Leader index named by Traitor card t."""
        return self._card_table(t, [j for _, j in self.cards])

    def _card_table(self, t, table):
        out = lift(table[-1])
        for i in range(len(table) - 2, -1, -1):
            out = ite(lift(t).eq(i), table[i], out)
        return out

    def zone(self, t, name: str):
        """Traitor card t is in zone `name`."""
        return self.v("trz", t).eq(self.TZone.index(name))

    def st(self, name: str) -> int:
        return self.Stage.index(name)

    # -- expression helpers ------------------------------------------------------------
    @staticmethod
    def v(name, *idx):
        return Var(name, tuple(lift(i) for i in idx))

    def stage_is(self, *names):
        return any_of(self.v("stage").eq(self.st(n)) for n in names)

    def hand_limit(self, f, engine: bool = True):
        """Hand limit of faction index f (a Python int), with the Atomics penalty (R36, A10).

        `engine=False` gives the limit the selected interpretation intends,
        which is what the hand-limits invariant checks; the engine's own
        limit is what guards use, and a seeded defect may get it wrong.
        """
        base = self.bounds.hand_limit
        if f == self.M:
            penalised = self.v("aftermath").ne(self.none_dest)
        else:
            who = self.v("ally", self.M) if self.penalty_follows_current(engine) else self.v("atomics_ally")
            penalised = self.v("aftermath").ne(self.none_dest) & who.eq(f)
        return ite(penalised, base - 1, base)

    def hand_limit_param(self, e, engine: bool = True):
        """Hand limit of the faction given by expression e (a parameter), as an expression."""
        out = self.hand_limit(len(self.bounds.factions) - 1, engine)
        for f in range(len(self.bounds.factions) - 2, -1, -1):
            out = ite(lift(e).eq(f), self.hand_limit(f, engine), out)
        return out

    def penalty_follows_current(self, engine: bool = True) -> bool:
        follows = self.chose(ATOMICS_PENALTY.FOLLOWS_CURRENT_ALLY)
        return follows != (engine and self.has("atomics-penalty-follows-new-ally"))

    def alliance_change_allowed(self):
        """H34: after Atomics, alliance changes involving Moritani are blocked unless A10 lets the penalty move."""
        if self.chose(ATOMICS_PENALTY.FOLLOWS_CURRENT_ALLY) or self.has("atomics-penalty-follows-new-ally"):
            return Const(True)
        return self.v("aftermath").eq(self.none_dest)

    def advisors_coexist(self) -> bool:
        """BG advisors alone do not occupy (switch bg-advisors-occupy: coexist; treachery.online)."""
        return self.chose(BG_ADVISORS_OCCUPY.COEXIST) and self.fac("Bene Gesserit") is not None

    def storm_over(self, loc):
        """Is the storm over `loc` (a Location: a stronghold or the open desert)?

        The `storm` field holds a stronghold or "none", and "none" has the open desert's index (Dest and L
        share their first indices), so `storm == loc` alone would put the storm over the open desert exactly
        when there is no storm. In this model the storm only ever stands over a stronghold (`storm_moves`), so
        the open desert is never under it. Every comparison of `storm` with a location that may be the open
        desert goes through here (issue 33).

        >>> from model.moritani.config import Bounds, Interpretation
        >>> c = Ctx(Bounds(), Interpretation())
        >>> c.desert == c.none_dest  # the shared index this test guards against
        True
        """
        return lift(loc).ne(self.desert) & self.v("storm").eq(loc)

    def present(self, f: int, loc):
        """Does faction f occupy `loc`: forces there, and for BG under `coexist`, fighters (not advisors alone)."""
        there = self.v("forces", f, loc) > 0
        if self.advisors_coexist() and f == self.fac("Bene Gesserit"):
            there = self.v("forces", f, loc) > self.v("advisors", loc)
        return there

    def occupants(self, loc, exclude=()):
        """Number of factions (other than the expressions in `exclude`) occupying `loc` (`present`).

        Ecaz and its ally coexist and count as one occupant, and as none when either is excluded (both
        engines; treachery.online `CountDifferentFactions`, its issue #105)."""
        n, ecaz = len(self.bounds.factions), self.fac("Ecaz")
        if ecaz is None:
            return count(self.all_of([lift(x).ne(f) for x in exclude]) & self.present(f, loc) for f in range(n))
        partner = self.v("ally", ecaz)
        alone = [self.all_of([lift(x).ne(f) for x in exclude]) & partner.ne(f) & self.present(f, loc)
                 for f in range(n) if f != ecaz]
        pair = ((self.present(ecaz, loc) | self.any_of(partner.eq(g) & self.present(g, loc) for g in range(n) if g != ecaz))
                & self.all_of([lift(x).ne(ecaz) & lift(x).ne(partner) for x in exclude]))
        return count(alone + [pair])

    def ally_blocks(self, f, loc):
        """Faction f (an expression) may not enter `loc`: its ally occupies it (R25), unless Ecaz is one of the
        two (Ecaz and its ally coexist)."""
        n, ecaz = len(self.bounds.factions), self.fac("Ecaz")
        blocks = self.any_of(self.v("ally", f).eq(g) & self.present(g, loc) for g in range(n) if g != ecaz)
        return blocks if ecaz is None else lift(f).ne(ecaz) & blocks

    def token_at(self, k, loc):
        return self.v("tstatus", k).eq(self.Status.index("placed")) & self.v("tloc", k).eq(loc)

    def any_token_at(self, loc):
        return any_of(self.token_at(k, loc) for k in self.faces)

    def supply_after(self, k: int, returning, also=None):
        """Is face k in supply once `returning` (a face index or parameter) has gone back? `also` ({face:
        expr}) names further faces returning in the same step (a stack, A17 all-in-turn)."""
        out = self.v("tstatus", k).eq(self.Status.index("supply")) | Const(k).eq(lift(returning))
        return out | also[k] if also else out

    def rotate_ids(self, returning, also=None):
        """Effects returning face `returning` (and the faces `also` says) to supply with fresh public IDs for
        the whole supply (H4).

        Every face in supply afterwards gets next_pid + (its rank among them);
        the counter (the private supply epoch, H5) moves past them.
        """
        eff = {}
        in_supply = {k: self.supply_after(k, returning, also) for k in self.faces}
        for k in self.faces:
            rank = count(in_supply[j] for j in self.faces if j < k)
            eff[("pid", (Const(k),))] = ite(in_supply[k], self.v("next_pid") + rank, self.v("pid", k))
        dealt = count(in_supply.values())
        if self.has("epoch-bumped-twice"):  # the bug: the epoch moves on again after the deal (H4, H5)
            dealt = dealt + 1
        eff[("next_pid", ())] = self.v("next_pid") + dealt
        return eff

    def spice_total(self):
        return sum_of([self.v("spice", f) for f in range(len(self.bounds.factions))]
                      + [self.v("bank"), ite(self.v("ext_reserved"), 5, 0)])

    def forces_total(self, f):
        return sum_of([self.v("reserves", f), self.v("tanks", f)]
                      + [self.v("forces", f, loc) for loc in range(len(self.L.labels))])

    def all_of(self, xs):
        return all_of(xs)

    def any_of(self, xs):
        return any_of(xs)

    # -- storm order -----------------------------------------------------------------
    def order(self, turn: int) -> tuple:
        """Storm order in `turn`: the first player rotates one seat per turn."""
        n = len(self.bounds.factions)
        return tuple((i + turn - 1) % n for i in range(n))

    def turns(self) -> range:
        return range(1, (len(self.bounds.factions) if self.unbounded else self.bounds.turns + 1) + 1)

    def at_position(self, cursor: str, f):
        """The cursor field points at faction f (an expression) in this turn's storm order."""
        f = lift(f)
        return any_of(self.v("turn").eq(t) & self.v(cursor).eq(pos) & f.eq(g)
                      for t in self.turns() for pos, g in enumerate(self.order(t)))

    def before(self, f: int, g: int):
        """f acts before g in this turn's storm order."""
        return any_of(self.v("turn").eq(t) for t in self.turns()
                      if self.order(t).index(f) < self.order(t).index(g))
