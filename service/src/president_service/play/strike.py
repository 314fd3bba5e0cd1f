"""The server's own events in a match log: timeouts and take-overs, seen by every seat."""

from __future__ import annotations

from dataclasses import dataclass

from president_engine import Action, Event, GiveBack, Request, visible_to


@dataclass(frozen=True, slots=True)
class Strike:
    """A seat ran out of time (or had no client for the absence limit) and the server acted for it."""

    player: int
    strikes: int
    """The seat's timeouts so far, this one included."""
    action: Action | None
    """The action taken; None in the copy shown outside an exchange pair."""
    partner: int | None
    """In an exchange, the other player of the pair (who may see the action)."""


@dataclass(frozen=True, slots=True)
class TakenOver:
    """The server plays this seat with the easy strategy from now on."""

    player: int


LogEvent = Event | Strike | TakenOver
"""One entry of a match log: its sequence number is its index + 1."""


def visible(event: LogEvent, player: int | None) -> LogEvent | None:
    """The entry as `player` (None: a spectator) may see it, or None if hidden: engine rules plus exchange strikes."""
    if isinstance(event, TakenOver):
        return event
    if isinstance(event, Strike):
        private = isinstance(event.action, (GiveBack, Request))
        if private and player not in (event.player, event.partner):
            return Strike(event.player, event.strikes, None, event.partner)
        return event
    return visible_to(event, player)
