"""How many matches a ladder needs to order four bots of known strength, duplicate vs plain format.

The four built-in levels (random < easy < normal < hard, known from
benchmarks/bots_bench.py) play 4-player ladders made by the ladder's own
schedule and played in-process through the engine (the statistics, not the
server, are measured here).  For each format a pool of boards is played once
(a board: one table, four rotations so every bot sits in every seat; in
duplicate the four rotations share one deal, in plain each has its own).
Then, for each ladder size N (matches) on a grid, `--reps` ladders are drawn
from the pool (N/4 distinct boards, without replacement) and ranked two
ways: by mean place (the statistic behind the CI gate) and by the OpenSkill
ordinal (the ladder's table).  A ladder is correct when the ranking is
exactly hard, normal, easy, random.  N95 is the smallest N that is correct
in at least 95% of the ladders (interpolated on log N between grid points).

    .venv/bin/python benchmarks/ladder_formats.py                 # ~4 min on 2 cores
    .venv/bin/python benchmarks/ladder_formats.py --boards 500 --reps 100   # quicker, coarser

The bar: duplicate needs clearly fewer matches than plain (aim: 3x fewer).
Exit status 1 when duplicate does not need fewer.  Drawing from a finite pool
makes large ladders slightly less variable than fresh ones would be (by at
most the share of the pool drawn, printed), equally for both formats.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from os import devnull
from pathlib import Path

from president_service.ladder.config import BotSpec, Format, LadderConfig
from president_service.ladder.inprocess import InProcess
from president_service.ladder.outcome import Outcome
from president_service.ladder.ratings import rate
from president_service.ladder.schedule import schedule

LEVELS = ("random", "easy", "normal", "hard")
TRUTH = ("hard", "normal", "easy", "random")
"""Best first."""
GRID = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)
Board = list[Outcome]


def ladder_config(fmt: Format, boards: int, seed: int, preset: str, deals: int) -> LadderConfig:
    return LadderConfig(name=f"bench-{fmt.value}", format=fmt, players=4, matches=4 * boards, seed=seed,
                        preset=preset, overrides={"deals": deals},
                        bots=tuple(BotSpec(name=level, builtin=level) for level in LEVELS), db=Path(devnull))


def play_pool(fmt: Format, boards: int, seed: int, preset: str, deals: int) -> list[Board]:
    """Play `boards` boards of `fmt` in-process; returns them grouped by board."""
    config = ladder_config(fmt, boards, seed, preset, deals)
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


RANKERS: dict[str, Callable[[Sequence[Board]], tuple[str, ...]]] = {
    "mean place": by_mean_place, "openskill ordinal": by_ordinal}


def success_rate(pool: list[Board], matches: int, reps: int, rank: Callable[[Sequence[Board]], tuple[str, ...]],
                 rng: random.Random) -> float:
    k = matches // 4
    return sum(rank(rng.sample(pool, k)) == TRUTH for _ in range(reps)) / reps


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
    curve: list[tuple[int, float]] = []
    for matches in GRID:
        if matches // 4 > max_share * len(pool):
            break
        curve.append((matches, success_rate(pool, matches, reps, rank, rng)))
        if len(curve) >= 2 and curve[-1][1] >= 0.95 and curve[-2][1] >= 0.95:
            break
    return curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=4000, help="boards per format in the pool (default 4000)")
    parser.add_argument("--reps", type=int, default=200, help="ladders drawn per size (default 200)")
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--deals", type=int, default=1, help="deals per match (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-share", type=float, default=0.25,
                        help="largest share of the pool one ladder may draw (default 0.25)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    formats = (Format.PLAIN, Format.DUPLICATE)
    with ProcessPoolExecutor(max_workers=2) as workers:
        futures = [workers.submit(play_pool, fmt, args.boards, args.seed, args.preset, args.deals) for fmt in formats]
        pools = dict(zip(formats, [f.result() for f in futures], strict=True))
    played = time.perf_counter() - started
    print(f"{args.preset}, 4 players, {args.deals} deal(s) a match; pool: {args.boards} boards"
          f" ({4 * args.boards} matches) per format, played in {played:.0f} s; {args.reps} ladders per size\n")
    results: dict[tuple[str, Format], float | None] = {}
    for name, rank in RANKERS.items():
        print(f"ranked by {name}: share of ladders ordering hard > normal > easy > random")
        for fmt in formats:
            curve = curve_for(pools[fmt], args.reps, rank, args.seed, args.max_share)
            results[name, fmt] = n95(curve)
            cells = "  ".join(f"{n}:{r:.2f}" for n, r in curve)
            print(f"  {fmt.value:>9}  {cells}")
        plain, dup = results[name, Format.PLAIN], results[name, Format.DUPLICATE]
        ratio = f"{plain / dup:.1f}x fewer" if plain and dup else "n/a"
        print(f"  N95: plain {_text(plain)}, duplicate {_text(dup)}: duplicate needs {ratio}\n")
    print(f"total {time.perf_counter() - started:.0f} s")
    dup, plain = results["mean place", Format.DUPLICATE], results["mean place", Format.PLAIN]  # the gate's statistic
    return 0 if dup is not None and (plain is None or dup < plain) else 1


def _text(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.0f} matches"


if __name__ == "__main__":
    sys.exit(main())
