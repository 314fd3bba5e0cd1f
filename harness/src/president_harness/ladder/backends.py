"""Running the pending matches of a ladder: in parallel on this machine, or on Ray workers.

The driver (this process) owns the ladder db: workers only play and return
an `Outcome`; the driver counts it (`LadderStore.record`, keyed by schedule
index) or, on failure, records the failed attempt and queues the match again
while attempts remain.  A retried match therefore counts once whatever
happened to earlier attempts, and Ray's own retries are off so that no
attempt goes unseen.

What plays a match may be a plain function of the spec, or a recipe that
`open`s a `MatchWorker` per worker: the connections and bot processes that worker
keeps for many matches (a server ladder's Sessions), closed at the end.
Threads share one table; each Ray worker (an actor playing many matches at
once) opens its own.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import resource
import time
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any, Protocol

from president_harness.ladder.ladder_store import LadderStore
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.progress import Progress
from president_harness.ladder.schedule import MatchSpec

PlayMatch = Callable[[MatchSpec], Outcome]
"""Plays one match; raises on failure (any exception is one failed attempt, but `LadderStopError`)."""

Done = list[tuple[Hashable, Outcome | BaseException]]


class LadderStopError(RuntimeError):
    """Raised by a match's play when no match can be played any more (a bot that cannot stay up, accounts
    refused): the ladder stops, incomplete, instead of failing every match left."""


class MatchWorker(Protocol):
    """What one worker holds to play many matches (call it per match, from several threads)."""

    def __call__(self, spec: MatchSpec) -> Outcome: ...
    def close(self) -> None: ...


class WorkerRecipe(Protocol):
    """A recipe for a worker's `MatchWorker` (plain data, so it travels to Ray workers)."""

    def open(self, worker: int) -> MatchWorker: ...


MatchPlaying = PlayMatch | WorkerRecipe


class _Stateless:
    def __init__(self, play: PlayMatch) -> None:
        self._play = play

    def __call__(self, spec: MatchSpec) -> Outcome:
        return self._play(spec)

    def close(self) -> None:
        """Nothing is held between matches."""


def open_worker(play: MatchPlaying, worker: int) -> MatchWorker:
    opens = getattr(play, "open", None)
    if opens is not None:
        table: MatchWorker = opens(worker)
        return table
    assert callable(play)
    return _Stateless(play)


class Backend(Protocol):
    """Where matches are played: `submit` starts one, `completed` waits for some to end."""

    capacity: int
    """Matches in flight at once."""
    cores: int
    """The cores the matches are played on."""
    cpu_s: tuple[float, float]
    """After `close`: CPU seconds spent in worker processes of its own, and in their ended child processes (the
    command bots); (0, 0) when the matches are played in this process."""

    def submit(self, spec: MatchSpec) -> Hashable: ...
    def completed(self, handles: list[Hashable]) -> Done: ...
    def close(self) -> None: ...


class ThreadBackend:
    """Matches in parallel on this machine: each match is mostly waiting on its bots and the server."""

    def __init__(self, play: MatchPlaying, parallel: int) -> None:
        self.capacity = parallel
        self.cores = _cores()
        self.cpu_s = (0.0, 0.0)
        self._table = open_worker(play, 0)
        self._pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="ladder")

    def submit(self, spec: MatchSpec) -> Hashable:
        return self._pool.submit(self._table, spec)

    def completed(self, handles: list[Hashable]) -> Done:
        futures: list[Future[Outcome]] = [h for h in handles if isinstance(h, Future)]
        finished, _ = wait_futures(futures, timeout=1.0, return_when=FIRST_COMPLETED)
        out: Done = []
        for future in finished:
            error = future.exception()
            out.append((future, error if error is not None else future.result()))
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._table.close()


log = logging.getLogger(__name__)
_LOCAL_STARTS = 2
"""Attempts at starting a private Ray instance."""


def _start_local(ray: Any, parallel: int) -> None:
    """Start a private Ray instance, once more if it fails to start.

    Ray waits 30 s for its raylet to register and for its GCS server to write
    its port, and now and then, on a busy machine, one does not (Exception
    "The current node timed out during startup", RuntimeError "Timed out
    waiting for file .../gcs_server_port..."), which a fresh start usually
    gets past; the GCS server is given 60 s unless RAY_gcs_server_port_wait_time_s
    says otherwise.
    """
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "60")
    for attempt in range(1, _LOCAL_STARTS + 1):
        try:
            ray.init(num_cpus=parallel, include_dashboard=False, log_to_driver=False)
            return
        except Exception as exc:  # Ray raises a bare Exception (or a RuntimeError) here
            if attempt == _LOCAL_STARTS or "timed out" not in str(exc).lower():
                raise
            log.warning("the local Ray instance did not start (%s); starting it again", exc)
            ray.shutdown()


class RayWorker:
    """A Ray actor: opens its table once and plays many matches at once on it (a threaded actor)."""

    def __init__(self, play: MatchPlaying, worker: int) -> None:
        self._start = process_cpu()
        self._table = open_worker(play, worker)

    def play(self, spec: MatchSpec) -> Outcome:
        return self._table(spec)

    def cpu(self) -> tuple[float, float]:
        """CPU seconds of this worker's process since it started, and of its child processes that ended since."""
        own, children = process_cpu()
        return own - self._start[0], children - self._start[1]

    def close(self) -> None:
        self._table.close()


