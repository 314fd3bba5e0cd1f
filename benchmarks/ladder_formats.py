"""How many matches a ladder needs to order four bots of known strength, duplicate vs plain format.

The four built-in levels (random < easy < normal < hard, known from
benchmarks/bots_bench.py) play 4-player ladders made by the ladder's own
schedule and played in-process through the engine (the statistics, not the
server, are measured here).  For each format a pool of boards is played once
(a board: one table in each of its seatings, `--seatings`; in duplicate the
seatings share one deal and one seed for the random bot's draws, in plain
each match has its own).  Then, for each ladder size N (matches) on a grid
of whole boards, `--reps` ladders are drawn from the pool (N / board size
distinct boards, without replacement) and ranked two ways: by mean place
(the statistic behind the CI gate) and by the OpenSkill ordinal (the
ladder's table).  A ladder is correct when the ranking is exactly hard,
normal, easy, random.  N95 is the smallest N that is correct in at least 95%
of the ladders (interpolated on log N between grid points).

    .venv/bin/python benchmarks/ladder_formats.py                      # 3 runs, ~10 min on 2 cores
    .venv/bin/python benchmarks/ladder_formats.py --seatings rotations # the smaller boards, for comparison
    .venv/bin/python benchmarks/ladder_formats.py --runs 1 --matches 12000 --reps 100   # quicker, coarser

One pool's N95 moves by tens of percent with the luck of the pool, so the
figures to quote are the medians over `--runs` fresh pools.

The bar: duplicate needs clearly fewer matches than plain (aim: 3x fewer).
Exit status 1 when duplicate does not need fewer.  Drawing from a finite pool
makes large ladders slightly less variable than fresh ones would be (by at
most the share of the pool drawn, printed), equally for both formats.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from os import devnull
from pathlib import Path

from president_harness.ladder.config import BotSpec, Format, LadderConfig, Seatings
from president_harness.ladder.inprocess import InProcess
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.ratings import rate
from president_harness.ladder.schedule import board_size, schedule

LEVELS = ("random", "easy", "normal", "hard")
TRUTH = ("hard", "normal", "easy", "random")
"""Best first."""
GRID_BOARDS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 384, 512, 768,
               1024)
"""Ladder sizes, in boards."""
Board = list[Outcome]


def ladder_config(fmt: Format, seatings: Seatings, boards: int, seed: int, preset: str, deals: int) -> LadderConfig:
    config = LadderConfig(name=f"bench-{fmt.value}", format=fmt, players=4, seatings=seatings, matches=1, seed=seed,
                          preset=preset, overrides={"deals": deals},
                          bots=tuple(BotSpec(name=level, builtin=level) for level in LEVELS), db=Path(devnull))
    return replace(config, matches=boards * board_size(config))


def play_pool(fmt: Format, seatings: Seatings, boards: int, seed: int, preset: str, deals: int) -> list[Board]:
    """Play `boards` boards of `fmt` in-process; returns them grouped by board."""
    config = ladder_config(fmt, seatings, boards, seed, preset, deals)
    play = InProcess(rules=config.rules, levels={level: level for level in LEVELS})
    grouped: list[Board] = [[] for _ in range(boards)]
    for spec in schedule(config):
        grouped[spec.board].append(play(spec))
    return grouped


def by_mean_place(boards: Sequence[Board]) -> tuple[str, ...]:
    totals = dict.fromkeys(LEVELS, 0)
    for board in boards:
        for outcome in board:
            for order in outcome.orders():
                for place, name in enumerate(order, 1):
                    totals[name] += place
    return tuple(sorted(LEVELS, key=lambda name: (totals[name], name)))


def by_ordinal(boards: Sequence[Board]) -> tuple[str, ...]:
    return tuple(r.name for r in rate(LEVELS, [o for board in boards for o in board]))


FORMATS = (Format.PLAIN, Format.DUPLICATE)
RANKERS: dict[str, Callable[[Sequence[Board]], tuple[str, ...]]] = {
    "mean place": by_mean_place, "openskill ordinal": by_ordinal}


def success_rate(pool: list[Board], boards: int, reps: int, rank: Callable[[Sequence[Board]], tuple[str, ...]],
                 rng: random.Random) -> float:
    return sum(rank(rng.sample(pool, boards)) == TRUTH for _ in range(reps)) / reps


def n95(curve: list[tuple[int, float]]) -> float | None:
    """The smallest N reaching 95%, interpolated on log N; None when the grid never gets there."""
    for (n0, r0), (n1, r1) in zip([(0, 0.0), *curve], curve, strict=False):
        if r1 >= 0.95:
            if n0 == 0 or r1 == r0:
                return float(n1)
            t = (0.95 - r0) / (r1 - r0)
            return math.exp(math.log(n0) + t * (math.log(n1) - math.log(n0)))
    return None


def curve_for(pool: list[Board], reps: int, rank: Callable[[Sequence[Board]], tuple[str, ...]],
              seed: int, max_share: float) -> list[tuple[int, float]]:
    rng = random.Random(seed)
    size = len(pool[0])
    curve: list[tuple[int, float]] = []
    for boards in GRID_BOARDS:
        if boards > max_share * len(pool):
            break
        curve.append((boards * size, success_rate(pool, boards, reps, rank, rng)))
        if len(curve) >= 2 and curve[-1][1] >= 0.95 and curve[-2][1] >= 0.95:
            break
    return curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=48_000,
                        help="matches per format in each pool, rounded to whole boards (default 48000)")
    parser.add_argument("--seatings", choices=[s.value for s in Seatings], default=Seatings.ALL.value,
                        help="the seatings of a board (default all: 24 matches a board)")
    parser.add_argument("--reps", type=int, default=200, help="ladders drawn per size (default 200)")
    parser.add_argument("--runs", type=int, default=3, help="fresh pools (seeds seed, seed+1, ...); medians reported")
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--deals", type=int, default=1, help="deals per match (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-share", type=float, default=0.25,
                        help="largest share of the pool one ladder may draw (default 0.25)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    seatings = Seatings(args.seatings)
    size = board_size(ladder_config(Format.DUPLICATE, seatings, 1, args.seed, args.preset, args.deals))
    boards = max(1, args.matches // size)
    print(f"{args.preset}, 4 players, {args.deals} deal(s) a match, seatings {seatings.value} ({size} matches a board);"
          f" {args.runs} run(s), each a pool of {boards} boards ({boards * size} matches) per format;"
          f" {args.reps} ladders per size")
    results: dict[tuple[str, Format], list[float | None]] = {(name, fmt): [] for name in RANKERS for fmt in FORMATS}
    for run in range(args.runs):
        seed = args.seed + run
        print(f"\nrun {run + 1} (seed {seed})")
        with ProcessPoolExecutor(max_workers=2) as workers:
            futures = [workers.submit(play_pool, fmt, seatings, boards, seed, args.preset, args.deals)
                       for fmt in FORMATS]
            pools = dict(zip(FORMATS, [f.result() for f in futures], strict=True))
        for name, rank in RANKERS.items():
            print(f"  ranked by {name}: share of ladders ordering hard > normal > easy > random")
            for fmt in FORMATS:
                curve = curve_for(pools[fmt], args.reps, rank, seed, args.max_share)
                results[name, fmt].append(n95(curve))
                print(f"    {fmt.value:>9}  " + "  ".join(f"{n}:{r:.2f}" for n, r in curve))
            print(f"    N95: {_ratio(results[name, Format.PLAIN][-1], results[name, Format.DUPLICATE][-1])}")
    print(f"\nmedians over {args.runs} run(s):")
    medians = {key: _median(values) for key, values in results.items()}
    for name in RANKERS:
        print(f"  ranked by {name}: N95 {_ratio(medians[name, Format.PLAIN], medians[name, Format.DUPLICATE])}")
    print(f"total {time.perf_counter() - started:.0f} s")
    dup, plain = medians["mean place", Format.DUPLICATE], medians["mean place", Format.PLAIN]  # the gate's statistic
    return 0 if dup is not None and (plain is None or dup < plain) else 1


def _median(values: list[float | None]) -> float | None:
    """The median, counting 'not reached' (None) as larger than any figure."""
    middle = statistics.median(math.inf if v is None else v for v in values)
    return None if math.isinf(middle) else middle


def _ratio(plain: float | None, dup: float | None) -> str:
    ratio = f"{plain / dup:.1f}x fewer" if plain and dup else "n/a"
    return f"plain {_text(plain)}, duplicate {_text(dup)}: duplicate needs {ratio}"


def _text(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.0f} matches"


if __name__ == "__main__":
    sys.exit(main())
