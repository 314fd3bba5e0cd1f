"""The one fallback action: the easy level's move, read from the legal actions alone."""

from __future__ import annotations

from collections.abc import Sequence

from president_engine.actions import Action, Request


def fallback_action(legal: Sequence[Action]) -> Action:
    """The lowest play (pass only when no play is legal), the worst give-back, the best request."""
    if not legal:
        raise ValueError("no legal action: it is not this player's turn")
    first = legal[0]
    if isinstance(first, Request):
        most = max(len(a.cards) for a in legal if isinstance(a, Request))
        return next(a for a in legal if isinstance(a, Request) and len(a.cards) == most)
    return first
