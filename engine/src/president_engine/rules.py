"""`Rules`: every option of the rule model, the three presets, and validation.

A table is a preset plus overrides: ``Rules.preset("norwegian", players=5)``.
Options are keyword-only and frozen; an impossible combination raises
`RulesError` naming the option.  `to_dict`/`from_dict` give the JSON form
carried in every match record and on the wire (enum values by lower-case name,
ranks and suits in card notation).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any

from president_engine.cards import JOKER, NATURAL_RANKS, STANDARD_COLUMNS, Card, CardSet, Rank, Suit, full_deck
from president_engine.errors import RulesError

MAX_DECKS = 7  # a CardSet slot counts up to 15 copies: 7 decks of 2 jokers is 14


class JokerAlone(Enum):
    """What a play made only of wild cards stands for."""

    HIGH = "high"
    LOW = "low"
    DECLARED = "declared"


class Beat(Enum):
    EQUAL_OR_HIGHER = "equal_or_higher"
    STRICTLY_HIGHER = "strictly_higher"


class TrickEnd(Enum):
    ALL_PASS = "all_pass"
    ONE_ORBIT = "one_orbit"


class RevolutionTrigger(Enum):
    FOUR_OF_A_KIND = "four_of_a_kind"
    """A group of four or more cards (wild cards count); with `sequences`, also a sequence of five or more."""
    FOUR_SINGLES = "four_singles"


class RevolutionEffect(Enum):
    RANKS = "ranks"
    RANKS_AND_DIRECTION = "ranks_and_direction"


class FirstLead(Enum):
    SEAT0 = "seat0"
    THREE_OF_CLUBS = "three_of_clubs"
    THREE_OF_DIAMONDS = "three_of_diamonds"
    """The holder of the diamond 3 after the exchange (UECDA 4.1)."""


class NextLead(Enum):
    PRESIDENT = "president"
    SCUM = "scum"
    THREE_OF_DIAMONDS = "three_of_diamonds"
    """As in the first deal: the holder of the diamond 3 after the exchange leads every deal (UECDA 4.1)."""


class DealFrom(Enum):
    """Which seat the shuffle deals its first card to."""

    AFTER_SCUM = "after_scum"
    """Seat 0 in the first deal, then the seat after the last deal's last place (RULES 1.3)."""
    PRESIDENT = "president"
    """The President's seat; in a deal without roles (the first, a rank reset) a seat drawn from the seed
    (UECDA 4.1)."""


class Seating(Enum):
    FIXED = "fixed"
    BY_RANK = "by_rank"


STANDARD_ORDER: tuple[Rank, ...] = STANDARD_COLUMNS


TRIBUTE_SUITS: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
"""RULES 1.4's order of equal cards in a tribute, best first."""


def places_descending(players: int) -> tuple[int, ...]:
    """N points for first place down to 1 for last (cardverse, norwegian)."""
    return tuple(range(players, 0, -1))


