"""`ServicerCore`: what every area of the servicer shares: the rooms it calls, admission, and the error mapping.

Every refusal is a `ServiceError`, sent as a gRPC status with ErrorInfo; on
the Play stream a refused Act is answered by ActionRejected and the stream
stays open.  Streams never copy the log: they walk it with a cursor, redact
each entry for their receiver as they send it (a public entry is encoded once
per match, `SharedEvents`), and sleep on a wake-up.  A Play stream's reader
task answers an Act itself as soon as it is applied (the two share a write
lock), so the acknowledgement goes out before the events the Act caused and
does not wait for the stream's writer to wake.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any, NoReturn, TypeVar

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_service.base.auth import AdminKey
from president_service.base.errors import Reason, ServiceError, abort
from president_service.base.limits import RETRY_FULL_S
from president_service.base.loop_lag import LoopLag
from president_service.hosting.bot_output import BotOutput
from president_service.hosting.version_records import PlayerRecords
from president_service.hosting.versions import Versions
from president_service.league.arena import Arena, ArenaSettings
from president_service.league.arena_ratings import Ratings
from president_service.league.tournaments.director import Tournaments
from president_service.play.clock import ClockSettings
from president_service.play.match_runner import MatchRunner
from president_service.play.registry import Registry
from president_service.play.request_guard import OpeningStreams
from president_service.play.session import Sessions

_T = TypeVar("_T")
_S = TypeVar("_S")
_Q = TypeVar("_Q")
LIST_LIMIT = 200
"""Finished matches ListMatches shows at most on a page (newest first), and without a page size."""
MAX_DELAY_MS = 3_600_000
"""The longest delay a spectator may ask for (an hour): a stream held longer holds a slot for nothing."""
REFUSAL_READ_S = 1.0
"""How long a stream refused as it opens is read for its first message before its status is sent."""

Context = grpc.aio.ServicerContext[object, object]
PlayContext = grpc.aio.ServicerContext[pb.PlayRequest, pb.PlayResponse]


def shutting_down() -> ServiceError:
    return ServiceError(Reason.SHUTTING_DOWN, "the server is shutting down; reconnect to its successor")


async def refuse_opening(context: grpc.aio.ServicerContext[Any, Any], exc: ServiceError) -> NoReturn:
    """End a stream refused as it opens (a bad token, a full server), once its first message is in.

    The client is writing its Hello meanwhile, and grpc's asyncio client reports a write that races the end
    of the call as INTERNAL instead of the status sent (grpc/grpc#36066): reading the Hello first (for at most
    `REFUSAL_READ_S`) lets the client see the reason the contract names.
    """
    with suppress(TimeoutError, grpc.RpcError):
        await asyncio.wait_for(context.read(), REFUSAL_READ_S)
    await abort(context, exc)


def guarded(call: Callable[[_S, _Q, Context], Awaitable[_T]]) -> Callable[[_S, _Q, Context], Awaitable[_T]]:
    """A unary call whose ServiceError becomes its status (the one error mapping of every unary RPC)."""
    @functools.wraps(call)
    async def run(self: _S, request: _Q, context: Context) -> _T:
        try:
            return await call(self, request, context)
        except ServiceError as exc:
            await abort(context, exc)
    return run


class ServicerCore(pb_grpc.PresidentServiceServicer):
    """The state every area shares: the rooms it calls, the streams open, admission."""

    def __init__(self, registry: Registry, admin: AdminKey, default_clock: ClockSettings,
                 arena: ArenaSettings | None = None) -> None:
        self._registry = registry
        self._admin = admin
        self._default_clock = default_clock
        self.sessions = Sessions(registry, arena=(arena or ArenaSettings()).enabled)
        self.versions = Versions(registry.store, registry.limits)
        self.records = PlayerRecords(registry.store)
        registry.finishing.append(self.records.finishing)
        self.bot_output = BotOutput(registry.store)
        self.arena = Arena(registry, registry.accounts, self.sessions, Ratings(registry.store),
                           arena or ArenaSettings(), registry.limits, self.versions)
        self.tournaments = Tournaments(registry, self.sessions, self.versions, default_clock)
        self.arena.reserved = self.tournaments.reserved  # a due tournament table comes before arena matchmaking
        self.draining = False
        """Set when the server stops: new calls are refused, running ones finish."""
        self._streams = 0
        """Play and Spectate streams open now."""
        self._opening = OpeningStreams()
        """Play streams taken but not yet welcomed (on the server and by client), and Sessions before their hello
        (by client)."""
        self.loop_lag = LoopLag()
        """How far behind the event loop runs (started with the server): new Play streams are refused past a bound."""

    def _open(self) -> None:
        if self.draining:
            raise shutting_down()

    def _admit_stream(self) -> None:
        """Count a new Play or Spectate stream against the server's limit (the caller uncounts it)."""
        limit = self._registry.limits.max_streams
        if self._streams >= limit:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"this server has {limit} streams open, its limit",
                               retry_after_s=RETRY_FULL_S)
        self._streams += 1

    @property
    def opening_streams(self) -> int:
        """Play streams taken but not yet welcomed (bounded by `Limits.max_opening_streams`)."""
        return self._opening.total

    def opening_from(self, peer: str) -> int:
        """Play streams and Sessions opening now from `peer`'s address (bounded by `Limits.max_opening_per_peer`)."""
        return self._opening.of(peer)

    def _admit_opening(self, context: grpc.aio.ServicerContext[Any, Any], *, play: bool) -> Callable[[], None]:
        """Refuse a new Play stream (`play`) or Session at once (TOO_MANY_STREAMS, with a retry hint) when the server
        is past its bounds: its loop runs more than `max_loop_lag_s` behind (a Play stream), `max_opening_streams`
        Play streams are already opening, or `max_opening_per_peer` streams of its client's address are.  Else
        count it as opening; what is returned uncounts it, once (its hello is read or Welcome sent, or it ends)."""
        limits = self._registry.limits
        if play and (lag := self.loop_lag.lag) > limits.max_loop_lag_s:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"this server is overloaded (it runs {lag:.2f} s behind, its"
                                                        f" bound {limits.max_loop_lag_s:g} s)",
                               retry_after_s=RETRY_FULL_S)
        return self._opening.admit(context.peer(), per_peer=limits.max_opening_per_peer,
                                   total=limits.max_opening_streams if play else None,
                                   retry_after_s=limits.hello_window_s)

    def _check_shown(self, runner: MatchRunner, admin: bool) -> None:
        """DEAL_IN_PLAY unless admin: a match whose cards another live match deals shows nothing of its play."""
        if not admin and self._registry.deal_in_play(runner):
            raise ServiceError(Reason.DEAL_IN_PLAY, "another live match deals the same cards (a duplicate board):"
                                                    " its play is shown once every match of the deal is over,"
                                                    " or with the admin token", retry_after_s=RETRY_FULL_S)
