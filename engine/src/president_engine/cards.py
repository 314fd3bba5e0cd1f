"""Cards, ranks, suits and the multiset of cards (`CardSet`).

Inside, a `CardSet` is one int with a 4-bit count per card kind ("slot"):
slot ``(rank - 2) * 4 + suit`` for the 52 natural cards and slot 52 for the
joker (all jokers are alike).  Adding and removing cards is integer addition
and subtraction, and the four slots of one rank form a 16-bit "rank bucket",
so the rules engine can look at a whole rank with one shift and mask.

The text notation, used everywhere (records, logs, the CLI, the protocol's
human-readable fields): a card is its rank (``2``-``10``, ``J``, ``Q``, ``K``,
``A``) followed by its suit (``C``, ``D``, ``H``, ``S``), or ``JK`` for a
joker; a hand is cards separated by spaces, e.g. ``3C 10H AS 2D JK``.
``T`` is accepted for ten on input.
"""

from __future__ import annotations

import copyreg
import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final

from president_engine.errors import CardParseError

# Constants are Final: under mypyc a Final name compiles to a C constant, any other global to a dict lookup.
SLOT_BITS: Final = 4
SLOT_MAX: Final = (1 << SLOT_BITS) - 1
JOKER_SLOT: Final = 52
SLOT_COUNT: Final = 53
BUCKET_BITS: Final = 4 * SLOT_BITS


class Suit(IntEnum):
    """The four suits, valued in the engine's canonical order (clubs lowest)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        return "CDHS"[self.value]

    @classmethod
    def parse(cls, text: str) -> Suit:
        key = text.strip().upper()
        for suit in cls:
            if key in (suit.symbol, suit.name):
                return suit
        raise CardParseError(f"unknown suit {text!r} (use C, D, H or S)")

    def __str__(self) -> str:
        return self.symbol


class Rank(IntEnum):
    """Card ranks by face value; `JOKER` is the rank of a play of jokers alone."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    JOKER = 15

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self.value]

    @property
    def is_natural(self) -> bool:
        return self is not Rank.JOKER

    @classmethod
    def parse(cls, text: str) -> Rank:
        key = text.strip().upper()
        rank = _RANK_BY_SYMBOL.get(key)
        if rank is None:
            for candidate in cls:
                if candidate.name == key:
                    return candidate
            raise CardParseError(f"unknown rank {text!r} (use 2-10, J, Q, K, A or JK)")
        return rank

    def __str__(self) -> str:
        return self.symbol


_RANK_SYMBOLS = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9",
                 10: "10", 11: "J", 12: "Q", 13: "K", 14: "A", 15: "JK"}
_RANK_BY_SYMBOL = {symbol: Rank(value) for value, symbol in _RANK_SYMBOLS.items()}
_RANK_BY_SYMBOL["T"] = Rank.TEN

