"""The one fallback action (the built-in easy level's move, read from the legal actions alone), and `Fault`.

The SDK's easy bot, a bot's error fallback and the server's clock all act
through it, so a player who does not choose always gets the same move.
`Fault` says why a client played it for its bot; the SDK counts it, the
contract carries it (BotFault, matched by name) and the server stores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from president_engine.actions import Action, Request


class Fault(Enum):
    """Why a driver replaced a bot's answer with the fallback (Kaggle's ERROR, TIMEOUT and INVALID)."""

    ERROR = "error"
    """The bot raised."""
    TIMEOUT = "timeout"
    """The bot did not answer before its deadline."""
    INVALID = "invalid"
    """The bot answered with something that is not a legal action now."""


def fallback_action(legal: Sequence[Action]) -> Action:
    """The lowest play (pass only when no play is legal), the worst give-back, or the best request.

    `legal` is a list in the engine's order (movegen.py): plays lowest first
    and pass last, so the first action is the lowest play, or pass when it is
    alone; give-backs worst cards first; requests by size, best cards first
    within a size, so the first of the largest size names the best cards the
    player does not hold.
    """
    if not legal:
        raise ValueError("no legal action: it is not this player's turn")
    first = legal[0]
    if isinstance(first, Request):
        most = max(len(a.cards) for a in legal if isinstance(a, Request))
        return next(a for a in legal if isinstance(a, Request) and len(a.cards) == most)
    return first
