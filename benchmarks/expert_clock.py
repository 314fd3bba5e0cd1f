"""Whether the expert keeps its clock: time per searched decision at the shipped budget, unloaded and busy.

The expert (shipped settings unless told) plays matches of 5 deals against
hard, normal and easy, its seat rotating, until it has made `--decisions`
searched decisions in each preset (`ExpertBot.last_searched`: the endgame or
the Monte Carlo search ran on the clock, whether or not it had time for a
playout; forced and obvious moves are not counted); each is timed on the
wall clock around `Bot.decide`.  Then again with the other core busy (a
child process spinning in a loop).  Per preset and load: the decision
time's median, 99th percentile and maximum, the 99th percentile as a
multiple of the budget (the bar: at most 1.2), playouts per decision that
played any (median and mean: the search's strength) and the share of
searched decisions with no playout (endgames solved exactly, or no time
left for a first evaluation).  Several `--runs` report the
median of each figure over the runs.  The engine build is the one imported
(the venv's compiled wheels; engine/src and sdk/src first on PYTHONPATH for the source).

    .venv/bin/python benchmarks/expert_clock.py                 # make bench-expert-clock
    .venv/bin/python benchmarks/expert_clock.py --runs 1 --decisions 200 --preset cardverse

Exit status 1 when a 99th percentile (median over the runs) is above 1.2x the budget.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import president_engine.match
import president_sdk.bots.expert.rollout as expert_rollout
from president_engine import PRESETS, Action, Observation, Rules
from president_sdk.bot import Bot
from president_sdk.bots import ExpertBot, builtin_bot
from president_sdk.bots.expert.bot import BUDGET, PLAYOUTS
from president_sdk.local import play_local

BAR = 1.2
"""Decision time at the 99th percentile, at most this multiple of the budget."""
OPPONENTS = ("hard", "normal", "easy")


class TimedExpert(ExpertBot):
    """The expert, timing its searched decisions on the wall clock."""

    def __init__(self, seed: int, budget: float, times: list[float], playouts: list[int]) -> None:
        super().__init__(seed, budget=budget, playouts=PLAYOUTS)
        self.times = times
        self.counts = playouts

    def decide(self, obs: Observation) -> Action:
        start = time.perf_counter()
        action = super().decide(obs)
        spent = time.perf_counter() - start
        if self.last_searched:
            self.times.append(spent)
            self.counts.append(self.last_playouts)
        return action


def measure(preset: str, decisions: int, budget: float, seed: int) -> tuple[list[float], list[int]]:
    """Wall times and playouts of at least `decisions` searched decisions of the expert in this preset."""
    rules = Rules.preset(preset, deals=5)
    times: list[float] = []
    playouts: list[int] = []
    match = 0
    while len(times) < decisions:
        seat = match % rules.players
        others = iter(OPPONENTS * 2)
        bots: list[Bot] = [TimedExpert(seed + match, budget, times, playouts) if p == seat
                           else builtin_bot(next(others), seed=seed + match) for p in range(rules.players)]
        play_local(bots, rules, seed=seed + match)
        match += 1
    return times, playouts


@contextmanager
def busy(on: bool) -> Iterator[None]:
    """The other core kept busy by a spinning child process while inside, when `on`."""
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if on else None
    try:
        yield
    finally:
        if child is not None:
            child.kill()
            child.wait()


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def build_name() -> str:
    """The engine's build, and the expert's search's (the compiled build compiles both)."""
    def name(module: ModuleType) -> str:
        return "compiled (mypyc)" if (module.__file__ or "").endswith((".so", ".pyd")) else "source (pure Python)"
    return f"{name(president_engine.match)}, the expert's search {name(expert_rollout)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="only these presets")
    parser.add_argument("--decisions", type=int, default=500, help="searched decisions per preset and load")
    parser.add_argument("--runs", type=int, default=3, help="runs; each figure is the median over them")
    parser.add_argument("--budget", type=float, default=BUDGET, help="seconds per decision (default: shipped)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    ok = True
    print(f"engine: {build_name()}; budget {1000 * args.budget:g} ms of CPU time, {args.decisions} searched "
          f"decisions per preset and load, medians over {args.runs} run(s)")
    print(f"{'preset':<10} {'load':<8} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'p99/bud':>7} "
          f"{'playouts p50':>12} {'mean':>6} {'none':>6}")
    for preset in args.preset or sorted(PRESETS):
        for loaded in (False, True):
            rows = []
            for run in range(args.runs):
                with busy(loaded):
                    times, playouts = measure(preset, args.decisions, args.budget, args.seed + 1000 * run)
                ms = [1000 * t for t in times]
                played = [n for n in playouts if n] or [0]
                rows.append((statistics.median(ms), percentile(ms, 99), max(ms), statistics.median(played),
                             statistics.fmean(played), sum(n == 0 for n in playouts) / len(playouts)))
            p50, p99, top, count, mean, none = (statistics.median(column) for column in zip(*rows, strict=True))
            ratio = p99 / (1000 * args.budget)
            ok = ok and ratio <= BAR
            print(f"{preset:<10} {'busy' if loaded else 'unloaded':<8} {p50:>7.1f} {p99:>7.1f} {top:>7.1f} "
                  f"{ratio:>7.2f} {count:>12.0f} {mean:>6.1f} {none:>6.1%}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
