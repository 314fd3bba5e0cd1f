"""The actions a player can take: play cards, pass, give cards back, request cards.

Text forms (records, CLI, logs, the server's store): ``pass``; ``3C 3D`` (a
play; ``6H 6S as K`` for a follow of wild cards alone that declares a rank,
``as`` in lower case since ``AS`` is the ace of spades; ``9S 10S JK=JS`` for
a joker in a cell, see `Cell`); ``give 4C 9D``;
``request AS 2H`` (``request`` alone names nothing).  `parse_action` reads
what ``str`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from president_engine.cards import STANDARD_COLUMNS, Card, CardSet, Rank, Suit, copied_by_fields
from president_engine.errors import CardParseError

LOW_COLUMN: Final = 0
"""The cell below the 3, which only a joker at the low end of a sequence takes."""
HIGH_COLUMN: Final = 14
"""The cell above the 2, which only a joker at the high end of a sequence takes."""


@dataclass(frozen=True, slots=True)
class Cell:
    """Where a joker played with other cards stands: a cell of the contest's table (UECDA 2.1).

    `column` is the contest's: 1..13 the ranks 3 .. A 2, 0 below the 3 and 14
    above the 2 (a sequence's ends only).  `suit` is the row; None is the fifth
    row, the joker's place in a group of all four suits and the joker.  Text:
    ``JK=10S`` (the card the joker stands for), ``JK=loS``/``JK=hiS`` (below the 3,
    above the 2), ``JK=K`` (the fifth cell of the kings).
    """

    column: int
    suit: Suit | None

    def __post_init__(self) -> None:
        if not LOW_COLUMN <= self.column <= HIGH_COLUMN:
            raise CardParseError(f"no table column {self.column} (0..14)")
        if self.suit is None and self.rank is None:
            raise CardParseError("the fifth cell of a rank needs a rank, not an end of a sequence")

    @property
    def rank(self) -> Rank | None:
        """The rank of the cell's column; None for the cells below the 3 and above the 2."""
        return STANDARD_COLUMNS[self.column - 1] if LOW_COLUMN < self.column < HIGH_COLUMN else None

    @classmethod
    def of(cls, rank: Rank, suit: Suit | None) -> Cell:
        """The cell of a rank (in `suit`, or the fifth one)."""
        return cls(STANDARD_COLUMNS.index(rank) + 1, suit)

    @classmethod
    def parse(cls, text: str) -> Cell:
        key = text.strip().upper()
        for end, column in (("LO", LOW_COLUMN), ("HI", HIGH_COLUMN)):
            if key.startswith(end) and len(key) == 3:
                return cls(column, Suit.parse(key[2:]))
        try:
            card = Card.parse(key)
        except CardParseError:
            rank = Rank.parse(key)
            if rank is Rank.JOKER:
                raise CardParseError(f"bad joker cell {text!r}") from None
            return cls.of(rank, None)
        if card.suit is None:
            raise CardParseError(f"bad joker cell {text!r}: a joker stands for a card, not a joker")
        return cls.of(card.rank, card.suit)

    def __str__(self) -> str:
        if self.suit is None:
            return str(self.rank)
        if self.column == LOW_COLUMN:
            return f"lo{self.suit}"
        if self.column == HIGH_COLUMN:
            return f"hi{self.suit}"
        return f"{self.rank}{self.suit}"


@dataclass(frozen=True, slots=True)
class Play:
    """Cards played to the trick, and the rank they stand for.

    Only a follow made of wild cards alone under ``joker_alone = declared``
    declares a rank (RULES 1 "A play"): `declared` is that rank, and None on
    every other play, which stands for a rank by its cards alone.  `rank` is
    the rank the play stands for: always set on legal actions, on `Played`
    events and on what `Match.check` returns; on a submitted play it is an
    optional claim that `check` verifies, so a legal action echoed back as
    cards and rank is accepted.  Plays are equal when their cards and
    `declared` are: `rank` follows from those under one set of rules.

    `cell` is where the joker stands when the rules give jokers cells
    (`Rules.joker_cells`: sequences or the suit lock): set on every play of
    a joker with other cards, None on all others.  A sequence (`sequences`)
    stands for the rank of its lowest natural card.
    """

    cards: CardSet
    declared: Rank | None = None
    rank: Rank | None = field(default=None, compare=False, kw_only=True)
    cell: Cell | None = field(default=None, kw_only=True)
    bits: int = field(init=False, repr=False, compare=False)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bits", self.cards.bits)
        object.__setattr__(self, "size", len(self.cards))

    def __str__(self) -> str:
        text = str(self.cards)
        if self.cell is not None:  # the jokers are written last
            text = f"{text}={self.cell}"
        return text if self.declared is None else f"{text} as {self.declared}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline to play in this trick."""

    def __str__(self) -> str:
        return "pass"


PASS: Final = Pass()


@dataclass(frozen=True, slots=True)
class GiveBack:
    """The cards a President or Vice-President hands back in the exchange."""

    cards: CardSet

    def __str__(self) -> str:
        return f"give {self.cards}"


@dataclass(frozen=True, slots=True)
class Request:
    """Norwegian exchange: the cards a receiver asks the giver for (may be none)."""

    cards: CardSet

    def __str__(self) -> str:
        return f"request {self.cards}".rstrip()


Action = Play | Pass | GiveBack | Request
copied_by_fields(Cell, Play, Pass, GiveBack, Request)


def parse_action(text: str) -> Action:
    """An action from its text form; raises CardParseError on bad text."""
    words = text.strip().split()
    if not words:
        raise CardParseError("empty action")
    head = words[0].lower()
    if head == "pass" and len(words) == 1:
        return PASS
    if head == "give":
        return GiveBack(CardSet(" ".join(words[1:])))
    if head == "request":
        return Request(CardSet(" ".join(words[1:])))
    declared: Rank | None = None
    if len(words) >= 2 and words[-2] == "as":  # only in lower case: "AS" is the ace of spades
        declared = Rank.parse(words[-1])
        words = words[:-2]
    cell: Cell | None = None
    for at, word in enumerate(words):
        joker, sign, where = word.partition("=")
        if sign:
            if Card.parse(joker).suit is not None or cell is not None:
                raise CardParseError(f"bad card {word!r}: only one joker takes a cell, written JK=10S")
            cell = Cell.parse(where)
            words[at] = joker
    return Play(CardSet(" ".join(words)), declared, cell=cell)
