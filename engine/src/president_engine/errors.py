"""The engine's typed errors; each is a ValueError so callers may catch broadly."""

from __future__ import annotations

from enum import Enum


class CardParseError(ValueError):
    """Text that is not a card or a hand in the engine's notation."""


class RulesError(ValueError):
    """An unknown option, a value out of range, or options that cannot go together."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")
        self.option = option


class DealError(ValueError):
    """Explicit hands that the rules cannot deal."""


class RecordError(ValueError):
    """A match record that cannot be read."""


class IllegalReason(Enum):
    """Why an action was refused; stable names, also used on the wire."""

    MATCH_OVER = "MATCH_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    WRONG_PHASE = "WRONG_PHASE"
    CARDS_NOT_HELD = "CARDS_NOT_HELD"
    EMPTY_PLAY = "EMPTY_PLAY"
    MIXED_RANKS = "MIXED_RANKS"
    WRONG_RANK = "WRONG_RANK"
    WRONG_COUNT = "WRONG_COUNT"
    DOES_NOT_BEAT = "DOES_NOT_BEAT"
    LEADER_MUST_PLAY = "LEADER_MUST_PLAY"
    BAD_DECLARED_RANK = "BAD_DECLARED_RANK"
    JOKER_NOT_WILD = "JOKER_NOT_WILD"
    BAD_REQUEST = "BAD_REQUEST"


class IllegalActionError(ValueError):
    """An action the rules do not allow now; `reason` says which rule refused it."""

    def __init__(self, reason: IllegalReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
