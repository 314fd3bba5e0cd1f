"""A failing match is tried again and counted once; one that fails every attempt leaves the ladder incomplete."""

from __future__ import annotations

from pathlib import Path

import pytest
from ladder_support import builtin_config, in_process
from president_harness.ladder.backends import _start_local
from president_harness.ladder.config import LadderConfig
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.ladder_store import LadderStore
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.schedule import MatchSpec


class Flaky:
    """Fails match `index` the first `failures` times it is tried."""

    def __init__(self, config: LadderConfig, index: int, failures: int) -> None:
        self.play = in_process(config)
        self.index, self.left = index, failures
        self.tries = 0

    def __call__(self, spec: MatchSpec) -> Outcome:
        if spec.index == self.index:
            self.tries += 1
            if self.left:
                self.left -= 1
                raise ConnectionError("the bot went away")
        return self.play(spec)


def test_retried_match_counts_once(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=8, retries=2, seatings="rotations")
    flaky = Flaky(config, index=3, failures=2)
    summary = run_ladder(config, flaky)
    assert summary.complete and summary.counted == 8 and flaky.tries == 3
    store = LadderStore(config.db, config.fingerprint())
    outcomes = store.outcomes()
    assert [o.index for o in outcomes] == list(range(8))
    assert next(o for o in outcomes if o.index == 3).attempts == 3 and store.failures(3) == 2
    assert not store.record(outcomes[3])  # a second result for a counted match is refused
    store.close()


def test_match_failing_every_attempt_is_reported_then_resumed(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=8, retries=1, seatings="rotations")
    flaky = Flaky(config, index=5, failures=3)
    summary = run_ladder(config, flaky)
    assert not summary.complete and summary.counted == 7 and flaky.tries == 2
    assert summary.failed[0][0] == 5 and "went away" in summary.failed[0][1]
    summary = run_ladder(config, flaky)  # the next run tries again: one more failure, then success
    assert summary.complete and flaky.tries == 4


class FlakyRay:
    """Stands in for the ray module: its first `init` times out the way Ray's own does."""

    def __init__(self, message: str = "The current node timed out during startup. This could happen ...") -> None:
        self.message, self.calls = message, []

    def init(self, **options: object) -> None:
        self.calls.append("init")
        if self.calls.count("init") == 1:
            raise Exception(self.message)

    def shutdown(self) -> None:
        self.calls.append("shutdown")


def test_a_local_ray_that_does_not_start_is_started_again() -> None:
    flaky = FlakyRay()
    _start_local(flaky, 2)
    assert flaky.calls == ["init", "shutdown", "init"]
    other = FlakyRay("something else")
    with pytest.raises(Exception, match="something else"):
        _start_local(other, 2)
    assert other.calls == ["init"]