NATURAL_RANKS: tuple[Rank, ...] = tuple(r for r in Rank if r.is_natural)
STANDARD_COLUMNS: tuple[Rank, ...] = (
    Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE,
    Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE, Rank.TWO,
)
"""The ranks 3 .. A 2: the usual order, and the contest's table columns 1..13 (UECDA 2.1)."""


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One card: a natural card has a rank and a suit, a joker has neither suit nor natural rank."""

    rank: Rank
    suit: Suit | None

    def __post_init__(self) -> None:
        if (self.rank is Rank.JOKER) != (self.suit is None):
            raise CardParseError("a joker has no suit and every other card has one")

    @property
    def is_joker(self) -> bool:
        return self.rank is Rank.JOKER

    @property
    def slot(self) -> int:
        if self.suit is None:
            return JOKER_SLOT
        return card_slot(self.rank, self.suit)

    @classmethod
    def parse(cls, text: str) -> Card:
        key = text.strip().upper()
        if key in ("JK", "JOKER", "*"):
            return JOKER
        if len(key) < 2:
            raise CardParseError(f"bad card {text!r}: expected rank then suit, like 10H or JK")
        try:
            rank = Rank.parse(key[:-1])
            if rank is Rank.JOKER:
                raise CardParseError("a joker is written JK, without a suit")
            return CARDS[card_slot(rank, Suit.parse(key[-1]))]
        except CardParseError as exc:
            raise CardParseError(f"bad card {text!r}: {exc}") from None

    def __str__(self) -> str:
        if self.suit is None:
            return "JK"
        return self.rank.symbol + self.suit.symbol

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.slot < other.slot

    # Written out: mypyc compiles a class that defines `__lt__` without the dataclass's eq and hash.
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and self.slot == other.slot

    def __hash__(self) -> int:
        return self.slot


def copied_by_fields(*classes: type) -> None:
    """Let copy and pickle rebuild these frozen dataclasses from their fields.

    The source build needs no help, but mypyc's compiled classes lack the dataclass's state methods, and
    copying one would assign to a frozen field; registered here, both builds copy and pickle alike.
    """
    for cls in classes:
        copyreg.pickle(cls, _fields_of)


def _fields_of(value: Any) -> tuple[Callable[..., Any], tuple[type, dict[str, Any]]]:
    return _rebuilt, (type(value), {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init})


def _rebuilt(cls: Callable[..., Any], fields: dict[str, Any]) -> Any:
    return cls(**fields)


copied_by_fields(Card)
JOKER = Card(Rank.JOKER, None)
CARDS: Final[tuple[Card, ...]] = tuple(
    [Card(Rank(slot // 4 + 2), Suit(slot % 4)) for slot in range(52)] + [JOKER]
)


def card_slot(rank: Rank, suit: Suit) -> int:
    """The slot of a natural card: ``(rank - 2) * 4 + suit`` (the one place this formula is written)."""
    return (rank - 2) * 4 + suit


def slot_shift(slot: int) -> int:
    return slot * SLOT_BITS


def rank_bucket_shift(rank: Rank) -> int:
    """Bit offset of a natural rank's 16-bit bucket (its four suits)."""
    return (rank - 2) * BUCKET_BITS


def rank_bucket_mask(rank: Rank) -> int:
    if rank is Rank.JOKER:
        return SLOT_MAX << slot_shift(JOKER_SLOT)
    return ((1 << BUCKET_BITS) - 1) << rank_bucket_shift(rank)


def slot_count(bits: int, slot: int) -> int:
    return (bits >> (slot * SLOT_BITS)) & SLOT_MAX


def _bucket_sizes() -> tuple[int, ...]:
    return tuple((v & 15) + ((v >> 4) & 15) + ((v >> 8) & 15) + (v >> 12) for v in range(1 << 16))


BUCKET_SIZE: Final[tuple[int, ...]] = _bucket_sizes()
"""Number of cards in a 16-bit bucket value (four 4-bit counts)."""


# Masks over every slot: the bits of counts above 1, then each bit of a count alone (worth 1, 2, 4, 8).
_HIGH_BITS: Final = sum(0b1110 << (s * SLOT_BITS) for s in range(SLOT_COUNT))
_ONES: Final = sum(0b0001 << (s * SLOT_BITS) for s in range(SLOT_COUNT))
_TWOS: Final = _ONES << 1
_FOURS: Final = _ONES << 2
_EIGHTS: Final = _ONES << 3


def bits_size(bits: int) -> int:
    """Number of cards in a CardSet's bits: each bit of a 4-bit count, counted by weight."""
    if not bits & _HIGH_BITS:  # counts of 0 or 1
        return bits.bit_count()
    return ((bits & _ONES).bit_count() + 2 * (bits & _TWOS).bit_count() + 4 * (bits & _FOURS).bit_count()
            + 8 * (bits & _EIGHTS).bit_count())


def bits_contains(outer: int, inner: int) -> bool:
    """True when every slot count of `inner` is at most that of `outer`."""
    if (inner | outer) & _HIGH_BITS == 0:  # counts of 0 or 1: plain bit containment
        return inner & ~outer == 0
    while inner:
        if (inner & SLOT_MAX) > (outer & SLOT_MAX):
            return False
        inner >>= SLOT_BITS
        outer >>= SLOT_BITS
    return True




