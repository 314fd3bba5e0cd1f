"""Why a runner (the Play stream's `run`, the Session's `SessionClient`) cannot go on: `RunnerError`."""

from __future__ import annotations


class RunnerError(RuntimeError):
    """The runner cannot go on: bad token, match over, server gone, refused stream."""

    def __init__(self, message: str, *, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        """The server's ErrorReason name (e.g. "BAD_TOKEN"), or "" when it gave none."""


class MatchAlreadyOverError(RunnerError):
    """The match was over before this runner first connected: the bot played nothing, so it has no result."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"match {match_id} was already over when this bot connected; nothing to play",
                         reason="ALREADY_OVER")
        self.match_id = match_id
