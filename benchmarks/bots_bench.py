"""Strength of the built-in bots: mean finishing place per level, with 95% intervals, on duplicate boards.

Matches are scheduled as the ladder plays a duplicate ladder
(`president_harness.ladder.schedule`): a board deals its cards once and
seats its table in every seating (all 24 at 4 players; the 5 rotations at 5,
the ladder's default there), every seating with the board's hands by seat and
the board's seed for the bots' own draws, so every level plays every hand
from every seat and luck cancels within a board.  Matches last several deals,
so exchanges (and Norwegian requests) are played.  The unit of the intervals
is the board: each level's mean place over the board's matches, and for a
step between two levels the per-board difference (paired).

Two tables per preset, at 4 players: the classic levels (random, easy,
normal, hard), and the top four (easy, normal, hard, expert); then all five
levels at 5 players in the italian preset.  The expert searches with a
playout cap and no time budget (``--expert-playouts``), so its games repeat
exactly and do not depend on the machine's load; its time per decision,
decisions per second and playouts per decision are measured as it plays (one
process per core: ``--jobs``).

    .venv/bin/python benchmarks/bots_bench.py --jobs 2             # make bench-bots
    .venv/bin/python benchmarks/bots_bench.py --deals 0 --expert-boards 8 --jobs 2  # make bench-expert
    .venv/bin/python benchmarks/bots_bench.py --expert-budget 0.1  # the expert as shipped (not repeatable)

The bars: random < easy < normal < hard < expert, each step's interval
excluding zero: the classic steps at the classic tables, hard -> expert at
the tables with the expert.  Exit status 1 when a step measured fails it.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from president_engine import Action, CardSet, Observation, Rules
from president_engine.intervals import Interval, mean_interval
from president_harness.ladder.config import BotSpec, Format, LadderConfig, Seatings
from president_harness.ladder.schedule import MatchSpec, board_size, schedule
from president_sdk.bot import Bot
from president_sdk.bots import ExpertBot, builtin_bot
from president_sdk.local import play_local

CLASSIC = ("random", "easy", "normal", "hard")
TOP = ("easy", "normal", "hard", "expert")
ALL_FIVE = ("random", "easy", "normal", "hard", "expert")
PRESETS = ("cardverse", "norwegian", "italian")


@dataclass(frozen=True, kw_only=True)
class Expert:
    """How the expert plays in this bench."""

    playouts: int
    budget: float | None


@dataclass
class Timing:
    """The expert's decisions: how many, their total time, the ones that searched and their playouts."""

    times: list[float] = field(default_factory=list)
    searched: list[float] = field(default_factory=list)
    playouts: list[int] = field(default_factory=list)

    def add(self, other: Timing) -> None:
        self.times += other.times
        self.searched += other.searched
        self.playouts += other.playouts


class TimedExpert(ExpertBot):
    """The expert, timing each decision."""

    def __init__(self, seed: int, settings: Expert, timing: Timing) -> None:
        super().__init__(seed, budget=settings.budget, playouts=settings.playouts)
        self.timing = timing

    def decide(self, obs: Observation) -> Action:
        start = time.perf_counter()
        action = super().decide(obs)
        spent = time.perf_counter() - start
        self.timing.times.append(spent)
        if self.last_playouts:
            self.timing.searched.append(spent)
            self.timing.playouts.append(self.last_playouts)
        return action


def interval(values: list[float], *, low: float, high: float, per_board: int) -> Interval:
    """Mean and 95% interval of values within [low, high], each a board's of `per_board` deals (a table has few
    boards, so the bounded interval of `president_engine.intervals`)."""
    return mean_interval(values, low=low, high=high, observations=per_board * len(values))


def board_deals(preset: str, levels: tuple[str, ...], per_match: int) -> int:
    """Deals each level plays in a board: every seating of the table, `per_match` deals each."""
    return board_size(table_config(preset, levels, 1, per_match, seed=0)) * per_match


def table_config(preset: str, levels: tuple[str, ...], boards: int, per_match: int, seed: int) -> LadderConfig:
    """A duplicate ladder of these levels as the ladder would schedule it (never run as a ladder)."""
    players = len(levels)
    config = LadderConfig(name="bench", format=Format.DUPLICATE, players=players, seatings=Seatings.default(players),
                          matches=1, seed=seed, preset=preset, overrides={"deals": per_match},
                          bots=tuple(BotSpec(name=level, builtin=level) for level in levels), db=Path("unused.db"))
    return dataclasses.replace(config, matches=boards * board_size(config))


def play_board(job: tuple[LadderConfig, list[MatchSpec], Expert]) -> tuple[dict[str, float], Timing]:
    """Each level's mean place over one board's matches, and the expert's timing."""
    config, specs, settings = job
    rules: Rules = config.rules
    timing = Timing()
    totals: dict[str, float] = {}
    for spec in specs:
        hands = [[CardSet(hand) for hand in deal] for deal in spec.hands]
        bots: list[Bot] = [TimedExpert(spec.seed, settings, timing) if name == "expert"
                           else builtin_bot(name, seed=spec.seed) for name in spec.bots]
        result = play_local(bots, rules, seed=spec.seed, hands=hands)
        for places in result.places:
            for place, player in enumerate(places, 1):
                name = spec.bots[player]
                totals[name] = totals.get(name, 0.0) + place / len(result.places) / len(specs)
    return totals, timing


