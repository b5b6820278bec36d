"""Typed declarations a game attaches to its GameModel, for checkers that know no game.

A checker in `checks/` reads these and nothing else of the game: where the model came from
(`Provenance`, to rebuild a sibling or record a scenario), what an end-of-turn outcome is
(`Outcome`, for `compare`), the secrets a rival must not learn and what it observes (`Secrets`,
for `leaks`), and which pending reactions wait for the scheduler at which stage (`Reactions`, for
`ambiguities`). Symmetry, lemmas and unbounded slots are plain fields of the GameModel.

The game implements the `Secrets` and `Reactions` protocols next to its rules
(`model/moritani/observe.py`, `model/moritani/reactions.py`).

>>> Provenance("counter", bounds=None, interpretation=None).defects
frozenset()
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol

from model.expr import Expr


@dataclass(frozen=True)
class Provenance:
    """What a model was built from: the game's own bounds and interpretation values (each with an
    `as_dict()`), the seeded defects, whether the turn bound was dropped, and further build options
    (e.g. the initial public IDs of a leak pair's game B) as sorted (key, value) pairs.

    `sibling(**changes)` builds the model with some of these replaced, through the game's `rebuild`;
    `sibling(edit_rules=fn)` builds it with its rules changed by `fn` (the declarations follow).
    `edit_rules` is recorded, so every further sibling of a changed model (a leak pair's game B,
    the unbounded-turn model of a proof) is built over the same changed rules; pass
    `edit_rules=None` to drop it.
    """

    game: str
    bounds: Any
    interpretation: Any
    defects: frozenset = frozenset()
    unbounded: bool = False
    options: tuple = ()
    edit_rules: Callable | None = field(default=None, repr=False)
    rebuild: Callable | None = field(default=None, compare=False, repr=False)

    def sibling(self, **changes):
        """The model built from this provenance with `changes` (bounds=..., defects=..., options=...)."""
        if self.rebuild is None:
            raise ValueError(f"game '{self.game}' declares no way to rebuild its models")
        return self.rebuild(self, **changes)


@dataclass(frozen=True)
class Outcome:
    """What a game's outcome is made of (`rulecheck compare`): the material slots, recorded in the
    states whose `stage_slot` holds one of `stage_codes` (the end of each turn and of the game)."""

    slots: tuple
    stage_slot: int
    stage_codes: frozenset


class Settings(Protocol):
    """A game's bounds or interpretation value, as checkers read it: its entries as plain data."""

    def as_dict(self) -> dict: ...


class Proposal(Protocol):
    """A game's proposal as checkers see it: its name and where it came from, the game's own
    interpretation (`.as_dict()`, `.choice(switch key)`) and bounds (`.as_dict()`), the seeded
    defects built in, and its JSON form. Implemented by the game's proposal class."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def interpretation(self) -> Any: ...
    @property
    def bounds(self) -> Any: ...
    @property
    def defects(self) -> tuple: ...
    def to_json(self) -> dict: ...


class Secrets(Protocol):
    """The noninterference interface (`checks/analyses/leaks.py`, `leaks_z3.py`): what each rival
    observes, which values are secret, and how exchanging two secret values acts on states,
    actions and observations. Implemented by the game; every method is pure."""

    observers: tuple            # faction indices of the rivals
    domain: str                 # the domain name of the secret values (e.g. "Face")
    values: tuple               # the secret values (indices in `domain`) and their names
    value_labels: tuple
    # Fields indexed by a secret value that move with it under an exchange (those that say where it is:
    # custody), and the field naming a value publicly (a token's public ID).
    per_value_fields: tuple
    custody_fields: tuple
    id_field: str

    def label(self, observer: int) -> str: ...
    def observer_index(self, label: str) -> int: ...        # the inverse of `label`
    def public_slots(self) -> tuple: ...
    def observer(self, observer: int): ...                   # .observe(state, enabled) and .public slots
    def spec(self, observer: int) -> tuple: ...              # the observation as model data (Z3)
    def hidden(self, state: tuple) -> list: ...              # secret values in state
    def hidden_expr(self, value: int) -> Expr: ...          # "value is still hidden" as a model expression
    def swap(self, state: tuple, a: int, b: int) -> tuple: ...
    def exchange_slots(self, a: int, b: int) -> tuple: ...  # the slot pairs an exchange of a and b swaps
    def live(self) -> dict: ...                              # the slots per value that are live (read) at all
    def value_params(self, action) -> list: ...             # the action's parameters over `domain`
    def exchange_label(self, action, a: int, b: int, domain: str = "Face") -> str: ...
    def public_key(self, action, pre: tuple) -> tuple: ...
    def public_group(self, action) -> str: ...
    def public_label(self, action, pre: tuple) -> str: ...   # the step in words the public sees
    def permutation(self, t: tuple, t2: tuple) -> dict | None: ...
    def unobserved_fields(self) -> set: ...
    def partner_models(self, model, pair: tuple) -> Iterable: ...
    # The possibilistic check (checks/analyses/possible.py): why a step enabled in `pre` may be missing from
    # `twin` (`pre` with two secret values exchanged) by a release the game declares, or None.
    def released(self, action, pre: tuple, twin: tuple) -> str | None: ...
    # What the explorer's observer views show (checks/formats/explorer_view.py): `owner` is the index
    # of the player whose secrets these are (it sees them), or None; `visible_slots(o)` the slots
    # observer o (a rival or the owner) reads directly, as its observation does.
    owner: int | None
    def visible_slots(self, observer: int) -> tuple: ...
    # A second secret, private cards (the Traitor cards of an optional module): `cards()` is (card slots,
    # hidden zone codes, hand zone) or None when the game has none.
    card_labels: tuple
    card_domain: str            # the domain name of the cards (e.g. "Traitor"); "" when the game has none
    def cards(self) -> tuple | None: ...
    def card_pairs(self, state: tuple) -> list: ...
    def swap_cards(self, state: tuple, a: int, b: int) -> tuple: ...
    def public_cards(self, state: tuple) -> tuple: ...


class Board(Protocol):
    """How a report draws the game (`checks/formats/html.py`): a state as plain data (regions,
    pieces, counters, tokens, the pending decision; hidden values marked `secret`/`omniscient`),
    and a step's words with every hidden value as a public placeholder.

    A hidden part may say who sees it: `seen_by`, a list of observer labels (`Secrets.label`), e.g.
    the owner of a hidden token or the holder of a private card; without it, only the designer's
    omniscient view shows it (the explorer's observer views, checks/formats/explorer_view.py).
    Optionally `value_words(field, label)`: what a field's value means in game words, where the
    field's doc does not say it (model/guards.py explains a refused action with it)."""

    def draw(self, state: tuple) -> dict: ...
    def step(self, action, pre: tuple, post: tuple) -> dict: ...


class Reactions(Protocol):
    """Pending reactions the printed rules leave unordered (`checks/analyses/ambiguity.py`)."""

    hubs: dict                  # hub stage code -> reaction names waiting there
    hub_of: dict                # reaction name -> its hub stage code
    scheduler: dict             # scheduler rule name -> the reaction it resolves
    order: tuple                # reaction names, in the order a pair id spells them
    names: dict                 # reaction name -> the name a pair id spells
    macro_rules: dict           # reaction -> its own rules, the only ones its macro step fires (commute_z3)
    lapses: dict                # rule name -> the disabling event its firing is (a reaction lapsed)

    def pending(self, state: tuple, reaction: str) -> int: ...
    def group(self, hub: int, pair: tuple) -> tuple: ...    # the reactions a branch of `pair` watches
    def settled(self, state: tuple, hub: int, pair: tuple) -> bool: ...
    def disabled(self, state: tuple, enabled_rules: set) -> list: ...  # events where a reaction cannot act
    def pair_id(self, a: str, b: str) -> str: ...
    def pair_of(self, pid: str) -> tuple: ...               # the inverse of `pair_id`
    def settles(self, a: str, b: str) -> tuple: ...        # (switch key, catalogue IDs)


@dataclass(frozen=True)
class Game:
    """A game package as the tool sees it: how models are built from proposals, and the data that
    proposal files, scenario files, reports and docs are checked against. Only the command line's
    pipelines hold one (`checks/pipelines/`); analyses receive the models it builds.

    `build(proposal, unbounded=False, **options)` gives the model; `open_orders(proposal)` the model
    with every reaction order left open (the ambiguity detector's reading). `switches` are the
    interpretation switches (key, ids, choices, default, question, source); `bound_shapes` says what
    each bounds entry holds (the one source for loading proposal files and for their JSON Schema);
    `shrink` lists the smaller setups `--minimise` may try; `searched(proposal, turns)` is the proposal
    `check` and `explore` search (their default depth, or `--turns`). `build_options` says, in the same shapes as
    `bound_shapes`, what the extra keyword arguments of `build` hold (a scenario's `setup.options`).
    """

    name: str
    build: Callable
    open_orders: Callable
    proposal: type
    bounds: type
    interpretation: type
    switches: tuple
    bound_shapes: dict
    profiles: dict
    defects: tuple
    catalogue_ids: tuple
    not_modelled: dict
    shrink: Any  # .kinds, .removable(bounds, kind), .without(bounds, kind, name)
    small: Callable  # proposal -> the same proposal on small bounds (check's agreement and leak guards)
    with_defect: Callable  # (defect, proposal) -> the proposal with that seeded defect, its bounds and choices
    description: str = ""
    build_options: dict = field(default_factory=dict)
    # (proposal, turns or None) -> the proposal `check` and `explore` search: `turns` phases when given, else
    # the game's default depth for that proposal (None: the proposal as it is)
    searched: Callable | None = None
    # Real engines' behaviours that break a printed rule (records with id, engine, defect, ids, title, rule, where,
    # source, doc); a proposal lists its own by ID (`Proposal.deviations`): `check` reports each as a violation.
    deviations: tuple = ()
    engines: tuple = ()  # the embedded profiles that stand for real engines (`rulecheck engines`)

    def deviations_of(self, proposal) -> tuple:
        """The deviation records a proposal lists (none for a proposal without the field)."""
        wanted = getattr(proposal, "deviations", ())
        return tuple(d for d in self.deviations if d.id in wanted)

    def defect(self, name: str):
        for d in self.defects:
            if d.id == name:
                return d
        return None

    def switch(self, key_or_id: str):
        for sw in self.switches:
            if sw.key == key_or_id or key_or_id in sw.ids:
                return sw
        return None
