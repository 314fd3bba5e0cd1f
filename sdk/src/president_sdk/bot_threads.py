"""`BotThreads`: where a session runs bot code, off its event loop, so one slow bot stalls no other match.

Daemon threads, reused from one call to the next (starting a thread costs
more than a move of a built-in bot).  A thread stuck in a bot past its
deadline is simply not waited for: the caller plays the fallback, the next
call gets another thread, and a hung bot never keeps the process from
exiting (a ThreadPoolExecutor joins its threads at exit).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from queue import SimpleQueue
from typing import TypeVar

_T = TypeVar("_T")
_Job = tuple[Callable[[], object], "Future[object]"]


class BotThreads:
    def __init__(self, name: str = "bot") -> None:
        self._name = name
        self._jobs: SimpleQueue[_Job] = SimpleQueue()
        self._idle = 0
        self._started = 0
        self._lock = threading.Lock()

    def submit(self, work: Callable[[], _T]) -> Future[_T]:
        """Run `work` in a free thread (a new one when none is free); its result or exception in the future."""
        future: Future[_T] = Future()
        with self._lock:
            if self._idle:
                self._idle -= 1
            else:
                self._started += 1
                threading.Thread(target=self._serve, name=f"{self._name}-{self._started}", daemon=True).start()
        self._jobs.put((work, future))  # type: ignore[arg-type]  # a Future[_T] is a Future[object] here
        return future

    def _serve(self) -> None:
        while True:
            work, future = self._jobs.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(work())
                except BaseException as exc:  # handed to the caller, who reports it
                    future.set_exception(exc)
            with self._lock:
                self._idle += 1
