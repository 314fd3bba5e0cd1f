"""One line of plain English per event, for terminals and logs."""

from __future__ import annotations

import os
from collections.abc import Sequence

from president_engine.events import (
    CardsGiven,
    CardsRequested,
    DealEnded,
    DealStarted,
    Event,
    HandDealt,
    MatchEnded,
    Passed,
    Played,
    PlayStarted,
    RevolutionHappened,
    TrickWon,
    WentOut,
)
from president_engine.roles import LANGUAGES, LOCAL_NAMES, Role


def plural(noun: str) -> str:
    """The plural of the nouns our texts count: "cards", "matches"."""
    return noun + "es" if noun.endswith(("ch", "sh", "s", "x")) else noun + "s"


def counted(n: int, noun: str) -> str:
    """`n` and the noun, plural unless `n` is 1: "1 card", "2 cards", "3 matches"."""
    return f"{n} {noun if n == 1 else plural(noun)}"


def duration(seconds: float) -> str:
    """A time as people read it: ``41 s`` below a minute and a half, else whole minutes: ``3 min``."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def terminal_language() -> str:
    """The language of the user's locale (LC_ALL, LC_MESSAGES, LANG, as gettext reads them): "hu" for hu_HU.UTF-8."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if value := os.environ.get(variable):
            return value.split("_")[0].split(".")[0].lower()
    return "en"


def describe(event: Event, names: Sequence[str], *, preset: str | None = None,
             language: str | None = None) -> str | None:
    """A line for `event`, naming players by `names`; None for events not worth a line.

    With `preset`, roles also go by the preset's own names (RULES 3: "Presidente", "Seggfej", ...) when `language`
    (default: the terminal's) is the preset's.
    """
    if isinstance(event, DealStarted):
        spoken = language or terminal_language()
        local = LOCAL_NAMES.get(preset or "", {}) if spoken in LANGUAGES.get(preset or "", ()) else {}
        roles = ", ".join(f"{names[p]} {r.value.replace('_', ' ')}" + (f" ({local[r]})" if r in local else "")
                          for p, r in enumerate(event.roles) if r is not Role.NEUTRAL)
        seats = " ".join(names[p] for p in event.seats)
        return f"== deal {event.deal}: seats {seats}; {names[event.dealer]} deals" + (f"; {roles}" if roles else "")
    if isinstance(event, HandDealt):
        return None
    if isinstance(event, CardsRequested):
        return f"   {names[event.receiver]} asks {names[event.giver]} for {event.cards or 'nothing'}"
    if isinstance(event, CardsGiven):
        what = str(event.cards) if event.cards is not None else counted(event.count, "card")
        verb = "pays tribute" if event.tribute else "gives back"
        return f"   {names[event.giver]} {verb} {what} to {names[event.receiver]}"
    if isinstance(event, PlayStarted):
        return f"   {names[event.leader]} leads"
    if isinstance(event, Played):
        return f"   {names[event.player]:>10}: {event.play}"
    if isinstance(event, Passed):
        return f"   {names[event.player]:>10}: {'skipped' if event.skipped else 'pass'}"
    if isinstance(event, RevolutionHappened):
        return "   ** revolution! the rank order is " + ("reversed" if event.reversed else "back to normal") + (
            "; play goes counter-clockwise" if event.direction < 0 else "")
    if isinstance(event, TrickWon):
        line = f"   -- trick to {names[event.winner]}"
        if event.next_leader is not None and event.next_leader != event.winner:
            line += f" (out of cards); {names[event.next_leader]} leads"
        return line
    if isinstance(event, WentOut):
        return f"   ** {names[event.player]} is out, place {event.place}"
    if isinstance(event, DealEnded):
        places = ", ".join(f"{i}. {names[p]} (+{event.points[p]})" for i, p in enumerate(event.places, 1))
        return f"== deal {event.deal} over: {places}; totals " + " ".join(
            f"{names[p]}={t}" for p, t in enumerate(event.totals))
    if isinstance(event, MatchEnded):
        points = event.totals[event.winner]
        return f"== match over: {names[event.winner]} wins with {counted(points, 'point')}"
    raise TypeError(f"not an event: {event!r}")
