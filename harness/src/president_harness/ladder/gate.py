"""The CI gate: claims such as ``mybot > normal``, held only with 95% confidence.

``A > B`` holds when the 95% confidence interval of the paired place
difference place(B) - place(A) lies entirely above zero (see stats: per
board in duplicate format, per match in plain format).  ``A < B`` is
``B > A``.  Fewer than two shared units give an interval of every possible
difference, so the claim fails: a gate never passes for lack of data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from president_engine.intervals import Interval

from president_harness.ladder.config import Format, LadderConfig
from president_harness.ladder.schedule import board_size, schedule
from president_harness.ladder.stats import Units, paired_difference

_CLAIM = re.compile(r"^\s*(\S+)\s*([<>])\s*(\S+)\s*$")


class ClaimError(ValueError):
    """A claim that cannot be read or names an unknown bot."""


MIN_UNITS = 5
"""Fewest shared units (boards or matches) a claim is judged on: a unit is one set of cards, and a gap that two or
three of them show may be the cards' rather than the bots'."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Claim:
    """`better` finishes ahead of `worse`."""

    text: str
    better: str
    worse: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Verdict:
    claim: Claim
    difference: Interval
    """Places `better` finishes ahead of `worse`, per unit, with its 95% interval."""

    @property
    def holds(self) -> bool:
        """The interval lies above zero, over enough units that a zero spread is not luck."""
        return self.difference.n >= MIN_UNITS and self.difference.low > 0


def parse_claim(text: str, names: Iterable[str]) -> Claim:
    """Read ``"A > B"`` or ``"A < B"``; the names must be bots of the ladder."""
    found = _CLAIM.match(text)
    if found is None:
        raise ClaimError(f"{text!r}: write a claim as 'A > B' (A finishes ahead of B) or 'A < B'")
    left, op, right = found.groups()
    known = set(names)
    for name in (left, right):
        if name not in known:
            raise ClaimError(f"{text!r}: no bot named {name!r} (bots: {', '.join(sorted(known))})")
    if left == right:
        raise ClaimError(f"{text!r}: compares a bot with itself")
    better, worse = (left, right) if op == ">" else (right, left)
    return Claim(text=f"{left} {op} {right}", better=better, worse=worse)


def shared_units(config: LadderConfig, claim: Claim) -> int:
    """The units (boards, or matches in plain format) of the whole schedule in which both bots of `claim` play."""
    units: set[int] = set()
    for spec in schedule(config):
        if claim.better in spec.bots and claim.worse in spec.bots:
            units.add(spec.board if config.format is Format.DUPLICATE else spec.index)
    return len(units)


def matches_needed(config: LadderConfig, claim: Claim, *, most: int = 100_000) -> int | None:
    """The fewest matches at which `claim` can be judged (MIN_UNITS shared units), or None above `most`."""
    step = board_size(config) if config.format is Format.DUPLICATE else 1
    matches = step
    while matches <= most:
        if shared_units(replace(config, matches=matches), claim) >= MIN_UNITS:
            return matches
        matches = matches + step if matches < 8 * step else matches * 2 // step * step
    return None


def check_feasible(config: LadderConfig, claim: Claim) -> None:
    """ClaimError, before anything is played, when the ladder is too small for the claim ever to hold."""
    have = shared_units(config, claim)
    if have >= MIN_UNITS:
        return
    words = ("board", "boards") if config.format is Format.DUPLICATE else ("match", "matches")
    needed = matches_needed(config, claim)
    advice = f"set matches to at least {needed}" if needed is not None else "add matches"
    raise ClaimError(f"{claim.text!r} can never pass in this ladder: {claim.better} and {claim.worse} meet in"
                     f" {have} {words[have != 1]}, and the gate judges a claim on at least {MIN_UNITS};"
                     f" {advice} (now {config.matches})")


def judge(claim: Claim, table: Units, players: int, *, per_unit: float = 1.0) -> Verdict:
    """Whether the ladder's results support the claim at 95% confidence (`per_unit`: deals in a unit)."""
    return Verdict(claim=claim, difference=paired_difference(table, claim.better, claim.worse, players,
                                                             per_unit=per_unit))
