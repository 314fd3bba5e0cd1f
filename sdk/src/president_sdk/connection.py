"""Connecting to a President server and coming back after a drop, for both runners (`remote`, `session_client`).

`Reconnection` decides, after each failed or ended call, whether to try
again and after how long, or to stop with a `RunnerError` a person can read:
a refused token stops at once, an address that never answered stops at once
(it is a wrong address, not a drop), and a server that stays away stops after
the last of the retry delays, which start over once a connection worked.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

import grpc
from president_protocol.status import read_refusal

from president_sdk.runner_errors import RunnerError

DEFAULT_SERVER = "localhost:50051"
RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Waits between reconnection attempts; the runner gives up after the last."""
RECONNECT_OPTIONS = (("grpc.initial_reconnect_backoff_ms", 200), ("grpc.min_reconnect_backoff_ms", 200),
                     ("grpc.max_reconnect_backoff_ms", 2000))
"""Channel options for a client that outlives a server restart: gRPC tries the address again within 2 s (its
defaults back off to 2 minutes, and calls fail at once meanwhile)."""
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)
"""Statuses of a dropped connection rather than a refusal."""

TokenKind = Literal["seat", "account"]


def rpc_error(exc: grpc.RpcError) -> tuple[str, str]:
    """(ErrorInfo reason, message) of a failed call, blocking or asyncio."""
    refusal = read_refusal(exc)
    return refusal.reason, refusal.message


class Reconnection:
    """The retry policy of one runner, across its connections."""

    def __init__(self, server: str, token: TokenKind, delays: Sequence[float]) -> None:
        self.server = server
        self._token = token
        self._delays = tuple(delays)
        self._left: Iterator[float] = iter(self._delays)
        self._welcomed = False
        self.ever_welcomed = False
        """Some connection worked: an unreachable server is then a dropped connection, not a wrong address."""

    def welcomed(self) -> None:
        """The server welcomed this connection: the next drop starts the delays over."""
        self._welcomed = self.ever_welcomed = True

    def after(self, code: grpc.StatusCode | None, reason: str, message: str) -> float:
        """The wait before the next attempt after a call that ended with `code` (None: an unknown failure);
        `RunnerError` when there is none."""
        if code not in RETRYABLE or reason in ("BAD_TOKEN", "MISSING_TOKEN"):
            raise RunnerError(self.explain(reason, message), reason=reason)
        if not self.ever_welcomed and code is grpc.StatusCode.UNAVAILABLE and not reason:
            raise RunnerError(f"cannot reach {self.server}: is the server running, and is the address right?",
                              reason="UNREACHABLE")
        if self._welcomed:
            self._welcomed = False
            self._left = iter(self._delays)
        delay = next(self._left, None)
        if delay is None:
            raise RunnerError(f"server gone: cannot reach {self.server} ({message})", reason=reason)
        return delay

    def explain(self, reason: str, message: str) -> str:
        """A refusal in words, for the token this runner uses."""
        seat = self._token == "seat"
        if reason == "BAD_TOKEN":
            return (f"bad token: {self.server} does not know this seat token ({message})" if seat
                    else f"bad account token: {self.server} refuses it: {message}")
        if reason == "MISSING_TOKEN":
            return f"no {self._token} token was sent ({message})"
        if reason == "DEV_SEAT_WAITING":
            return f"no match yet: {message} (--again waits for it)"
        if reason == "MATCH_OVER":
            return f"the match is over ({message})"
        if reason == "TOO_MANY_STREAMS":
            return (f"this seat is already being played from elsewhere ({message})" if seat
                    else f"this account is connected from elsewhere, or the server is full ({message})")
        return f"the server refused the {'stream' if seat else 'session'}: {reason or 'error'}: {message}"
