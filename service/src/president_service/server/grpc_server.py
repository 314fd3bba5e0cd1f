"""Starting and stopping the gRPC server: the service, health checking, reflection, TLS, limits, drain.

`start` restores every unfinished match from the database before it accepts
a call, so seats can reconnect right away; `RunningServer.stop` refuses new
calls, lets running ones finish for a grace period, then closes the database.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer  # health.aio at run time; the stubs name the module
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from grpc_reflection.v1alpha._async import ReflectionServicer  # reflection.aio at run time; the stubs name the module
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_service.base.auth import AdminKey
from president_service.base.limits import Limits
from president_service.league.arena import ArenaSettings
from president_service.play.accounts import Accounts
from president_service.play.clock import ABSENCE_S, ClockSettings
from president_service.play.match_store import MatchStore
from president_service.play.registry import Registry
from president_service.play.request_guard import GuardedServer
from president_service.rpc.core import shutting_down
from president_service.rpc.servicer import PresidentServicer
from president_service.web.http_server import WebServer, start_web

log = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["PresidentService"].full_name


@dataclass(frozen=True, kw_only=True, slots=True)
class ConnectionLimits:
    """Bounds on the gRPC port's connections, so that connections that never make a call cannot take the
    descriptors the process needs (gRPC's defaults give a handshake 120 s and keep a made connection for ever).
    gRPC has no bound per client address: the cap is on the whole port."""

    handshake_s: float = 10.0
    """A new connection must finish its handshake (TLS when served, the HTTP/2 preface and settings) within this,
    or it is closed."""
    idle_s: float = 60.0
    """A connection with no call open for this long is closed (a GOAWAY: a client's next call reconnects)."""
    max_connections: int = 512
    """Connections open at once; the next ones are closed as they come. With the web port's 288, well under
    the usual limit of 1,024 descriptors."""

    def options(self) -> list[tuple[str, int]]:
        """As gRPC core's channel arguments."""
        return [("grpc.server_handshake_timeout_ms", round(self.handshake_s * 1000)),
                ("grpc.max_connection_idle_ms", round(self.idle_s * 1000)),
                ("grpc.max_allowed_incoming_connections", self.max_connections)]


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    db: str
    admin_token: str
    host: str = "127.0.0.1"
    port: int = 50051
    """0 picks a free port (see RunningServer.port)."""
    tls_cert: Path | None = None
    tls_key: Path | None = None
    unix_socket: Path | None = None
    """Also listen on this Unix socket, without TLS: it is local, and its file's mode says who may connect. A host
    of sandboxed bots relays each jail's only way out to it."""
    limits: Limits = field(default_factory=Limits)
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    clock: ClockSettings = field(default_factory=ClockSettings)
    """The clock of matches created without one."""
    start_grace_s: float = 30.0
    """How long a match waits for all its seats to connect before its clock starts anyway."""
    absence_s: float = ABSENCE_S
    """How long a started match waits on a seat with no client before the server acts for it (a strike)."""
    arena: ArenaSettings = field(default_factory=ArenaSettings)
    http_port: int | None = None
    """The web pages' port on `host` (0 picks a free one); None: no web pages."""
    http_grace_s: float = 5.0
    """How long running web requests get at shutdown."""
    human_seats: bool = False
    """Anyone on the web pages may start a match of a connected bot against themselves and house bots."""


@dataclass(frozen=True, kw_only=True)
class RunningServer:
    server: grpc.aio.Server
    port: int
    registry: Registry
    servicer: PresidentServicer
    health: HealthServicer
    web: WebServer | None = None
    """The web pages, when served."""

    @property
    def http_port(self) -> int | None:
        return None if self.web is None else self.web.port

    async def stop(self, grace_s: float = 5.0) -> None:
        """Drain: refuse new calls, stop the clocks, end every stream with SHUTTING_DOWN, then stop."""
        self.servicer.draining = True
        self.servicer.loop_lag.stop()
        await self.health.enter_graceful_shutdown()
        self.servicer.arena.close()
        self.servicer.tournaments.close()
        self.servicer.sessions.close_all(shutting_down())
        self.registry.close()  # wakes every stream, which sees `draining` and ends itself
        if self.web is not None:
            await self.web.stop()
        await self.server.stop(grace_s)
        self.registry.store.close()


class StartError(RuntimeError):
    """The server cannot start: the address is taken, the database or a TLS file cannot be read."""


async def start(config: ServerConfig) -> RunningServer:
    """A serving server; StartError (nothing left running) when it cannot start."""
    admin = AdminKey(config.admin_token)
    credentials = None
    if config.tls_cert is not None and config.tls_key is not None:
        try:
            credentials = grpc.ssl_server_credentials([(config.tls_key.read_bytes(), config.tls_cert.read_bytes())])
        except OSError as exc:
            raise StartError(f"cannot read the TLS certificate or key: {exc}") from None
    try:
        store = MatchStore(config.db)
    except (sqlite3.Error, OSError) as exc:
        raise StartError(f"cannot open the database {config.db}: {exc}") from None
    try:
        return await _serve(config, admin, store, credentials)
    except BaseException:
        store.close()
        raise


async def _serve(config: ServerConfig, admin: AdminKey, store: MatchStore,
                 credentials: grpc.ServerCredentials | None) -> RunningServer:
    registry = Registry(store, config.limits, Accounts(store), start_grace_s=config.start_grace_s,
                        absence_s=config.absence_s)
    servicer = PresidentServicer(registry, admin, config.clock, config.arena)  # hooks in before matches return
    restored = registry.restore()
    limits = config.limits
    server = grpc.aio.server(options=[
        ("grpc.max_receive_message_length", limits.max_receive_bytes),
        ("grpc.so_reuseport", 0),
        ("grpc.server.max_pending_requests", limits.max_pending_requests),
        ("grpc.server.max_pending_requests_hard_limit", 2 * limits.max_pending_requests),
        *config.connections.options(),
    ])
    checker = HealthServicer()
    guarded: Any = GuardedServer(server, max_health_watches=limits.max_health_watches)  # stands in for the server
    pb_grpc.add_PresidentServiceServicer_to_server(servicer, guarded)
    health_pb2_grpc.add_HealthServicer_to_server(checker, guarded)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(  # type: ignore[no-untyped-call]
        ReflectionServicer((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)), guarded)
    address = f"{config.host}:{config.port}"
    try:
        port = (server.add_secure_port(address, credentials) if credentials is not None
                else server.add_insecure_port(address))
    except RuntimeError:
        registry.close()
        raise StartError(f"cannot listen on {address}: the port is in use or the address is not this machine's"
                         " (try another --port, or --port 0 for a free one)") from None
    if config.unix_socket is not None:
        try:
            server.add_insecure_port(f"unix:{config.unix_socket}")
        except RuntimeError:
            registry.close()
            raise StartError(f"cannot listen on unix:{config.unix_socket}: is its folder there and writable?") from None
    await server.start()
    web = None
    if config.http_port is not None:
        try:
            web = await start_web(servicer, config.host, config.http_port, grace_s=config.http_grace_s,
                                  human_seats=config.human_seats)
        except OSError as exc:
            registry.close()
            await server.stop(None)
            raise StartError(f"cannot serve the web pages on {config.host}:{config.http_port}: {exc.strerror or exc}"
                             " (try another --http-port, or 0 for a free one)") from None
    servicer.loop_lag.start()
    servicer.arena.start()
    servicer.tournaments.start(config.start_grace_s)
    await checker.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    await checker.set("", health_pb2.HealthCheckResponse.SERVING)
    log.info("listening on %s:%d%s (%d %s restored)%s", config.host, port,
             "" if config.unix_socket is None else f" and unix:{config.unix_socket}", restored,
             "match" if restored == 1 else "matches",
             "" if web is None else f"; web pages on http://{config.host}:{web.port}/")
    return RunningServer(server=server, port=port, registry=registry, servicer=servicer, health=checker, web=web)
