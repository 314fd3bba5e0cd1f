"""What a spectator, and what a player, may know of a match (OpenSpiel style).

`PublicObservation` is the spectator's view: the public state, and the
exchange with every card hidden.  `Observation` is a player's view, the only
thing a bot is given: the public state plus the player's own hand, what they
owe and their legal actions, and the exchange cards of their own pair.
Hidden cards are removed by `events.visible_to`, the one place that decides
what is hidden; `Match.observation` and `Match.public_observation` build them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from president_engine.action_space import action_space
from president_engine.actions import Action, Play
from president_engine.cards import CardSet, Rank, copied_by_fields
from president_engine.events import (
    CardsGiven,
    DealStarted,
    Event,
    Passed,
    Played,
    PlayStarted,
    TrickWon,
    visible_to,
)
from president_engine.phase import Phase
from president_engine.roles import Role
from president_engine.rules import Rules

TrickEntry = Played | Passed


@dataclass(frozen=True, slots=True, kw_only=True)
class PublicObservation:
    """Everything a spectator may know now."""

    rules: Rules
    deal: int
    phase: Phase
    to_act: int | None
    hand_sizes: tuple[int, ...]
    """Cards held by each player, by player."""
    seats: tuple[int, ...]
    """The player at each seat, seat 0 first."""
    roles: tuple[Role, ...]
    """Each player's role in this deal (from the last deal's places)."""
    scores: tuple[int, ...]
    places: tuple[int, ...]
    """Players already out in this deal, in finishing order."""
    rank_order: tuple[Rank, ...]
    """The current rank order, low to high (reversed by a revolution)."""
    reversed: bool
    direction: int
    table: Play | None
    """The play to beat; None when the player to act leads."""
    table_player: int | None
    trick: tuple[TrickEntry, ...]
    """The plays and passes of the current trick, in order."""
    played: CardSet
    """Every card played in this deal so far."""
    exchange: tuple[CardsGiven, ...]
    """This deal's exchange as this viewer may see it (cards only within a pair, to its two players)."""

    def strength(self, rank: Rank) -> int:
        """Position of `rank` in the current order (0 weakest); jokers alone keep their fixed place."""
        return self.rules.strength(rank, reversed=self.reversed)

    @property
    def top_rank(self) -> Rank:
        """The highest rank of the current order (2 normally, 3 after a revolution)."""
        return self.rank_order[-1]

    def public(self) -> PublicObservation:
        """What a spectator sees of this view: a player's hand, dues and exchange cards dropped (`visible_to`)."""
        if type(self) is PublicObservation:
            return self
        shown = {f.name: getattr(self, f.name) for f in fields(PublicObservation)}
        shown["exchange"] = tuple(visible_to(given, None) for given in self.exchange)
        return PublicObservation(**shown)


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation(PublicObservation):
    """Everything `player` may know now, and nothing more."""

    player: int
    hand: CardSet
    owed: int
    """Cards this player must name or give back now."""
    legal_actions: tuple[Action, ...]
    """What this player may do now; empty when it is not their turn."""

    def action_mask(self) -> bytes:
        """1 for each index of the rules' fixed action space (action_space.py) that is legal now, else 0."""
        return action_space(self.rules).mask(self.legal_actions)


copied_by_fields(PublicObservation, Observation)


def read_deal(events: Sequence[Event], viewer: int | None) -> tuple[tuple[TrickEntry, ...], CardSet,
                                                                    tuple[CardsGiven, ...]]:
    """The current trick, the cards played and the exchange of the deal in progress, as `viewer` sees them.

    `viewer` is a player, or None for a spectator.  Every event goes through
    `visible_to`, so nothing hidden can leak into a view.
    """
    trick: list[TrickEntry] = []
    played = 0
    exchange: list[CardsGiven] = []
    in_trick = True
    for event in reversed(events):
        if isinstance(event, DealStarted):
            break
        shown = visible_to(event, viewer)
        if isinstance(shown, (PlayStarted, TrickWon)):
            in_trick = False
        elif isinstance(shown, Played):
            played += shown.play.bits
            if in_trick:
                trick.append(shown)
        elif isinstance(shown, Passed):
            if in_trick:
                trick.append(shown)
        elif isinstance(shown, CardsGiven):
            exchange.append(shown)
    return tuple(reversed(trick)), CardSet.from_bits(played), tuple(reversed(exchange))
