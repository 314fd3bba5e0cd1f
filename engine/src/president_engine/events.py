"""What happens in a match, as a log of events, and who may see each one.

Every event is public except the ones that carry hidden cards: a dealt hand
(its owner only), a request and the cards that move in the exchange (the two
players of that pair only; everybody else sees that cards moved and how many).
`visible_to` is the one place that decides this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from president_engine.actions import PASS, Action, GiveBack, Play, Request
from president_engine.cards import CardSet, copied_by_fields
from president_engine.roles import Role


@dataclass(frozen=True, slots=True)
class DealStarted:
    deal: int
    seats: tuple[int, ...]
    """The player at each seat, seat 0 first."""
    dealer: int
    hand_sizes: tuple[int, ...]
    """Cards dealt to each player, by player."""
    roles: tuple[Role, ...]
    """Each player's role in this deal, by player."""


@dataclass(frozen=True, slots=True)
class HandDealt:
    player: int
    cards: CardSet


@dataclass(frozen=True, slots=True)
class CardsRequested:
    receiver: int
    giver: int
    cards: CardSet


@dataclass(frozen=True, slots=True)
class CardsGiven:
    """Cards moving in the exchange: a tribute (chosen by the engine) or a give-back."""

    giver: int
    receiver: int
    count: int
    tribute: bool
    cards: CardSet | None
    """None in the copy shown to players outside the pair."""


@dataclass(frozen=True, slots=True)
class PlayStarted:
    leader: int


@dataclass(frozen=True, slots=True)
class Played:
    player: int
    play: Play


@dataclass(frozen=True, slots=True)
class Passed:
    player: int
    skipped: bool
    """True when the equal-rank skip passed for the player."""


@dataclass(frozen=True, slots=True)
class RevolutionHappened:
    reversed: bool
    """True when the rank order is now reversed."""
    direction: int


@dataclass(frozen=True, slots=True)
class TrickWon:
    winner: int
    next_leader: int | None


@dataclass(frozen=True, slots=True)
class WentOut:
    player: int
    place: int
    """Finishing place, 1 for first."""


@dataclass(frozen=True, slots=True)
class DealEnded:
    deal: int
    places: tuple[int, ...]
    """Players in finishing order."""
    points: tuple[int, ...]
    """Points scored in this deal, by player."""
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded:
    winner: int
    totals: tuple[int, ...]
    last_places: tuple[int, ...]


Event = (DealStarted | HandDealt | CardsRequested | CardsGiven | PlayStarted | Played | Passed
         | RevolutionHappened | TrickWon | WentOut | DealEnded | MatchEnded)
copied_by_fields(DealStarted, HandDealt, CardsRequested, CardsGiven, PlayStarted, Played, Passed, RevolutionHappened,
                 TrickWon, WentOut, DealEnded, MatchEnded)


def visible_to(event: Event, player: int | None) -> Event | None:
    """The event as `player` may see it (None for a spectator), or None if hidden."""
    if isinstance(event, HandDealt):
        return event if event.player == player else None
    if isinstance(event, CardsRequested):
        return event if player in (event.receiver, event.giver) else None
    if isinstance(event, CardsGiven):
        return event if player in (event.giver, event.receiver) else replace(event, cards=None)
    return event


def actions_by_deal(events: Sequence[Event], first: int = 1) -> list[list[tuple[int, Action]]]:
    """(player, action) as applied, per deal from deal `first` on, read from a match's event log."""
    deals: list[list[tuple[int, Action]]] = []
    start = 0
    if first > 1:  # back from the end to the deal's start: a late deal of a long match costs its own events
        start = len(events)
        while start > 0:
            event = events[start - 1]
            if isinstance(event, DealStarted) and event.deal < first:
                break
            start -= 1
        while start < len(events) and not isinstance(events[start], DealStarted):
            start += 1
    for e in events[start:]:
        if isinstance(e, DealStarted):
            deals.append([])
        elif isinstance(e, Played):
            deals[-1].append((e.player, e.play))
        elif isinstance(e, Passed):
            if not e.skipped:
                deals[-1].append((e.player, PASS))
        elif isinstance(e, CardsRequested):
            deals[-1].append((e.receiver, Request(e.cards)))
        elif isinstance(e, CardsGiven) and not e.tribute:
            assert e.cards is not None
            deals[-1].append((e.giver, GiveBack(e.cards)))
    return deals
