"""`BuiltinSessions`: built-in levels playing bot accounts, all from one asyncio client in a thread of their own.

The server core never runs bot code, so the harness's built-in bots (a
ladder's, the arena's house bots) are clients like any other: one Session
per account, every match of every account on one event loop and one gRPC
channel.  The SDK's `SessionClient` plays them with its decisions on the
loop (built-in levels are quick and never hang) and the events deferred to
the next prompt, so a move costs its seat one message each way.  The
callers (ladder threads, the arena's printer) are not asyncio: `start` and
`close` are plain calls, `on_finished` is called on the client's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping

import grpc
from president_sdk.bot import Bot
from president_sdk.bots import builtin_bot
from president_sdk.connection import RECONNECT_OPTIONS
from president_sdk.runner_errors import RunnerError
from president_sdk.session_client import Appetite, BotFactory, FinishedMatch, SessionClient


class BuiltinSessions:
    """Context manager: plays `levels` (account token -> built-in level) on `server` until closed."""

    def __init__(self, server: str, levels: Mapping[str, str], *, appetite: Appetite | None = None,
                 on_finished: Callable[[FinishedMatch], None] | None = None) -> None:
        self._server = server
        self._levels = dict(levels)
        self._appetite = appetite
        self._on_finished = on_finished
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="builtin-sessions", daemon=True)
        self._main: asyncio.Task[None] | None = None
        self.error: str | None = None
        """Why an account stopped playing (a refused token, the server gone for good), once one has."""

    def __enter__(self) -> BuiltinSessions:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._begin(), self._loop).result(10)
        return self

    async def _begin(self) -> None:
        self._main = asyncio.get_running_loop().create_task(self._play())

    async def _play(self) -> None:
        async with grpc.aio.insecure_channel(self._server, options=RECONNECT_OPTIONS) as channel:
            clients = [SessionClient(_maker(level), token, server=self._server, channel=channel,
                                     appetite=self._appetite, threaded=False, on_finished=self._on_finished)
                       for token, level in self._levels.items()]
            tasks = [asyncio.create_task(c.run()) for c in clients]
            try:
                for done in asyncio.as_completed(tasks):
                    try:
                        await done
                    except RunnerError as exc:
                        self.error = self.error or f"built-in bots: {exc}"
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Leave every match (the server's clock plays what is left of them) and stop the thread."""
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._end(), self._loop).result(15)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    async def _end(self) -> None:
        if self._main is not None:
            self._main.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._main


def _maker(level: str) -> BotFactory:
    def make(seed: int | None) -> Bot:
        return builtin_bot(level, seed=seed)
    return make
