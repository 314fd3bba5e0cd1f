"""`BuiltinSessions`: built-in levels playing bot accounts, as asyncio clients in a thread and in worker processes.

The server core never runs bot code, so the harness's built-in bots (a
ladder's, the arena's house bots) are clients like any other: one Session
per account.  The SDK's `SessionClient` plays them with its decisions on the
loop and the events deferred to the next prompt, so a move costs its seat
one message each way.  The quick levels share one event loop and one gRPC
channel in a thread of this process.  A searching level (the expert) spends
its whole budget on every decision, so on one loop the experts of many
matches would decide one at a time on one core: each searching account gets
a worker process of its own, up to one per core (several accounts share a
worker beyond that), which plays it the same way on its own loop.  The
callers (ladder threads, the arena's printer) are not asyncio: `start` and
`close` are plain calls, `on_finished` is called on a thread of this
process.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
from collections.abc import Callable, Mapping
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event

import grpc
from president_sdk.bot import Bot
from president_sdk.bots import SEARCHING_LEVELS, builtin_bot
from president_sdk.connection import RECONNECT_OPTIONS
from president_sdk.runner_errors import RunnerError
from president_sdk.session_client import Appetite, BotFactory, FinishedMatch, SessionClient

_STOP_S = 15.0
"""How long `close` waits for a loop or a worker to leave its matches."""

Report = FinishedMatch | str
"""What a worker process tells this one: a finished match, or why an account stopped playing."""


class BuiltinSessions:
    """Context manager: plays `levels` (account token -> built-in level) on `server` until closed.

    `workers`: at most so many worker processes for the searching levels (default: one per CPU this process may
    run on; 0 plays every level in this process)."""

    def __init__(self, server: str, levels: Mapping[str, str], *, appetite: Appetite | None = None,
                 on_finished: Callable[[FinishedMatch], None] | None = None, workers: int | None = None) -> None:
        self._server = server
        self._appetite = appetite
        self._on_finished = on_finished
        searching = [token for token, level in levels.items() if level.lower() in SEARCHING_LEVELS]
        count = min(len(searching), len(os.sched_getaffinity(0)) if workers is None else workers)
        self._levels = {token: level for token, level in levels.items() if count == 0 or token not in searching}
        self._groups = [{token: levels[token] for token in searching[first::count]} for first in range(count)]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="builtin-sessions", daemon=True)
        self._main: asyncio.Task[None] | None = None
        context = multiprocessing.get_context("spawn")  # never fork a process with gRPC's threads
        self._reports: multiprocessing.Queue[Report | None] = context.Queue()
        self._stop: Event = context.Event()
        self._workers: list[BaseProcess] = [
            context.Process(target=_worker, args=(server, group, appetite, self._reports, self._stop, os.getpid()),
                            name=f"builtin-worker-{number}", daemon=True) for number, group in enumerate(self._groups)]
        self._listener = threading.Thread(target=self._listen, name="builtin-reports", daemon=True)
        self.error: str | None = None
        """Why an account stopped playing (a refused token, the server gone for good), once one has."""

    def __enter__(self) -> BuiltinSessions:
        for worker in self._workers:
            worker.start()
        self._listener.start()
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._begin(), self._loop).result(10)
        return self

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes playing the searching levels (none until started, nor with `workers=0`)."""
        return [worker.pid for worker in self._workers if worker.pid is not None]

    async def _begin(self) -> None:
        self._main = asyncio.get_running_loop().create_task(self._play())

    async def _play(self) -> None:
        await _play(self._server, self._levels, self._appetite, self._finished, self._failed)

    def _finished(self, match: FinishedMatch) -> None:
        if self._on_finished is not None:
            self._on_finished(match)

    def _failed(self, error: str) -> None:
        self.error = self.error or error

    def _listen(self) -> None:
        """Pass the workers' reports on, until `close`."""
        while (report := self._reports.get()) is not None:
            if isinstance(report, str):
                self._failed(report)
            else:
                self._finished(report)

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Leave every match (the server's clock plays what is left of them), stop the workers and the thread."""
        self._stop.set()
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._end(), self._loop).result(_STOP_S)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        for worker in self._workers:
            if worker.pid is not None:
                worker.join(_STOP_S)
                if worker.is_alive():
                    worker.kill()
                    worker.join()
        if self._listener.is_alive():
            self._reports.put(None)
            self._listener.join(10)

    async def _end(self) -> None:
        if self._main is not None:
            self._main.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._main


async def _play(server: str, levels: Mapping[str, str], appetite: Appetite | None,
                on_finished: Callable[[FinishedMatch], None], on_error: Callable[[str], None]) -> None:
    """Play `levels` on one channel until cancelled, telling `on_error` why an account stopped, if one does."""
    async with grpc.aio.insecure_channel(server, options=RECONNECT_OPTIONS) as channel:
        clients = [SessionClient(_maker(level), token, server=server, channel=channel, appetite=appetite,
                                 threaded=False, on_finished=on_finished) for token, level in levels.items()]
        tasks = [asyncio.create_task(c.run()) for c in clients]
        try:
            for done in asyncio.as_completed(tasks):
                try:
                    await done
                except RunnerError as exc:
                    on_error(f"built-in bots: {exc}")
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def _worker(server: str, levels: dict[str, str], appetite: Appetite | None,
            reports: multiprocessing.Queue[Report | None], stop: Event, parent: int) -> None:
    """A worker process: play `levels` until `stop` is set or the parent process is gone."""
    async def main() -> None:
        play = asyncio.create_task(_play(server, levels, appetite, reports.put, reports.put))
        loop = asyncio.get_running_loop()
        while not play.done():
            stopped = await loop.run_in_executor(None, stop.wait, 1.0)
            if stopped or os.getppid() != parent:
                play.cancel()
                break
        with contextlib.suppress(asyncio.CancelledError):
            await play

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C reaches the whole process group: the parent stops it
        asyncio.run(main())


def _maker(level: str) -> BotFactory:
    def make(seed: int | None) -> Bot:
        return builtin_bot(level, seed=seed)
    return make

