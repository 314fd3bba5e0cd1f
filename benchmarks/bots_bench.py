"""Strength of the built-in bots: mean finishing place per level, with 95% intervals.

Every match seats one bot of each level (random, easy, normal, hard) at a
4-player table, cycling through all 24 seatings so no level keeps a seat; the
random bot is seeded by the match, so runs repeat exactly.
Matches last several deals, so exchanges (and Norwegian requests) are played.
Places within a match are not independent (roles carry over), so the unit of
the intervals is the match: each level's mean place per match, and for each
step the per-match difference of two levels' mean places (paired).

    .venv/bin/python benchmarks/bots_bench.py              # 2,000 deals per preset
    .venv/bin/python benchmarks/bots_bench.py --deals 400  # quicker

The bar: random < easy < normal < hard, each step's interval excluding zero.
Exit status 1 when a step fails it.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from itertools import pairwise, permutations
from typing import Any

from president_engine import Rules
from president_sdk.bots import BUILTIN_BOTS, builtin_bot
from president_sdk.local import play_local

LEVELS = tuple(BUILTIN_BOTS)
Z95 = 1.959964
PRESETS: dict[str, dict[str, Any]] = {
    "cardverse": {},
    "norwegian": {},
    "italian": {"players": 4},
}


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% normal interval."""
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return mean, half


def run_preset(preset: str, overrides: dict[str, Any], deals: int, per_match: int) -> dict[str, list[float]]:
    """Per match: each level's mean place (1 = first)."""
    rules = Rules.preset(preset, deals=per_match, **overrides)
    seatings = list(permutations(range(len(LEVELS))))
    matches = -(-deals // per_match)
    by_level: dict[str, list[float]] = {level: [] for level in LEVELS}
    for index in range(matches):
        names = [LEVELS[i] for i in seatings[index % len(seatings)]]
        bots = [builtin_bot(name, seed=index) for name in names]
        result = play_local(bots, rules, seed=index)
        totals = dict.fromkeys(LEVELS, 0)
        for places in result.places:
            for place, player in enumerate(places, 1):
                totals[names[player]] += place
        for level in LEVELS:
            by_level[level].append(totals[level] / len(result.places))
    return by_level


def report(title: str, by_level: dict[str, list[float]]) -> bool:
    n = len(by_level[LEVELS[0]])
    print(f"\n{title}  ({n} matches)")
    for level in LEVELS:
        mean, half = interval(by_level[level])
        print(f"  {level:>7}  mean place {mean:.3f} ± {half:.3f}")
    ok = True
    for weaker, stronger in pairwise(LEVELS):
        diffs = [a - b for a, b in zip(by_level[weaker], by_level[stronger], strict=True)]
        mean, half = interval(diffs)
        passed = mean - half > 0
        ok &= passed
        print(f"  {weaker:>7} -> {stronger:<7} gains {mean:.3f} places, 95% CI [{mean - half:.3f}, {mean + half:.3f}]"
              f"  {'ok' if passed else 'NOT SIGNIFICANT'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per preset (default 2000)")
    parser.add_argument("--per-match", type=int, default=5, help="deals per match (default 5)")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="only these presets")
    args = parser.parse_args(argv)
    ok = True
    pooled: dict[str, list[float]] = {level: [] for level in LEVELS}
    started = time.perf_counter()
    for preset in args.preset or list(PRESETS):
        by_level = run_preset(preset, PRESETS[preset], args.deals, args.per_match)
        options = ", ".join(f"{k}={v}" for k, v in PRESETS[preset].items() if k != "players")
        ok &= report(f"{preset} (4 players, {args.per_match} deals a match{', ' + options if options else ''})",
                     by_level)
        for level in LEVELS:
            pooled[level] += by_level[level]
    ok &= report("all presets", pooled)
    print(f"\n{sum(len(v) for v in pooled.values()) // len(LEVELS) * args.per_match} deals"
          f" in {time.perf_counter() - started:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
