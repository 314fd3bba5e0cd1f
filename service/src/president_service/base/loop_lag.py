"""How late the server's event loop runs: its measure of overload, by which new Play streams are refused at once
(`Limits.max_loop_lag_s`) rather than left to wait seconds for their Welcome."""

from __future__ import annotations

import asyncio


class LoopLag:
    """How late the event loop runs a timer now: the server's measure of overload.

    A loop with more work than its core can do runs every callback late by about one cycle of all that work, a new
    call's steps as much as any: gRPC's asyncio server takes one new call a cycle, and a Play stream needs several
    cycles to its Welcome. `start` runs a timer every `TICK_S`; `lag` is the latest lateness, or half the previous
    one when that was larger (a busy loop stays seen as busy for a few ticks)."""

    TICK_S = 0.05

    def __init__(self) -> None:
        self.lag = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._watch())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.TICK_S)
            self.seen(loop.time() - before - self.TICK_S)

    def seen(self, late: float) -> None:
        """One tick `late` seconds late."""
        self.lag = max(late, self.lag / 2)
