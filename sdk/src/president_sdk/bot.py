"""`Bot`: the one class a bot author subclasses.

Implement `play`; everything else has a sensible default.  The same bot runs
in-process (`president_sdk.play_local`) and against a server
(`president_sdk.run` or the ``president-bot`` command), and is always given
the engine's `Observation`: its own hand, the public history and the legal
actions, never another player's card.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any

from president_engine import Action, Event, Observation, Phase, Rules, fallback_action
from president_engine.events import DealEnded, MatchEnded

from president_sdk.challenge import Challenge
from president_sdk.faults import Faults


class Bot(ABC):
    """A player.  Subclass it and implement `play`; the constructor needs no arguments.

    The driver (local play or the network runner) fills in `player`, `rules`
    and, over the network, `raw` (the last protobuf message received) before
    the bot is asked anything.
    """

    player: int = -1
    """This bot's player number in the match (its seat in deal 1)."""
    rules: Rules | None = None
    """The match's rules, once seated."""
    raw: Any = None
    """The protobuf message behind the current observation or event (network play only)."""

    @property
    def name(self) -> str:
        """Shown in logs and lobbies, and by a seat created without a name that the bot plays over the network
        (it names itself); the class name unless overridden."""
        return type(self).__name__

    @property
    def faults(self) -> Faults:
        """How often the drivers replaced this bot's answer with the fallback, by kind (`Fault`)."""
        found: Faults | None = self.__dict__.get("_faults")
        if found is None:
            found = self.__dict__["_faults"] = Faults()
        return found

    @property
    def log(self) -> logging.Logger:
        """Where a bot writes about itself; the drivers also report its errors here."""
        return logging.getLogger(f"president.bot.{self.name}")

    # ------------------------------------------------------------------ the one method

    @abstractmethod
    def play(self, obs: Observation) -> Action:
        """Choose a play or ``PASS`` for this turn of the trick (must implement).

        Return one of ``obs.legal_actions``, or any `Play` of cards from
        ``obs.hand`` that the rules allow (``Play(CardSet("6H 6S"), Rank.KING)``
        declares a rank for a play of wild cards only).
        """

    # ------------------------------------------------------------------ optional hooks

    def give_back(self, obs: Observation) -> Action:
        """The cards a President or Vice-President hands back (``obs.owed`` of them).

        Default: the worst cards, the first listed give-back (`fallback_action`).
        """
        return fallback_action(obs.legal_actions)

    def request(self, obs: Observation) -> Action:
        """Norwegian exchange: the cards to ask the giver for, up to ``obs.owed``.

        Default: the best cards this bot does not hold, as many as it is owed (`fallback_action`).
        """
        return fallback_action(obs.legal_actions)

    def on_event(self, event: Event) -> None:  # noqa: B027 (an optional hook, empty by design)
        """Called for every event this player may see, as it happens (default: nothing)."""

    def on_deal_end(self, result: DealEnded) -> None:  # noqa: B027
        """Called when a deal ends: `places` lists the players first place first, `points` is by player (default:
        nothing)."""

    def on_match_end(self, result: MatchEnded) -> None:  # noqa: B027
        """Called once when the match ends (default: nothing)."""

    def accept_challenge(self, challenge: Challenge) -> bool:
        """Over a Session: whether to play the match another account proposes (default: decline).

        Asked of a bot made for the purpose, not of one playing a match.
        ``president-bot --accept-challenges`` accepts every challenge instead.
        """
        return False

    # ------------------------------------------------------------------ used by the drivers

    def seat(self, player: int, rules: Rules) -> None:
        """Called by the driver before the first decision: who this bot is and the rules."""
        self.player = player
        self.rules = rules

    def decide(self, obs: Observation) -> Action:
        """The bot's answer for this observation: `play`, `give_back` or `request` by phase."""
        if obs.phase is Phase.GIVE_BACK:
            return self.give_back(obs)
        if obs.phase is Phase.REQUEST:
            return self.request(obs)
        return self.play(obs)

    def notify(self, event: Event) -> None:
        """Hand an event to `on_event`, then to `on_deal_end` / `on_match_end` when it is one."""
        self.on_event(event)
        if isinstance(event, DealEnded):
            self.on_deal_end(event)
        elif isinstance(event, MatchEnded):
            self.on_match_end(event)


def listens(bot: Bot) -> bool:
    """Whether the bot has an event hook: drivers skip building events for bots that have none."""
    kind = type(bot)
    return (kind.on_event is not Bot.on_event or kind.on_deal_end is not Bot.on_deal_end
            or kind.on_match_end is not Bot.on_match_end or kind.notify is not Bot.notify)
