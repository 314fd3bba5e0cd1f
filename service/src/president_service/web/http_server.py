"""Serving the web pages over HTTP in the server's own event loop, beside grpc.aio (aiohttp's server)."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from president_service.servicer import PresidentServicer
from president_service.web.pages import web_app


@dataclass(frozen=True, kw_only=True)
class WebServer:
    runner: web.AppRunner
    port: int

    async def stop(self) -> None:
        """Stop listening, let running requests finish for the grace given at start, then close them."""
        await self.runner.cleanup()


async def start_web(servicer: PresidentServicer, host: str, port: int, *, grace_s: float = 5.0) -> WebServer:
    """Serve the pages on host:port (0: a free port); OSError when the address cannot be used."""
    # A page that goes away cancels its request, so a closed tab frees its spectator stream at once.
    runner = web.AppRunner(web_app(servicer), handler_cancellation=True, shutdown_timeout=grace_s,
                           access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port, reuse_address=True)
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    return WebServer(runner=runner, port=int(runner.addresses[0][1]))
