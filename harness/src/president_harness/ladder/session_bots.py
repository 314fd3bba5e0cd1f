"""`SessionBots`: a ladder's command bots that play over Sessions, each started once and restarted after a crash.

A command given ``{account_token}`` runs for the whole ladder (once per
parallel slot when it is not `concurrent`, each slot with its own account)
and plays every match its account is seated in.  When its process exits,
its live matches go on under the clock rules (the server plays its turns
when they time out) and the crash is counted against the bot; it is started
again at once and resumes those matches with the same token.  A bot that
keeps exiting within `QUICK_EXIT_S` of its start, `GIVE_UP_AFTER` times in
a row, cannot run at all: the ladder stops (`gave_up`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from president_harness.ladder.bot_process import BotProcess
from president_harness.ladder.config import BotSpec

QUICK_EXIT_S = 5.0
GIVE_UP_AFTER = 3
_POLL_S = 0.1
_STOP_GRACE_S = 2.0
"""How long a bot may take to leave when the ladder ends (president-bot prints its summary then)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionBotProcess:
    """One process of a session bot: the account it plays and the file its output goes to."""

    bot: BotSpec
    account_token: str
    logs: Path


class _Running:
    def __init__(self, seat: SessionBotProcess, server: str, base: Path) -> None:
        self.seat = seat
        self.quick_exits = 0
        argv = seat.bot.argv(server=server, account_token=seat.account_token)
        argv[0] = seat.bot.program(base) or argv[0]
        self._argv, self._base = argv, base
        self.process = self._start(append=False)

    def _start(self, *, append: bool) -> BotProcess:
        self.started = time.monotonic()
        return BotProcess(self.seat.bot.name, list(self._argv), self._base, self.seat.logs, append=append)

    def restart(self) -> None:
        self.process = self._start(append=True)


class SessionBots:
    """Context manager: starts every seat's process, watches them from a thread, stops them on exit."""

    def __init__(self, seats: Sequence[SessionBotProcess], server: str, base: Path) -> None:
        for seat in seats:
            seat.logs.parent.mkdir(parents=True, exist_ok=True)
        self._running = [_Running(seat, server, base) for seat in seats]
        self._crashes: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.gave_up: str | None = None
        """Why the ladder must stop: a bot that cannot stay up."""
        self._watch = threading.Thread(target=self._watch_loop, name="session-bots", daemon=True)
        self._watch.start()

    def __enter__(self) -> SessionBots:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def take_crashes(self) -> list[tuple[str, str]]:
        """The crashes since the last call: (bot name, what happened)."""
        with self._lock:
            crashes, self._crashes = self._crashes, []
        return crashes

    def _watch_loop(self) -> None:
        while not self._stop.wait(_POLL_S):
            for running in self._running:
                process = running.process
                if not process.finished() or self._stop.is_set():
                    continue
                status = process.exit_status()
                what = (process.describe_exit() if status else f"{process.name} exited (status 0) before the"
                        " ladder was over") + "; its live matches go on under the clock rules"
                quick = time.monotonic() - running.started < QUICK_EXIT_S
                running.quick_exits = running.quick_exits + 1 if quick else 0
                with self._lock:
                    self._crashes.append((running.seat.bot.name, what))
                if running.quick_exits >= GIVE_UP_AFTER:
                    errors = running.seat.logs.with_name(running.seat.logs.name + ".stderr")
                    self.gave_up = (f"{process.name} exited {GIVE_UP_AFTER} times within {QUICK_EXIT_S:g} s of"
                                    f" starting ({what}); see {errors}")
                    return
                process.stop()
                running.restart()

    def close(self) -> None:
        self._stop.set()
        self._watch.join(5)
        for running in self._running:
            running.process.terminate()
        for running in self._running:
            running.process.stop(_STOP_GRACE_S)
