"""One run of a ladder: the schedule, what the db already counted, the pending matches, the summary."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from president_harness.ladder.backends import Backend, PlayMatch, RayBackend, ThreadBackend, run_pending
from president_harness.ladder.config import LadderConfig
from president_harness.ladder.gate import Claim
from president_harness.ladder.ladder_store import LadderStore
from president_harness.ladder.progress import Progress
from president_harness.ladder.schedule import MatchSpec, schedule
from president_harness.ladder.summary import Summary, summarize


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


def run_ladder(config: LadderConfig, play: PlayMatch, *, claims: Sequence[Claim] = (), ray: str | None = None,
               progress: TextIO | None = None, watchdog: Callable[[], None] | None = None) -> Summary:
    """Play what is left of the ladder with `play` (threads, or Ray tasks at `ray`) and summarize it all."""
    specs = schedule(config)
    store = LadderStore(config.db, config.fingerprint())
    try:
        done = store.done()
        todo = [s for s in specs if s.index not in done]
        failed: list[tuple[MatchSpec, str]] = []
        if todo:
            backend: Backend = (RayBackend(play, config.parallel, ray) if ray is not None
                                else ThreadBackend(play, config.parallel))
            bar = Progress(len(specs), len(done), progress, name=config.name) if progress is not None else None
            try:
                failed = run_pending(todo, backend, store, retries=config.retries, progress=bar, watchdog=watchdog)
            finally:
                if bar is not None:
                    bar.close()
        return summarize(config, store.outcomes(), len(specs), claims, [(s.index, e) for s, e in failed],
                         crashes=store.crashes())
    finally:
        store.close()