def two_and_one(players: int) -> tuple[int, ...]:
    """President 2, Vice-President 1, everybody else 0 (italian)."""
    return (2, 1) + (0,) * (players - 2)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The static rules of a match (OpenSpiel's "Game"): options only, no state."""

    players: int = 4
    decks: int = 1
    jokers: int = 0
    rank_order: tuple[Rank, ...] = STANDARD_ORDER
    joker_wild: bool = True
    joker_alone: JokerAlone = JokerAlone.HIGH
    wild_lead_rank: Rank = Rank.SIX
    wild_ranks: frozenset[Rank] = frozenset()
    beat: Beat = Beat.EQUAL_OR_HIGHER
    suit_order: tuple[Suit, ...] | None = None
    trick_end: TrickEnd = TrickEnd.ALL_PASS
    pass_is_final: bool = False
    revolution: bool = False
    revolution_triggers: frozenset[RevolutionTrigger] = frozenset({RevolutionTrigger.FOUR_OF_A_KIND})
    revolution_effect: RevolutionEffect = RevolutionEffect.RANKS
    equal_skip: bool = False
    exchange: bool = False
    exchange_requests: bool = False
    first_lead: FirstLead = FirstLead.SEAT0
    next_lead: NextLead = NextLead.PRESIDENT
    seating: Seating = Seating.FIXED
    points: tuple[int, ...] = field(default=())
    deals: int | None = None
    target_score: int | None = None
    # Daifugō as the UECda contest plays it (docs/RULES-DECISIONS.md "Daifugō options"), all off by default.
    sequences: bool = False
    """Kaidan: 3+ consecutive ranks of one suit, followed only by a sequence of the same length."""
    eight_stop: bool = False
    """A play containing an 8 ends the trick; its player leads again."""
    suit_lock: bool = False
    """Shibari: a play of the table's suit set locks the trick to that suit set."""
    joker_spade_three: bool = False
    """Only the spade 3 beats a lone joker, and it ends the trick."""
    jack_back: bool = False
    """11-back: a play containing a J reverses the rank order until the trick ends."""
    six_reverse: bool = False
    """A play containing a 6 reverses the direction of play for the rest of the deal."""
    tribute_suits: tuple[Suit, ...] = TRIBUTE_SUITS
    """How equal cards rank in a tribute, best first (RULES 1.4: S H C D; the contest's 3.4: S H D C)."""
    pass_count: bool = False
    """The contest's end of a trick (UECDA 4.8): once all but one of the players holding cards have passed in it,
    counted after every action; needs trick_end = all_pass and pass_is_final."""
    leader_may_pass: bool = False
    """The leader may pass on an empty table (UECDA 4.8); needs pass_count."""
    pass_limit: int | None = None
    """After this many passes in a row the deal ends, the players holding cards placed at random (UECDA 4.8: 20)."""
    deal_from: DealFrom = DealFrom.AFTER_SCUM
    """Which seat is dealt the first card (UECDA 4.1: the President's)."""
    reseat_every: int | None = None
    """The players are seated in an order drawn from the seed in deals 1, 1+n, 1+2n... (UECDA 4.1's sekigae)."""
    rank_reset_every: int | None = None
    """Deals 1+n, 1+2n... start again as the first did: no roles, no exchange (UECDA 5's FLASH_MIBUN_NUMBER)."""

    def fresh_deal(self, deal: int) -> bool:
        """True for a deal played without roles: the first, and each rank reset (`rank_reset_every`)."""
        every = self.rank_reset_every
        return deal == 1 or (every is not None and (deal - 1) % every == 0)

    def reseats(self, deal: int) -> bool:
        """True for a deal whose seats are drawn from the seed (`reseat_every`)."""
        every = self.reseat_every
        return every is not None and (deal - 1) % every == 0

    def __post_init__(self) -> None:
        # Accept the JSON forms here too (as preset/from_dict do): a stray string would
        # otherwise pass validation and silently never match its enum member.
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, _coerce(f.name, getattr(self, f.name)))
        if not self.points:
            object.__setattr__(self, "points", places_descending(self.players))
        if self.deals is None and self.target_score is None:
            object.__setattr__(self, "deals", 1)
        _validate(self)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A preset with overrides (values as Python objects or their JSON forms)."""
        try:
            base, scoring = PRESETS[name]
        except KeyError:
            raise RulesError("preset", f"unknown preset {name!r} (known: {', '.join(PRESETS)})") from None
        options = dict(base)
        options.update(_coerce_all(overrides))
        if "points" not in overrides:
            players = options.get("players", 4)
            if not isinstance(players, int) or players < 3:
                raise RulesError("players", "at least 3 players")
            options["points"] = scoring(players)
        return cls(**options)

    def replace(self, **overrides: Any) -> Rules:
        """These rules with some options changed (validated again)."""
        return dataclasses.replace(self, **_coerce_all(overrides))

    @property
    def deck_size(self) -> int:
        return self.decks * (52 + self.jokers)

    @property
    def is_wild_possible(self) -> bool:
        return bool(self.wild_ranks) or (self.jokers > 0 and self.joker_wild)

    @property
    def suits_matter(self) -> bool:
        """True when two plays of the same ranks but other suits are different choices (RULES 1.8).

        A suit order ranks them; sequences need the suits left in hand; a suit lock reads the suits played.
        """
        return self.suit_order is not None or self.sequences or self.suit_lock

    @property
    def joker_cells(self) -> bool:
        """True when a wild joker played with other cards takes a cell (UECDA 2.1): a suit, or a sequence's place."""
        return self.jokers > 0 and self.joker_wild and (self.sequences or self.suit_lock)

    # Rule facts derived from the options: the engine's tables and the SDK's helpers read these,
    # so each fact has one definition.

    @cached_property
    def natural_ranks(self) -> tuple[Rank, ...]:
        """The ranks whose cards stand for themselves, low to high in the normal order."""
        return tuple(r for r in self.rank_order if r not in self.wild_ranks)

    @property
    def joker_strength(self) -> int:
        """Where jokers played alone stand against the order's positions 0..12: below or above them all."""
        return -1 if self.joker_alone is JokerAlone.LOW else 13

    def strength(self, rank: Rank, *, reversed: bool = False) -> int:
        """Position of `rank` in the normal (or reversed) order, 0 weakest; jokers alone keep their place."""
        if rank is Rank.JOKER:
            return self.joker_strength
        position = self.rank_order.index(rank)
        return 12 - position if reversed else position

    def is_wild(self, card: Card) -> bool:
        """True for a card that stands for the rank of the natural cards it is played with."""
        return self.joker_wild if card.is_joker else card.rank in self.wild_ranks

    def wild_count(self, cards: CardSet) -> int:
        """How many wild cards `cards` holds."""
        jokers = cards.count_rank(Rank.JOKER) if self.joker_wild else 0
        return jokers + sum(cards.count_rank(rank) for rank in self.wild_ranks)

    def plain_joker_count(self, cards: CardSet) -> int:
        """Jokers in `cards` that are not wild: they are played only alone, at the joker rank."""
        return 0 if self.joker_wild else cards.count_rank(Rank.JOKER)

    @cached_property
    def best_first(self) -> tuple[Card, ...]:
        """Every kind of card, best first, as a tribute takes them (RULES 1.4 "Best").

        Jokers first when they are wild or rank high (else last), then wild
        cards, then natural cards, each by the normal order from the top; equal
        ranks by `tribute_suits` (spades, hearts, clubs, diamonds unless set).
        """
        by_rank = list(reversed(self.rank_order))
        ranks = [r for r in by_rank if r in self.wild_ranks] + [r for r in by_rank if r not in self.wild_ranks]
        cards = [Card(rank, suit) for rank in ranks for suit in self.tribute_suits]
        jokers_best = self.joker_wild or self.joker_alone is JokerAlone.HIGH
        return tuple([JOKER, *cards] if jokers_best else [*cards, JOKER])

    @cached_property
    def deck(self) -> CardSet:
        """Every card of the match's deck."""
        return full_deck(self.decks, self.jokers)

    def interchangeable(self, a: CardSet, b: CardSet) -> bool:
        """True when `a` and `b` are the same choice under these rules (RULES 1.8).

        Without `suit_order` suits change nothing, so two sets with the same
        number of cards of each rank (jokers alike) are one choice; with it,
        only the same cards are.
        """
        if self.suits_matter:
            return a == b
        return all(a.count_rank(rank) == b.count_rank(rank) for rank in Rank)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every option explicitly, except the Daifugō options while they have their defaults.

        So the records (and the wire form) of every rule set without them read exactly as before.
        """
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name not in DAIFUGO_OPTIONS or value != f.default:
                out[f.name] = _to_json(value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        return cls(**_coerce_all(data))


def _to_json(value: Any) -> Any:
    if isinstance(value, (Rank, Suit)):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, frozenset):
        return sorted(_to_json(v) for v in value)
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return value


_ENUM_FIELDS: dict[str, type[Enum]] = {
    "joker_alone": JokerAlone, "beat": Beat, "trick_end": TrickEnd,
    "revolution_effect": RevolutionEffect, "first_lead": FirstLead,
    "next_lead": NextLead, "seating": Seating, "deal_from": DealFrom,
}
_INT_FIELDS = ("players", "decks", "jokers")
_OPTIONAL_INT_FIELDS = ("deals", "target_score", "pass_limit", "reseat_every", "rank_reset_every")
DAIFUGO_OPTIONS: tuple[str, ...] = ("sequences", "eight_stop", "suit_lock", "joker_spade_three", "jack_back",
                                     "six_reverse", "tribute_suits", "pass_count", "leader_may_pass", "pass_limit",
                                     "deal_from", "reseat_every", "rank_reset_every")
_BOOL_FIELDS = ("joker_wild", "pass_is_final", "revolution", "equal_skip", "exchange", "exchange_requests",
                "sequences", "eight_stop", "suit_lock", "joker_spade_three", "jack_back", "six_reverse",
                "pass_count", "leader_may_pass")
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.name not in DAIFUGO_OPTIONS)
"""The options every JSON form lists; a Daifugō option (`DAIFUGO_OPTIONS`) is listed only when not its default."""
KNOWN_OPTIONS: tuple[str, ...] = OPTION_NAMES + DAIFUGO_OPTIONS


def _coerce_all(options: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in options.items():
        if name not in KNOWN_OPTIONS:
            raise RulesError(name, f"unknown option (known: {', '.join(KNOWN_OPTIONS)})")
        out[name] = _coerce(name, value)
    return out


def _coerce(name: str, value: Any) -> Any:
    """One option from its Python or JSON form, or a RulesError naming it."""
    try:
        if name in _ENUM_FIELDS:
            enum = _ENUM_FIELDS[name]
            return value if isinstance(value, enum) else enum(str(value).lower())
        if name in _INT_FIELDS:
            return _as_int(value)
        if name in _OPTIONAL_INT_FIELDS:
            return None if value is None else _as_int(value)
        if name in _BOOL_FIELDS:
            if not isinstance(value, bool):
                raise ValueError("expected true or false")
            return value
        if name == "rank_order":
            return tuple(_as_rank(v) for v in _as_list(value))
        if name == "wild_lead_rank":
            return _as_rank(value)
        if name == "wild_ranks":
            return frozenset(_as_rank(v) for v in _as_list(value))
        if name == "suit_order":
            return None if value is None else tuple(
                v if isinstance(v, Suit) else Suit.parse(str(v)) for v in _as_list(value))
        if name == "tribute_suits":
            return tuple(v if isinstance(v, Suit) else Suit.parse(str(v)) for v in _as_list(value))
        if name == "revolution_triggers":
            return frozenset(
                v if isinstance(v, RevolutionTrigger) else RevolutionTrigger(str(v).lower())
                for v in _as_list(value))
        if name == "points":
            return tuple(_as_int(v) for v in _as_list(value))
    except (ValueError, TypeError) as exc:
        raise RulesError(name, f"bad value {value!r}: {exc}") from None
    raise RulesError(name, "unknown option")


def _as_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("expected a whole number")
    return value


def _as_rank(value: Any) -> Rank:
    if isinstance(value, Rank):
        return value
    return Rank.parse(str(value))


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, str):
        return value.replace(",", " ").split()
    return list(value)


def _validate(r: Rules) -> None:
    if r.players < 3:
        raise RulesError("players", "at least 3 players")
    if not 1 <= r.decks <= MAX_DECKS:
        raise RulesError("decks", f"between 1 and {MAX_DECKS}")
    if not 0 <= r.jokers <= 2:
        raise RulesError("jokers", "0, 1 or 2 per deck")
    if r.players > r.deck_size:
        raise RulesError("players", f"{r.players} players but the deck has only {r.deck_size} cards")
    if sorted(r.rank_order) != sorted(NATURAL_RANKS):
        raise RulesError("rank_order", "must list each of the 13 ranks 2..A exactly once")
    if r.wild_lead_rank is Rank.JOKER:
        raise RulesError("wild_lead_rank", "must be one of the 13 ranks")
    if Rank.JOKER in r.wild_ranks:
        raise RulesError("wild_ranks", "jokers are made wild by joker_wild, not wild_ranks")
    if len(r.wild_ranks) >= 13:
        raise RulesError("wild_ranks", "at least one rank must stay natural")
    if r.wild_ranks and r.joker_alone is not JokerAlone.DECLARED:
        raise RulesError("wild_ranks", "needs joker_alone = declared (with high or low only jokers are wild)")
    if r.joker_alone is JokerAlone.DECLARED and not r.joker_wild and r.jokers > 0:
        raise RulesError("joker_alone", "declared needs joker_wild when the deck has jokers")
    if r.suit_order is not None:
        if sorted(r.suit_order) != sorted(Suit):
            raise RulesError("suit_order", "must list the four suits once each, low to high")
        if r.decks > 1:
            raise RulesError("suit_order", "cannot rank identical cards: needs a single deck")
    if not r.revolution_triggers and r.revolution:
        raise RulesError("revolution_triggers", "a revolution needs at least one trigger")
    if sorted(r.tribute_suits) != sorted(Suit):
        raise RulesError("tribute_suits", "must list the four suits once each, best first")
    _validate_daifugo(r)
    if r.exchange_requests and not r.exchange:
        raise RulesError("exchange_requests", "needs exchange")
    if r.exchange and r.deck_size < 2 * r.players:
        raise RulesError("exchange", "needs every player to be dealt at least 2 cards")
    if len(r.points) != r.players:
        raise RulesError("points", f"needs one value per place ({r.players}), got {len(r.points)}")
    if any(p < 0 for p in r.points):
        raise RulesError("points", "points are whole numbers >= 0")
    if r.deals is not None and r.deals < 1:
        raise RulesError("deals", "at least 1")
    if r.target_score is not None:
        if r.target_score < 1:
            raise RulesError("target_score", "at least 1")
        if max(r.points) == 0:
            raise RulesError("points", "with a target_score at least one place must score")


def _validate_daifugo(r: Rules) -> None:
    """The Daifugō options need UECda's card model: one deck, at most one joker, no wild ranks, no suit order."""
    if r.joker_spade_three and (r.jokers == 0 or r.joker_alone is not JokerAlone.HIGH):
        raise RulesError("joker_spade_three", "needs jokers and joker_alone = high")
    for option in ("sequences", "suit_lock"):
        if not getattr(r, option):
            continue
        if r.decks > 1:
            raise RulesError(option, "needs a single deck (a card is one cell of the table)")
        if r.jokers > 1:
            raise RulesError(option, "needs at most one joker (it takes one cell)")
        if r.joker_alone is JokerAlone.DECLARED:
            raise RulesError(option, "needs joker_alone = high or low (no declared ranks, no wild ranks)")
        if r.suit_order is not None:
            raise RulesError(option, "cannot go with suit_order (the contest ranks no suits)")
    if r.pass_count and (r.trick_end is not TrickEnd.ALL_PASS or not r.pass_is_final):
        raise RulesError("pass_count", "needs trick_end = all_pass and pass_is_final (the contest's passes)")
    if r.leader_may_pass and not r.pass_count:
        raise RulesError("leader_may_pass", "needs pass_count (a trick may then end with no play)")
    if r.pass_limit is not None and r.pass_limit < 1:
        raise RulesError("pass_limit", "at least 1")
    for option in ("reseat_every", "rank_reset_every"):
        every = getattr(r, option)
        if every is not None and every < 1:
            raise RulesError(option, "at least 1")
    if r.reseat_every is not None and r.seating is not Seating.FIXED:
        raise RulesError("reseat_every", "needs seating = fixed (the seats are drawn, not taken by rank)")
    if r.sequences and r.rank_order != STANDARD_ORDER:
        raise RulesError("rank_order", "sequences need the order 3 .. A 2 (the contest's columns)")


