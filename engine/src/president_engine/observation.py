"""A player's view of a match: the only thing a bot is given (OpenSpiel style).

It holds the player's own hand and the public state, and never another
player's card: exchange cards appear only for the two players of a pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from president_engine.actions import Action, Play
from president_engine.cards import CardSet
from president_engine.events import CardsGiven, DealStarted, Passed, Played, PlayStarted, TrickWon, visible_to
from president_engine.phase import Phase
from president_engine.roles import Role
from president_engine.rules import Rules

if TYPE_CHECKING:
    from president_engine.cards import Rank
    from president_engine.match import Match

TrickEntry = Played | Passed


@dataclass(frozen=True, slots=True)
class Observation:
    rules: Rules
    player: int
    deal: int
    phase: Phase
    to_act: int | None
    hand: CardSet
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
    """This deal's exchange as this player may see it (cards only within the pair)."""
    owed: int
    """Cards this player must name or give back now."""
    legal_actions: tuple[Action, ...]
    """What this player may do now; empty when it is not their turn."""

    @property
    def my_turn(self) -> bool:
        return self.to_act == self.player


def observe(match: Match, player: int) -> Observation:
    if not 0 <= player < match.rules.players:
        raise ValueError(f"no player {player} in a {match.rules.players}-player match")
    trick: list[TrickEntry] = []
    played = 0
    exchange: list[CardsGiven] = []
    in_trick = True
    for event in reversed(match.events):
        if isinstance(event, DealStarted):
            break
        if isinstance(event, (PlayStarted, TrickWon)):
            in_trick = False
        elif isinstance(event, Played):
            played += event.play.bits
            if in_trick:
                trick.append(event)
        elif isinstance(event, Passed) and in_trick:
            trick.append(event)
        elif isinstance(event, CardsGiven):
            shown = visible_to(event, player)
            assert isinstance(shown, CardsGiven)
            exchange.append(shown)
    to_act = match.to_act
    return Observation(
        rules=match.rules,
        player=player,
        deal=match.deal,
        phase=match.phase,
        to_act=to_act,
        hand=match.hand(player),
        hand_sizes=match.hand_sizes(),
        seats=match.seats,
        roles=tuple(match.roles),
        scores=tuple(match.scores),
        places=match.places,
        rank_order=match.rank_order,
        reversed=match.reversed,
        direction=match.direction,
        table=match.table,
        table_player=match.table_player,
        trick=tuple(reversed(trick)),
        played=CardSet.from_bits(played),
        exchange=tuple(reversed(exchange)),
        owed=match.owed(player),
        legal_actions=match.legal_actions() if to_act == player else (),
    )
