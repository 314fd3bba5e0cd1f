"""What the server plays for a seat: after a timeout, and for a seat that has used up its strikes."""

from __future__ import annotations

from collections.abc import Sequence

from president_engine import PASS, Action


def timeout_action(legal: Sequence[Action]) -> Action:
    """The least a seat could have done: pass when allowed, else the first legal action.

    The engine lists plays lowest first, give-backs worst cards first and the
    empty request first, so the first action is the lowest play, the first
    listed give-back, or naming nothing.
    """
    return PASS if PASS in legal else legal[0]


def easy_action(legal: Sequence[Action]) -> Action:
    """The built-in easy strategy: the lowest legal play (pass only when nothing can be played)."""
    return legal[0]
