"""A bot's strength against built-in levels: many local matches on duplicate boards, in worker processes.

For each opponent level the bot sits at a table with players - 1 copies of
that level.  A *board* deals its cards once (the engine's seeded shuffle,
`board_hands`) and plays them in each of the table's P rotations, so the bot
plays every hand from every seat, as the ladder's duplicate boards do, and
the luck of the cards cancels within a board.  A board is the unit of the
intervals (`president_engine.intervals`, the ladder's and the arena's): the
bot's mean place over the board's deals, and its mean points per match.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache

from president_engine import MatchRecord, Rules
from president_engine.deal import board_hands
from president_engine.intervals import Interval, mean_interval
from president_engine.narrate import counted

from president_sdk.bot import Bot
from president_sdk.bots import builtin_bot
from president_sdk.local import play_local


@dataclass(frozen=True, kw_only=True, slots=True)
class EvalMatch:
    """One match of an evaluation (plain data, so it travels to a worker process)."""

    bot: str
    """The bot's spec, as president-bot takes it (loaded once in each worker)."""
    level: str
    board: int
    rotation: int
    """The bot's seat (= player number); the opponents' copies follow it round the table."""
    seed: int
    """The board's shuffle, and the seed of every seat's draws: shared by the board's rotations."""
    rules: Rules
    move_timeout: float | None
    record: bool
    """Whether to send back the match record (for --replay)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class EvalResult:
    """What a worker sends back for one match."""

    match: EvalMatch
    places: tuple[int, ...]
    """The bot's place in each deal, from 1."""
    points: int
    faults: int
    names: tuple[str, ...]
    record: str
    """The match record as JSON (`MatchRecord.dumps`), or "" when not asked for."""


@dataclass(frozen=True, kw_only=True, slots=True)
class LevelSummary:
    """The bot's results against one level, over complete boards."""

    level: str
    players: int
    boards: int
    matches: int
    place: Interval
    """Mean place per deal (1 is first)."""
    points: Interval
    """Mean points per match."""
    faults: int


