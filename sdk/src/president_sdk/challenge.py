"""`Challenge`: another account proposes a match to this one (over the Session); `Bot.accept_challenge` answers."""

from __future__ import annotations

from dataclasses import dataclass

from president_engine import Rules


@dataclass(frozen=True, kw_only=True, slots=True)
class Challenge:
    challenge_id: str
    challenger: str
    """The account that proposes the match."""
    accounts: tuple[str, ...]
    """Every account of the proposed match, the challenger first."""
    preset: str
    rules: Rules
    """The match's effective rules."""
