"""What the expert knows of the deal in progress beyond its observation, kept from the events it is shown.

An `Observation` holds the cards played in this deal, but not who played
which, who passed facing what, nor the exchange requests.  Those come from
the events this player sees (`Bot.on_event`: exactly what a server sends this
seat), so reading them is no more than the player may know.
"""

from __future__ import annotations

from dataclasses import dataclass

from president_engine import CardSet, Event, Observation, Play
from president_engine.events import (
    CardsGiven,
    CardsRequested,
    Passed,
    Played,
    PlayStarted,
    RevolutionHappened,
    TrickWon,
)


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a player in play: what they faced, and what they did."""

    player: int
    table: Play | None
    """The play they had to beat; None when they led."""
    reversed: bool
    """A revolution had reversed the order."""
    play: Play | None
    """What they played; None for a pass."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """Cards that moved in this deal's exchange between this player and another (so both know them)."""

    giver: int
    receiver: int
    cards: CardSet
    tribute: bool


class DealKnowledge:
    """The deal in progress as this player has seen it: decisions, who played what, its exchange and requests."""

    def __init__(self, deal: int = 0) -> None:
        self.deal = deal
        self.decisions: list[Decision] = []
        self.played_by: dict[int, int] = {}
        """Bits of the cards each player has played in this deal."""
        self.transfers: list[Transfer] = []
        self.requests: list[CardsRequested] = []
        """Requests this player made or was made (a Norwegian exchange)."""
        self._table: Play | None = None
        self._reversed = False

    def see(self, event: Event) -> None:
        """Take in one event of this deal, as shown to this player (a new deal makes a new DealKnowledge)."""
        if isinstance(event, Played):
            self.decisions.append(Decision(event.player, self._table, self._reversed, event.play))
            self.played_by[event.player] = self.played_by.get(event.player, 0) + event.play.bits
            self._table = event.play
        elif isinstance(event, Passed):
            if not event.skipped:
                self.decisions.append(Decision(event.player, self._table, self._reversed, None))
        elif isinstance(event, (TrickWon, PlayStarted)):
            self._table = None
        elif isinstance(event, RevolutionHappened):
            self._reversed = event.reversed
        elif isinstance(event, CardsRequested):
            self.requests.append(event)
        elif isinstance(event, CardsGiven) and event.cards is not None:
            self.transfers.append(Transfer(event.giver, event.receiver, event.cards, event.tribute))

    def agrees_with(self, obs: Observation) -> bool:
        """True when these events account for the observation (none were missed, e.g. by joining late)."""
        return self.deal == obs.deal and sum(self.played_by.values()) == obs.played.bits