def board_seed(seed: int, level: str, board: int) -> int:
    """A 63-bit seed of a board against `level` (stable across Python versions)."""
    digest = hashlib.sha256(f"evaluate/{seed}/{level}/{board}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def schedule(bot: str, levels: Sequence[str], rules: Rules, *, matches: int, seed: int,
             move_timeout: float | None, record: bool) -> list[EvalMatch]:
    """The matches against each level: `matches` rounded up to whole boards of `rules.players` rotations."""
    players = rules.players
    boards = -(-matches // players)
    return [EvalMatch(bot=bot, level=level, board=board, rotation=rotation, seed=board_seed(seed, level, board),
                      rules=rules, move_timeout=move_timeout, record=record)
            for level in levels for board in range(boards) for rotation in range(players)]


@cache
def _factory(spec: str) -> Callable[[int | None], Bot]:
    from president_sdk.bot_cli import bot_factory  # the CLI's loader: the bot file is read once per worker

    return bot_factory(spec)


def play(match: EvalMatch) -> EvalResult:
    """Play one match of an evaluation (in a worker process)."""
    rules, players = match.rules, match.rules.players
    bots: list[Bot] = []
    for player in range(players):
        position = (player - match.rotation) % players  # the table's order: the bot first, then the copies
        bots.append(_factory(match.bot)(match.seed) if position == 0
                    else builtin_bot(match.level, seed=match.seed + position))
    hands = board_hands(rules, match.seed)
    result = play_local(bots, rules, seed=match.seed, hands=hands, strict=False, move_timeout=match.move_timeout)
    me = match.rotation
    names = tuple(bot.name if player == me else f"{match.level}{(player - me) % players}"
                  for player, bot in enumerate(bots))
    return EvalResult(match=match, places=tuple(order.index(me) + 1 for order in result.places),
                      points=result.scores[me], faults=result.faults[me].total(), names=names,
                      record=MatchRecord.from_match(result.match).dumps() if match.record else "")


def run(matches: Sequence[EvalMatch], *, workers: int) -> Iterator[EvalResult]:
    """Each match's result as it finishes, played by `workers` processes (1: in this process)."""
    if workers <= 1:
        yield from map(play, matches)
        return
    # spawn, as macOS and Windows do: a worker loads the bot from its spec alone, so what works here works there
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        for done in as_completed([pool.submit(play, match) for match in matches]):
            yield done.result()
    finally:  # on an error or Ctrl-C the matches not yet started are dropped, not played
        pool.shutdown(wait=True, cancel_futures=True)


def summarize(results: Sequence[EvalResult], level: str) -> LevelSummary:
    """The bot's mean place and points per match against `level`, with 95% intervals over complete boards."""
    mine = [r for r in results if r.match.level == level]
    if not mine:
        raise ValueError(f"no results against {level}")
    rules = mine[0].match.rules
    players = rules.players
    by_board: dict[int, list[EvalResult]] = {}
    for result in mine:
        by_board.setdefault(result.match.board, []).append(result)
    complete = [by_board[b] for b in sorted(by_board) if len(by_board[b]) == players]
    deals = sum(len(r.places) for board in complete for r in board)
    place_values = [sum(p for r in board for p in r.places) / sum(len(r.places) for r in board) for board in complete]
    point_values = [sum(r.points for r in board) / len(board) for board in complete]
    most = (rules.deals or 1) * max(rules.points)
    least = (rules.deals or 1) * min(rules.points)
    return LevelSummary(
        level=level, players=players, boards=len(complete), matches=sum(len(board) for board in complete),
        place=mean_interval(place_values, low=1, high=players, observations=deals),
        points=mean_interval(point_values, low=least, high=most, observations=len(complete) * players),
        faults=sum(r.faults for r in mine))


def table(name: str, summaries: Sequence[LevelSummary]) -> str:
    """The results as a table, a row per level, with a verdict line below."""
    rows = [("against", "boards", "matches", "mean place (95%)", "points/match (95%)", "faults")]
    for s in summaries:
        rows.append((s.level, str(s.boards), str(s.matches), _shown(s.place), _shown(s.points), str(s.faults)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True))) for row in rows]
    return "\n".join([*lines, verdict(name, summaries)])


def _shown(interval: Interval) -> str:
    return f"{interval.mean:.2f} [{interval.low:.2f}, {interval.high:.2f}]"


def verdict(name: str, summaries: Sequence[LevelSummary]) -> str:
    """One line: which levels the bot finishes ahead of, or behind, with 95% confidence, and which are unclear.

    A level's copies average the middle place, (players + 1) / 2, when the bot is exactly as strong as they are.
    """
    ahead, behind, unclear = [], [], []
    for s in summaries:
        middle = (s.players + 1) / 2
        if s.place.high < middle:
            ahead.append(s.level)
        elif s.place.low > middle:
            behind.append(s.level)
        else:
            unclear.append(s.level)
    parts = []
    if ahead:
        parts.append(f"finishes ahead of {_listed(ahead)}")
    if behind:
        parts.append(f"finishes behind {_listed(behind)}")
    said = f"{name} {' and '.join(parts)} (95% confidence)" if parts else ""
    if unclear:
        boards = min(s.boards for s in summaries if s.level in unclear)
        tail = (f"no clear difference from {_listed(unclear)} after {counted(boards, 'board')}"
                " (the interval holds the middle place): play more matches")
        said = f"{said}; {tail}" if said else f"{name}: {tail}"
    return said


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def record_name(result: EvalResult) -> str:
    """The file name of a match's record in a replay folder: level, board and the bot's seat."""
    level = re.sub(r"[^A-Za-z0-9_-]", "_", result.match.level)
    return f"{level}-board{result.match.board + 1}-seat{result.match.rotation}.json"


def default_workers() -> int:
    """Worker processes when none are asked for: one per core."""
    return os.cpu_count() or 1