class RayBackend:
    """Matches on Ray workers (``address``: "local" starts a private instance, "auto" joins one).

    One actor per CPU of the cluster (at most `parallel`), each playing up to
    its share of `parallel` matches at once over the connections it holds.
    """

    def __init__(self, play: MatchPlaying, parallel: int, address: str) -> None:
        import ray  # optional: the `ray` extra

        self._ray: Any = ray
        if not ray.is_initialized():
            if address == "local":
                _start_local(ray, min(parallel, _cores()))
            else:
                ray.init(address=address, log_to_driver=False)
        cluster = int(self._ray.cluster_resources().get("CPU", 1))
        self.cores = _cores() if address == "local" else cluster
        self.cpu_s = (0.0, 0.0)
        workers = max(1, min(parallel, cluster))
        each = math.ceil(parallel / workers)
        actor = self._ray.remote(num_cpus=1, max_concurrency=each, max_restarts=0, max_task_retries=0)(RayWorker)
        self._actors = [actor.remote(play, worker) for worker in range(workers)]
        self._load = [0] * workers
        self._owner: dict[Hashable, int] = {}
        self.capacity = workers * each

    def submit(self, spec: MatchSpec) -> Hashable:
        worker = min(range(len(self._actors)), key=self._load.__getitem__)
        ref: Hashable = self._actors[worker].play.remote(spec)
        self._load[worker] += 1
        self._owner[ref] = worker
        return ref

    def completed(self, handles: list[Hashable]) -> Done:
        ready, _ = self._ray.wait(handles, num_returns=1, timeout=1.0)
        out: Done = []
        for ref in ready:
            self._load[self._owner.pop(ref)] -= 1
            try:
                out.append((ref, self._ray.get(ref)))
            except Exception as exc:  # a RayTaskError wrapping the attempt's failure
                out.append((ref, exc))
        return out

    def close(self) -> None:
        """Close every worker's table, add up the workers' CPU time and end them; leave the Ray instance to its
        owner."""
        try:
            self._ray.get([a.close.remote() for a in self._actors], timeout=60)
            spent = self._ray.get([a.cpu.remote() for a in self._actors], timeout=60)
            self.cpu_s = (sum(own for own, _ in spent), sum(children for _, children in spent))
        except Exception:  # a worker that died took its table with it
            log.warning("a Ray worker could not close its table", exc_info=True)
        for actor in self._actors:
            self._ray.kill(actor)


def _cores() -> int:
    return os.cpu_count() or 1


def process_cpu() -> tuple[float, float]:
    """CPU seconds of this process so far, and of its child processes that have ended (its bots, once stopped)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime


@dataclasses.dataclass(kw_only=True)
class RunTally:
    """What one run of `run_pending` did."""

    given_up: list[tuple[MatchSpec, str]] = dataclasses.field(default_factory=list)
    """The matches that failed every attempt, with the last error."""
    counted: int = 0
    moves: int = 0
    """Actions in the matches counted in this run."""
    served: int = 0
    """Of those matches, the ones played on a server (their outcome has the server's match id)."""


def run_pending(pending: list[MatchSpec], backend: Backend, store: LadderStore, *, retries: int,
                progress: Progress | None = None, watchdog: Callable[[], None] | None = None) -> RunTally:
    """Play `pending`, counting each finished match once.

    `watchdog` runs at least once a second and after every failed attempt (it restarts the ladder's own server
    if that died, so that the bots reconnect and the matches in play go on, or raises to stop the ladder).
    """
    queue = deque((spec, store.failures(spec.index) + 1) for spec in pending)
    limit = {spec.index: store.failures(spec.index) + 1 + retries for spec in pending}
    flying: dict[Hashable, tuple[MatchSpec, int]] = {}
    played = RunTally()
    try:
        while queue or flying:
            while queue and len(flying) < backend.capacity:
                spec, attempt = queue.popleft()
                flying[backend.submit(spec)] = (spec, attempt)
            if progress is not None:
                progress.tick()
            if watchdog is not None:
                watchdog()
            for handle, result in backend.completed(list(flying)):
                spec, attempt = flying.pop(handle)
                if isinstance(result, Outcome):
                    for bot, what in result.crashes:
                        store.record_crash(bot, what)
                    if store.record(dataclasses.replace(result, attempts=attempt)):
                        played.counted += 1
                        played.moves += result.moves
                        played.served += bool(result.match_id)
                    if progress is not None:
                        progress.advance()
                    continue
                if not isinstance(result, Exception):
                    raise result
                stop = result if isinstance(result, LadderStopError) else getattr(result, "cause", None)
                if isinstance(stop, LadderStopError):
                    raise stop
                message = f"{type(result).__name__}: {result}"
                crashed = getattr(result, "bot", "") or getattr(getattr(result, "cause", None), "bot", "")
                store.record_failure(spec.index, attempt, message, crashed)
                if watchdog is not None:
                    watchdog()
                if attempt < limit[spec.index]:
                    queue.append((spec, attempt + 1))
                else:
                    played.given_up.append((spec, message))
    finally:
        backend.close()
    return played
