"""The actions a player can take: play cards, pass, give cards back, request cards.

Text forms (records, CLI, logs, the server's store): ``pass``; ``3C 3D`` (a
play; ``6H 6S as K`` for a follow of wild cards alone that declares a rank,
``as`` in lower case since ``AS`` is the ace of spades); ``give 4C 9D``;
``request AS 2H`` (``request`` alone names nothing).  `parse_action` reads
what ``str`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from president_engine.cards import CardSet, Rank, copied_by_fields
from president_engine.errors import CardParseError


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
    """

    cards: CardSet
    declared: Rank | None = None
    rank: Rank | None = field(default=None, compare=False, kw_only=True)
    bits: int = field(init=False, repr=False, compare=False)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bits", self.cards.bits)
        object.__setattr__(self, "size", len(self.cards))

    def __str__(self) -> str:
        text = str(self.cards)
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
copied_by_fields(Play, Pass, GiveBack, Request)


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
    return Play(CardSet(" ".join(words)), declared)

