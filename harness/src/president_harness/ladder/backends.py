"""Running the pending matches of a ladder: in parallel on this machine, or as Ray tasks.

The driver (this process) owns the ladder db: workers only play and return
an `Outcome`; the driver counts it (`LadderStore.record`, keyed by schedule
index) or, on failure, records the failed attempt and queues the match again
while attempts remain.  A retried match therefore counts once whatever
happened to earlier attempts, and Ray's own task retries are off so that no
attempt goes unseen.
"""

from __future__ import annotations

import dataclasses
import logging
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
"""Plays one match; raises on failure (any exception is one failed attempt)."""

Done = list[tuple[Hashable, Outcome | BaseException]]


class Backend(Protocol):
    """Where matches are played: `submit` starts one, `completed` waits for some to end."""

    capacity: int
    """Matches in flight at once."""

    def submit(self, spec: MatchSpec) -> Hashable: ...
    def completed(self, handles: list[Hashable]) -> Done: ...
    def close(self) -> None: ...


class ThreadBackend:
    """Matches in parallel on this machine: each match is mostly waiting on its bots and the server."""

    def __init__(self, play: PlayMatch, parallel: int) -> None:
        self.capacity = parallel
        self._play = play
        self._pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="ladder")

    def submit(self, spec: MatchSpec) -> Hashable:
        return self._pool.submit(self._play, spec)

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


log = logging.getLogger(__name__)
_LOCAL_STARTS = 2
"""Attempts at starting a private Ray instance."""


def _start_local(ray: Any, parallel: int) -> None:
    """Start a private Ray instance, once more if it fails to start.

    Ray waits a fixed 30 s for its raylet to register and now and then, on a
    busy machine, it does not (Exception "The current node timed out during
    startup"), which a fresh start usually gets past.
    """
    for attempt in range(1, _LOCAL_STARTS + 1):
        try:
            ray.init(num_cpus=parallel, include_dashboard=False, log_to_driver=False)
            return
        except Exception as exc:  # Ray raises a bare Exception here
            if attempt == _LOCAL_STARTS or "timed out during startup" not in str(exc):
                raise
            log.warning("the local Ray instance did not start (%s); starting it again", exc)
            ray.shutdown()


class RayBackend:
    """Matches as Ray tasks on a cluster (``address``: "local" starts a private instance, "auto" joins one)."""

    def __init__(self, play: PlayMatch, parallel: int, address: str) -> None:
        import ray  # optional: the `ray` extra

        self._ray: Any = ray
        if not ray.is_initialized():
            if address == "local":
                _start_local(ray, parallel)
            else:
                ray.init(address=address, log_to_driver=False)
        self.capacity = parallel
        self._task = ray.remote(max_retries=0, num_cpus=1)(_call)
        self._play = ray.put(play)

    def submit(self, spec: MatchSpec) -> Hashable:
        ref: Hashable = self._task.remote(self._play, spec)
        return ref

    def completed(self, handles: list[Hashable]) -> Done:
        ready, _ = self._ray.wait(handles, num_returns=1, timeout=1.0)
        out: Done = []
        for ref in ready:
            try:
                out.append((ref, self._ray.get(ref)))
            except Exception as exc:  # a RayTaskError wrapping the attempt's failure
                out.append((ref, exc))
        return out

    def close(self) -> None:
        """Leave the Ray instance to its owner (a private one ends with this process)."""


def _call(play: PlayMatch, spec: MatchSpec) -> Outcome:
    return play(spec)


def run_pending(pending: list[MatchSpec], backend: Backend, store: LadderStore, *, retries: int,
                progress: Progress | None = None,
                watchdog: Callable[[], None] | None = None) -> list[tuple[MatchSpec, str]]:
    """Play `pending`, counting each finished match once; returns the matches that failed every attempt.

    `watchdog` runs after every failed attempt (it restarts the ladder's own server if that died, or raises
    to stop the ladder).
    """
    queue = deque((spec, store.failures(spec.index) + 1) for spec in pending)
    limit = {spec.index: store.failures(spec.index) + 1 + retries for spec in pending}
    flying: dict[Hashable, tuple[MatchSpec, int]] = {}
    given_up: list[tuple[MatchSpec, str]] = []
    try:
        while queue or flying:
            while queue and len(flying) < backend.capacity:
                spec, attempt = queue.popleft()
                flying[backend.submit(spec)] = (spec, attempt)
            if progress is not None:
                progress.tick()
            for handle, result in backend.completed(list(flying)):
                spec, attempt = flying.pop(handle)
                if isinstance(result, Outcome):
                    store.record(dataclasses.replace(result, attempts=attempt))
                    if progress is not None:
                        progress.advance()
                    continue
                if not isinstance(result, Exception):
                    raise result
                message = f"{type(result).__name__}: {result}"
                crashed = getattr(result, "bot", "") or getattr(getattr(result, "cause", None), "bot", "")
                store.record_failure(spec.index, attempt, message, crashed)
                if watchdog is not None:
                    watchdog()
                if attempt < limit[spec.index]:
                    queue.append((spec, attempt + 1))
                else:
                    given_up.append((spec, message))
    finally:
        backend.close()
    return given_up