class CardSet:
    """An immutable multiset of cards (a hand, a play, a tribute).

    Behaves like a sorted, hashable collection of `Card`: ``len``, ``in``,
    iteration (ascending by rank then suit, jokers last), ``+`` and ``-``
    (multiset sum and difference), ``<=`` (sub-multiset), ``count``.
    `bits` is the packed integer, for code that wants the raw representation.
    """

    __slots__ = ("_bits",)
    _bits: int

    def __new__(cls, cards: Iterable[Card] | str = ()) -> CardSet:
        """A bare instance: `from_bits` sets the bits itself, without `__init__` (this compiles with mypyc too)."""
        return object.__new__(cls)

    def __init__(self, cards: Iterable[Card] | str = ()) -> None:
        if isinstance(cards, str):
            cards = [Card.parse(token) for token in cards.replace(",", " ").split()]
        bits = 0
        for card in cards:
            shift = card.slot * SLOT_BITS
            if (bits >> shift) & SLOT_MAX == SLOT_MAX:
                raise CardParseError(f"too many copies of {card}")
            bits += 1 << shift
        self._bits = bits

    @classmethod
    def from_bits(cls, bits: int) -> CardSet:
        if bits < 0 or bits >> (SLOT_COUNT * SLOT_BITS):
            raise ValueError("bits out of range for a CardSet")
        new = CardSet.__new__(CardSet)
        new._bits = bits
        return new

    @classmethod
    def parse(cls, text: str) -> CardSet:
        return cls(text)

    @property
    def bits(self) -> int:
        return self._bits

    def __len__(self) -> int:
        return bits_size(self._bits)

    def __bool__(self) -> bool:
        return self._bits != 0

    def __iter__(self) -> Iterator[Card]:
        bits = self._bits
        slot = 0
        while bits:
            count = bits & SLOT_MAX
            if count:
                card = CARDS[slot]
                for _ in range(count):
                    yield card
            bits >>= SLOT_BITS
            slot += 1

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and slot_count(self._bits, card.slot) > 0

    def count(self, card: Card) -> int:
        return slot_count(self._bits, card.slot)

    def count_rank(self, rank: Rank) -> int:
        if rank is Rank.JOKER:
            return slot_count(self._bits, JOKER_SLOT)
        return BUCKET_SIZE[(self._bits >> rank_bucket_shift(rank)) & 0xFFFF]

    def distinct(self) -> list[Card]:
        """The kinds of card present, ascending, without repeats."""
        return [CARDS[slot] for slot in range(SLOT_COUNT) if slot_count(self._bits, slot)]

    def __add__(self, other: CardSet) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        total = 0
        a, b, shift = self._bits, other._bits, 0
        if (a | b) & _HIGH_BITS == 0 and a & b == 0:
            return CardSet.from_bits(a | b)
        while a or b:
            count = (a & SLOT_MAX) + (b & SLOT_MAX)
            if count > SLOT_MAX:
                raise CardParseError("too many copies of one card in a CardSet")
            total |= count << shift
            a >>= SLOT_BITS
            b >>= SLOT_BITS
            shift += SLOT_BITS
        return CardSet.from_bits(total)

    def __sub__(self, other: CardSet) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        if not bits_contains(self._bits, other._bits):
            raise ValueError(f"{other} is not contained in {self}")
        return CardSet.from_bits(self._bits - other._bits)

    def __le__(self, other: CardSet) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return bits_contains(other._bits, self._bits)

    def __ge__(self, other: CardSet) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return bits_contains(self._bits, other._bits)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other._bits == self._bits

    def __hash__(self) -> int:
        return hash(self._bits)

    def __str__(self) -> str:
        return " ".join(str(card) for card in self)

    def __repr__(self) -> str:
        return f"CardSet({str(self)!r})"


def full_deck(decks: int, jokers_per_deck: int) -> CardSet:
    """Every card of `decks` standard decks plus their jokers."""
    one = sum(1 << (slot * SLOT_BITS) for slot in range(52))
    return CardSet.from_bits(one * decks + ((jokers_per_deck * decks) << (JOKER_SLOT * SLOT_BITS)))
