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
from president_engine.cards import CardSet, Rank, Suit, copied_by_fields
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
from president_engine.tables import lock_suits, tables_for, trick_state

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
        """Position of `rank` in the order in force (0 weakest; a revolution, and 11-back, reverse it); jokers
        alone keep their fixed place."""
        return self.rules.strength(rank, reversed=self.reversed != self.jack_back)

    @property
    def suit_lock(self) -> tuple[Suit, ...]:
        """The suits every play of this trick must have (`suit_lock`, read from the trick); empty when none."""
        return lock_suits(self._trick_state[0])

    @property
    def jack_back(self) -> bool:
        """True while 11-back (`jack_back`, read from the trick) reverses the order until the trick ends."""
        return bool(self._trick_state[1])

    @property
    def _trick_state(self) -> tuple[int, int]:
        if not (self.rules.suit_lock or self.rules.jack_back):
            return 0, 0
        return trick_state(tables_for(self.rules), [e.play for e in self.trick if isinstance(e, Played)])

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


class DealReading:
    """Where the deal in progress stands in a match's events, read forward once: each view then reads only its
    trick and its exchange, instead of walking back through the deal for every observation.

    It keeps positions and the played cards (public), never a view: each view still takes every event it shows
    through `visible_to`, so nothing hidden can leak into one."""

    __slots__ = ("_deal_from", "_exchange_at", "_played", "_read", "_trick_from")

    def __init__(self) -> None:
        self._read = 0
        """Events read so far."""
        self._deal_from = 0
        self._trick_from = 0
        """The first event of the trick in progress."""
        self._played = 0
        """Every card played in this deal, as `CardSet` bits (which add: a deck may hold a card twice)."""
        self._exchange_at: list[int] = []
        """Where this deal's CardsGiven events are."""

    def copy(self) -> DealReading:
        new = DealReading()
        new._read, new._deal_from, new._trick_from, new._played = (self._read, self._deal_from, self._trick_from,
                                                                   self._played)
        new._exchange_at = list(self._exchange_at)
        return new

    def view(self, events: Sequence[Event], viewer: int | None) -> tuple[tuple[TrickEntry, ...], CardSet,
                                                                          tuple[CardsGiven, ...]]:
        """The current trick, the cards played and the exchange of the deal in progress, as `viewer` (a player,
        or None for a spectator) may see them."""
        for at in range(self._read, len(events)):
            event = events[at]
            if isinstance(event, DealStarted):
                self._deal_from = self._trick_from = at + 1
                self._played = 0
                self._exchange_at = []
            elif isinstance(event, (PlayStarted, TrickWon)):
                self._trick_from = at + 1
            elif isinstance(event, Played):
                self._played += event.play.bits
            elif isinstance(event, CardsGiven):
                self._exchange_at.append(at)
        self._read = len(events)
        trick: list[TrickEntry] = []
        for at in range(self._trick_from, len(events)):
            shown = visible_to(events[at], viewer)
            if isinstance(shown, (Played, Passed)):
                trick.append(shown)
        exchange: list[CardsGiven] = []
        for at in self._exchange_at:
            given = visible_to(events[at], viewer)
            if isinstance(given, CardsGiven):
                exchange.append(given)
        return tuple(trick), CardSet.from_bits(self._played), tuple(exchange)