PRESETS: dict[str, tuple[dict[str, Any], Any]] = {
    "italian": (dict(
        players=5, joker_alone=JokerAlone.HIGH, beat=Beat.EQUAL_OR_HIGHER,
        trick_end=TrickEnd.ALL_PASS, pass_is_final=False, revolution=False,
        revolution_triggers=frozenset(RevolutionTrigger),
        revolution_effect=RevolutionEffect.RANKS_AND_DIRECTION,
        exchange=False, first_lead=FirstLead.SEAT0, next_lead=NextLead.PRESIDENT,
        seating=Seating.BY_RANK,
    ), two_and_one),
    "norwegian": (dict(
        players=4, joker_alone=JokerAlone.DECLARED, wild_ranks=frozenset({Rank.SIX}),
        beat=Beat.EQUAL_OR_HIGHER, trick_end=TrickEnd.ONE_ORBIT, revolution=False,
        exchange=True, exchange_requests=True, first_lead=FirstLead.THREE_OF_CLUBS,
        next_lead=NextLead.SCUM, seating=Seating.FIXED,
    ), places_descending),
    "cardverse": (dict(
        players=4, joker_alone=JokerAlone.HIGH, beat=Beat.STRICTLY_HIGHER,
        trick_end=TrickEnd.ALL_PASS, pass_is_final=True, revolution=True,
        revolution_triggers=frozenset({RevolutionTrigger.FOUR_OF_A_KIND}),
        revolution_effect=RevolutionEffect.RANKS, exchange=True,
        first_lead=FirstLead.SEAT0, next_lead=NextLead.SCUM, seating=Seating.FIXED,
    ), places_descending),
    "daifugo": (dict(
        players=5, jokers=1, joker_wild=True, joker_alone=JokerAlone.HIGH, beat=Beat.STRICTLY_HIGHER,
        trick_end=TrickEnd.ALL_PASS, pass_is_final=True, revolution=True,
        revolution_triggers=frozenset({RevolutionTrigger.FOUR_OF_A_KIND}),
        revolution_effect=RevolutionEffect.RANKS, exchange=True,
        first_lead=FirstLead.THREE_OF_DIAMONDS, next_lead=NextLead.THREE_OF_DIAMONDS, seating=Seating.FIXED,
        deals=100, sequences=True, eight_stop=True, suit_lock=True, joker_spade_three=True,
        tribute_suits=(Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS), pass_count=True,
        leader_may_pass=True, pass_limit=20, deal_from=DealFrom.PRESIDENT, reseat_every=3, rank_reset_every=100,
    ), places_descending),
}
"""Each preset: its options, and how its points depend on the number of players (daifugo: UECDA 4 and 5)."""