def run_table(preset: str, levels: tuple[str, ...], boards: int, per_match: int, settings: Expert,
              jobs: int) -> tuple[list[dict[str, float]], Timing]:
    config = table_config(preset, levels, boards, per_match, seed=2026)
    specs = schedule(config)
    by_board = [[s for s in specs if s.board == b] for b in range(boards)]
    timing = Timing()
    with ProcessPoolExecutor(jobs) as pool:
        results = list(pool.map(play_board, [(config, board, settings) for board in by_board]))
    for _, board_timing in results:
        timing.add(board_timing)
    return [totals for totals, _ in results], timing


def report(title: str, levels: tuple[str, ...], boards: list[dict[str, float]], per_board: int,
           bars: tuple[str, ...] | None = None) -> tuple[bool, dict[str, Any]]:
    """Print each level's mean place and each step's gain; whether every step in `bars` (None: all) passed."""
    print(f"\n{title}  ({len(boards)} boards)")
    players = len(levels)
    for level in levels:
        place = interval([b[level] for b in boards], low=1, high=players, per_board=per_board)
        print(f"  {level:>7}  mean place {place.mean:.3f} [{place.low:.3f}, {place.high:.3f}]")
    ok = True
    steps = {}
    for weaker, stronger in pairwise(levels):
        diffs = [b[weaker] - b[stronger] for b in boards]
        gain = interval(diffs, low=1 - players, high=players - 1, per_board=per_board)
        passed = gain.low > 0
        is_bar = bars is None or stronger in bars
        ok &= passed or not is_bar
        steps[f"{weaker}->{stronger}"] = diffs
        print(f"  {weaker:>7} -> {stronger:<7} gains {gain.mean:.3f} places, 95% CI [{gain.low:.3f}, {gain.high:.3f}]"
              f"  {'ok' if passed else 'NOT SIGNIFICANT'}{'' if is_bar else ' (not a bar at this table)'}")
    return ok, steps


def report_timing(timing: Timing, settings: Expert) -> None:
    if not timing.times:
        return
    limit = f"cap {settings.playouts} playouts" + (f", budget {settings.budget:g} s" if settings.budget else "")
    total = sum(timing.times)
    print(f"\nexpert ({limit}): {len(timing.times)} decisions in {total:.1f} s of its own time: "
          f"{len(timing.times) / total:.1f} decisions/s, {1000 * total / len(timing.times):.1f} ms per decision")
    if timing.searched:
        ms = sorted(1000 * t for t in timing.searched)
        print(f"  searched decisions {len(ms)}: median {statistics.median(ms):.1f} ms, "
              f"95th percentile {ms[int(0.95 * (len(ms) - 1))]:.1f} ms, max {ms[-1]:.1f} ms; "
              f"playouts per search median {statistics.median(timing.playouts):.0f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000,
                        help="deals per preset for the classic levels (0: skip their tables)")
    parser.add_argument("--per-match", type=int, default=5, help="deals per match (default 5)")
    parser.add_argument("--preset", action="append", choices=PRESETS, help="only these presets")
    parser.add_argument("--expert-boards", type=int, default=2,
                        help="boards per table with the expert (default 2: a quick look; the bar needs ~40)")
    parser.add_argument("--expert-playouts", type=int, default=200, help="the expert's playout cap (default 200)")
    parser.add_argument("--expert-budget", type=float, default=None,
                        help="the expert's time budget per decision in seconds (default: none, the cap only)")
    parser.add_argument("--no-five", action="store_true", help="skip the 5-player table")
    parser.add_argument("--jobs", type=int, default=1, help="processes (boards are shared out; default 1)")
    args = parser.parse_args(argv)
    settings = Expert(playouts=args.expert_playouts, budget=args.expert_budget)
    presets = args.preset or list(PRESETS)
    ok = True
    started = time.perf_counter()
    pooled: dict[str, list[float]] = {}
    timing = Timing()
    per_board_deals = 24 * args.per_match
    for preset in presets:
        if args.deals:
            boards, _ = run_table(preset, CLASSIC, max(2, -(-args.deals // per_board_deals)), args.per_match,
                                  settings, args.jobs)
            passed, _ = report(f"{preset}: classic levels, 4 players, {args.per_match} deals a match", CLASSIC,
                               boards, board_deals(preset, CLASSIC, args.per_match))
            ok &= passed
        if args.expert_boards:
            boards, table_timing = run_table(preset, TOP, args.expert_boards, args.per_match, settings, args.jobs)
            timing.add(table_timing)
            passed, steps = report(f"{preset}: top levels, 4 players, {args.per_match} deals a match", TOP, boards,
                                   board_deals(preset, TOP, args.per_match), bars=("expert",))
            ok &= passed
            pooled.setdefault("hard->expert", []).extend(steps["hard->expert"])
    if args.expert_boards and not args.no_five and "italian" in presets:
        boards, table_timing = run_table("italian", ALL_FIVE, args.expert_boards * 5, args.per_match, settings,
                                         args.jobs)
        timing.add(table_timing)
        passed, _ = report(f"italian: all five levels, 5 players (rotations), {args.per_match} deals a match",
                           ALL_FIVE, boards, board_deals("italian", ALL_FIVE, args.per_match), bars=("expert",))
        ok &= passed
    if pooled:
        gain = interval(pooled["hard->expert"], low=-3, high=3, per_board=board_deals(presets[0], TOP, args.per_match))
        print(f"\nhard -> expert, the presets at 4 players pooled: gains {gain.mean:.3f} places, "
              f"95% CI [{gain.low:.3f}, {gain.high:.3f}] ({len(pooled['hard->expert'])} boards)")
    report_timing(timing, settings)
    print(f"\nall in {time.perf_counter() - started:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
