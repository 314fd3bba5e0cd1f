"""One run of a ladder: the schedule, what the db already counted, the pending matches, the summary."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TextIO

from president_harness.ladder.backends import (
    Backend,
    MatchPlaying,
    RayBackend,
    RunTally,
    ThreadBackend,
    process_cpu,
    run_pending,
)
from president_harness.ladder.config import LadderConfig
from president_harness.ladder.gate import Claim
from president_harness.ladder.ladder_store import LadderStore
from president_harness.ladder.progress import Progress
from president_harness.ladder.schedule import MatchSpec, schedule
from president_harness.ladder.summary import Speed, Summary, summarize


def pending(config: LadderConfig) -> tuple[list[MatchSpec], int]:
    """The matches still to play, and how many the ladder has in all (opens and checks the db)."""
    specs = schedule(config)
    store = LadderStore(config.db, config.fingerprint())
    try:
        done = store.done()
    finally:
        store.close()
    return [s for s in specs if s.index not in done], len(specs)


def retire_changed_bots(config: LadderConfig) -> dict[str, int]:
    """Bots that changed since the db last saw them (files, command, version): their matches are dropped.

    Returns each changed bot with how many of its counted matches will be played again.
    """
    store = LadderStore(config.db, config.fingerprint())
    try:
        return store.entrants(config.identities())
    finally:
        store.close()


def run_ladder(config: LadderConfig, play: MatchPlaying, *, claims: Sequence[Claim] = (), ray: str | None = None,
               progress: TextIO | None = None, watchdog: Callable[[], None] | None = None,
               server_cpu: Callable[[], float | None] | None = None) -> Summary:
    """Play what is left of the ladder with `play` (threads, or Ray workers at `ray`) and summarize it all.

    `server_cpu`: the CPU seconds the ladder's own server has used so far (for the speed report).
    """
    specs = schedule(config)
    store = LadderStore(config.db, config.fingerprint())
    try:
        done = store.done()
        todo = [s for s in specs if s.index not in done]
        played = RunTally()
        speed = None
        if todo:
            parallel = config.auto_parallel()
            clock = _Clock(server_cpu)
            backend: Backend = (RayBackend(play, parallel, ray) if ray is not None else ThreadBackend(play, parallel))
            bar = Progress(len(specs), len(done), progress, name=config.name) if progress is not None else None
            try:
                played = run_pending(todo, backend, store, retries=config.retries, progress=bar, watchdog=watchdog)
            finally:
                if bar is not None:
                    bar.close()
            speed = clock.speed(played, backend, on_ray=ray is not None)
        return summarize(config, store.outcomes(), len(specs), claims,
                         [(s.index, e) for s, e in played.given_up], crashes=store.crashes(), speed=speed)
    finally:
        store.close()


class _Clock:
    """Wall and CPU time from the start of a run: this process, its child processes, the backend's workers, the
    server."""

    def __init__(self, server_cpu: Callable[[], float | None] | None) -> None:
        self._server_cpu = server_cpu
        self._wall = time.perf_counter()
        self._own, self._children = process_cpu()
        self._server = server_cpu() if server_cpu is not None else None

    def speed(self, played: RunTally, backend: Backend, *, on_ray: bool) -> Speed:
        """This run's figures; after `backend` closed (its workers' CPU is counted then)."""
        server = self._server_cpu() if self._server_cpu is not None else None
        own, children = process_cpu()
        workers, their_children = backend.cpu_s
        return Speed(matches=played.counted, moves=played.moves, served=played.served,
                     seconds=time.perf_counter() - self._wall,
                     parallel=backend.capacity, cores=backend.cores, ladder_cpu_s=own - self._own + workers,
                     bots_cpu_s=children - self._children + their_children,
                     server_cpu_s=None if server is None or self._server is None else server - self._server,
                     on_ray=on_ray)
