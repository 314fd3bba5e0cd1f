"""Serving the web pages over HTTP in the server's own event loop, beside grpc.aio (aiohttp's server).

The listening socket is the event loop's own rather than an aiohttp site, so
that each connection meets the doorman (http_limits) before aiohttp serves it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiohttp import web

from president_service.rpc.servicer import PresidentServicer
from president_service.web.http_limits import SERVED_WITHIN, Doorman, HttpLimits, ServerLog, handler_args
from president_service.web.pages import web_app


@dataclass(frozen=True, kw_only=True)
class WebServer:
    runner: web.AppRunner
    doorman: Doorman
    listener: asyncio.Server
    port: int

    async def stop(self) -> None:
        """Stop listening, let running requests finish for the grace given at start, then close them."""
        self.listener.close()
        await self.doorman.close()
        await self.runner.cleanup()
        await self.listener.wait_closed()


async def start_web(servicer: PresidentServicer, host: str, port: int, *, grace_s: float = 5.0,
                    limits: HttpLimits = SERVED_WITHIN, human_seats: bool = False) -> WebServer:
    """Serve the pages on host:port (0: a free port) within `limits` (`human_seats`: anyone may start a match
    against a bot, web_app); OSError when the address cannot be used."""
    server_log = ServerLog(limits.log_every_s)
    # A page that goes away cancels its request, so a closed tab frees its spectator stream at once.
    runner = web.AppRunner(web_app(servicer, human_seats=human_seats), handler_cancellation=True,
                           shutdown_timeout=grace_s,
                           **handler_args(limits.head_timeout_s, limits.body_timeout_s, server_log))
    await runner.setup()
    try:
        assert runner.server is not None, "set by setup()"
        doorman = Doorman(runner.server, limits, server_log)
        listener = await asyncio.get_running_loop().create_server(doorman, host, port, reuse_address=True)
    except BaseException:
        await runner.cleanup()
        raise
    return WebServer(runner=runner, doorman=doorman, listener=listener,
                     port=int(listener.sockets[0].getsockname()[1]))
