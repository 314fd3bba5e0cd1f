"""The actions a player can take: play cards, pass, give cards back, request cards.

Text forms (records, CLI, logs): ``pass``; ``3C 3D`` (a play; ``6H 6S as K``
when a play of wild cards only stands for a declared rank); ``give 4C 9D``;
``request AS 2H`` (``request`` alone names nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from president_engine.cards import CardSet, Rank
from president_engine.errors import CardParseError


@dataclass(frozen=True, slots=True)
class Play:
    """Cards played to the trick and the rank they stand for.

    `rank` is the natural rank of the cards, `Rank.JOKER` for jokers alone,
    the wild lead rank for a lead of wild cards, or the declared rank of a
    follow made only of wild cards.  A submitted play may leave `rank` None
    when the cards alone decide it; legal actions always carry it.
    """

    cards: CardSet
    rank: Rank | None = None
    bits: int = field(init=False, repr=False, compare=False)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bits", self.cards.bits)
        object.__setattr__(self, "size", len(self.cards))

    def __str__(self) -> str:
        text = str(self.cards)
        if self.rank is not None and self.rank is not Rank.JOKER and self.cards.count_rank(self.rank) == 0:
            text += f" as {self.rank}"
        return text


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline to play in this trick."""

    def __str__(self) -> str:
        return "pass"


PASS = Pass()


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
    rank: Rank | None = None
    if len(words) >= 2 and words[-2].lower() == "as":
        rank = Rank.parse(words[-1])
        words = words[:-2]
    return Play(CardSet(" ".join(words)), rank)


def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Play):
        out: dict[str, Any] = {"play": str(action.cards)}
        if action.rank is not None:
            out["rank"] = str(action.rank)
        return out
    if isinstance(action, Pass):
        return {"pass": True}
    if isinstance(action, GiveBack):
        return {"give": str(action.cards)}
    return {"request": str(action.cards)}


def action_from_json(data: Any) -> Action:
    if not isinstance(data, dict):
        raise CardParseError(f"an action is a JSON object, got {data!r}")
    if data.get("pass") is True and len(data) == 1:
        return PASS
    if "play" in data:
        rank = data.get("rank")
        return Play(CardSet(str(data["play"])), None if rank is None else Rank.parse(str(rank)))
    if "give" in data:
        return GiveBack(CardSet(str(data["give"])))
    if "request" in data:
        return Request(CardSet(str(data["request"])))
    raise CardParseError(f"not an action: {data!r}")
