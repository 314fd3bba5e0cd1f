"""The bounds the HTTP port holds, so that no client can take the process's descriptors or fill its log.

aiohttp already bounds a request's head by size (its line, each header, how
many), and closes a connection whose next request has not arrived within
`keepalive_timeout`.  That deadline runs from the moment the connection opens
or its last answer ends, and bytes arriving do not push it back, so it is also
the deadline for a request's line and headers: a client that sends half a head
and stops, or trickles it, is closed when it passes.  A body the handlers do not
read (none of them reads one) is drained after the answer for `lingering_time`
at most, then the connection is closed.  What aiohttp lacks is a connection
cap and a quiet log: `Doorman` caps the connections, `ServerLog` is the log
its connection handlers write to.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from president_service.base.limits import RETRY_FULL_S
from president_service.base.throttled_log import LOG_EVERY_S, Throttle, held_back

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True, slots=True)
class HttpLimits:
    """What one HTTP connection may hold and for how long, and how many the port serves (docs/scaling.md)."""

    head_timeout_s: float = 10.0
    """Time a connection has to send a request's line and headers, from its opening or from its last answer
    (so also how long an idle connection is kept)."""
    body_timeout_s: float = 5.0
    """Time the rest of a request's body gets after its answer before the connection is closed."""
    max_connections: int = 256
    """Connections served at once, far below the usual descriptor limit so that gRPC keeps the rest."""
    max_refusing: int = 32
    """Connections over the cap being answered 503 at once; beyond them a new one is closed without a word."""
    refusal_timeout_s: float = 1.0
    """Time a refused connection has to send its request and read the 503."""
    log_every_s: float = LOG_EVERY_S
    """At most one log line of each kind (malformed request, refusal, error) per this many seconds."""


SERVED_WITHIN = HttpLimits()
"""The bounds the pages are served within (a test asks for tighter ones)."""


def handler_args(head_timeout_s: float, body_timeout_s: float, logger: ServerLog) -> dict[str, Any]:
    """aiohttp's settings for the connections a server of it serves (its `Server`'s keyword arguments)."""
    return {"keepalive_timeout": head_timeout_s, "lingering_time": body_timeout_s, "logger": logger,
            "access_log": None}


def _raised(exc_info: object) -> BaseException | None:
    """The exception a logging call's `exc_info` names."""
    if isinstance(exc_info, BaseException):
        return exc_info
    if isinstance(exc_info, tuple):
        return cast(BaseException | None, exc_info[1])
    return sys.exc_info()[1] if exc_info else None


class ServerLog(logging.LoggerAdapter[logging.Logger]):
    """The log aiohttp's connection handlers write to (their `logger`).

    A malformed request is the client's mistake: one warning line, without
    aiohttp's traceback.  Anything else keeps aiohttp's level and traceback.
    Each kind is throttled, with a count of the lines held back, so a flood of
    bad requests costs a line every `every_s`.
    """

    def __init__(self, every_s: float) -> None:
        super().__init__(log)
        self._malformed = Throttle(every_s)
        self._other = Throttle(every_s)

    def log(self, level: int, msg: object, *args: object, exc_info: Any = None, stack_info: bool = False,
            stacklevel: int = 1, extra: Mapping[str, object] | None = None, **kwargs: object) -> None:
        text = str(msg) % args if args else str(msg)
        error = _raised(exc_info)
        if isinstance(error, HttpProcessingError):
            first = error.message.splitlines()[0].rstrip(":") if error.message else type(error).__name__
            self._write(self._malformed, logging.WARNING, f"{text}, malformed: {first}")
        else:
            self._write(self._other, level, text, exc_info)

    def _write(self, throttle: Throttle, level: int, text: str, exc_info: Any = None) -> None:
        if self.logger.isEnabledFor(level) and (held := throttle.admit()) is not None:
            self.logger.log(level, "%s%s", text, held_back(held), exc_info=exc_info)


class Doorman:
    """The listening socket's protocol factory: each new connection goes to aiohttp's `server` while fewer
    than `max_connections` are open there, else to a second aiohttp server that answers every request 503,
    with Retry-After and the reason, and closes.

    The count is aiohttp's own (`Server.connections`), read when a connection is made rather than when its
    protocol is: asyncio makes the protocols of a burst of accepted connections before it connects any of
    them, so a count taken then would let the whole burst in.  A connection is handed on by giving its
    transport the chosen server's handler (`set_protocol`) and connecting that.
    """

    def __init__(self, server: web.Server, limits: HttpLimits, server_log: ServerLog) -> None:
        self._server = server
        self._limits = limits
        self._refused = Throttle(limits.log_every_s)
        self._refusals = web.Server(self._refuse, **handler_args(limits.refusal_timeout_s, limits.refusal_timeout_s,
                                                                 server_log))

    def __call__(self) -> asyncio.Protocol:
        return _Door(self)

    def admit(self, transport: asyncio.Transport) -> None:
        """Hand a new connection to the pages' server, or to the refusals', or close it when both are full."""
        served = len(self._server.connections)
        if served < self._limits.max_connections:
            handler: asyncio.Protocol = self._server()
        else:
            if (held := self._refused.admit()) is not None:
                log.warning("HTTP connection from %s refused: %d open, the most this server serves%s",
                            _peer(transport), served, held_back(held))
            if len(self._refusals.connections) >= self._limits.max_refusing:
                transport.abort()
                return
            handler = self._refusals()
        transport.set_protocol(handler)
        handler.connection_made(transport)

    async def _refuse(self, request: web.BaseRequest) -> web.StreamResponse:
        response = web.Response(status=503, headers={"Retry-After": str(math.ceil(RETRY_FULL_S))},
                                text=f"this server serves at most {self._limits.max_connections} HTTP connections"
                                     " at once; try again in a few seconds\n")
        response.force_close()
        return response

    async def close(self) -> None:
        """End the refusals under way (at shutdown)."""
        await self._refusals.shutdown(self._limits.refusal_timeout_s)


class _Door(asyncio.Protocol):
    """A new connection's protocol until the doorman has seen it; the handler it chooses takes its place."""

    def __init__(self, doorman: Doorman) -> None:
        self._doorman = doorman

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._doorman.admit(cast(asyncio.Transport, transport))


def _peer(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) else str(peer)
