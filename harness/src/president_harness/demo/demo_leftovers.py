"""The demo's own matches that an earlier run left unfinished, played out when it starts on the same database.

`make run` keeps its database from run to run, so a match its Ctrl-C cut
short (the built-in match, or a guest match whose bot never came or left)
would be restored live and, without a clock, wait forever.  The demo plays
each one out at once, in its own process: every seat by the built-in level it
is named after, and a guest seat (any other name) by the easy level, the
server's own fallback move, claiming it as "easy (stand-in)" if no bot ever did.
Moves go through the server's runner like any seat's, so the match is stored,
shown and replayed as any other.  Only the demo's own are touched: matches an
organiser created with the demo's seat names and no accounts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from president_sdk.bot import Bot
from president_sdk.bots import builtin_bot
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import MatchKind
from president_service.play.registry import Registry

GUEST_LEVEL = "easy"
"""What plays a guest seat: the level whose move the server itself plays for a seat (fallback_action)."""


def _own(runner: MatchRunner, levels: Sequence[str], guest_levels: Sequence[str]) -> bool:
    """Whether the demo made this match: its built-in match, or a guest match (any name in seat 0)."""
    names = tuple(runner.names)
    return (runner.kind is MatchKind.ORGANISED and not runner.accounts
            and (names == tuple(levels) or names[1:] == tuple(guest_levels)))


async def play_out_leftovers(registry: Registry, levels: Sequence[str], guest_levels: Sequence[str]) -> list[str]:
    """Play out every unfinished match of the demo's own that the server restored; returns their ids."""
    leftovers = [r for r in registry.live.values() if _own(r, levels, guest_levels)]
    for runner in leftovers:
        await _play_out(registry, runner, levels)
    return [r.match_id for r in leftovers]


async def _play_out(registry: Registry, runner: MatchRunner, levels: Sequence[str]) -> None:
    bots: list[Bot] = []
    for player, name in enumerate(runner.names):
        level = name if name in levels else GUEST_LEVEL
        if not runner.claimed[player]:
            await registry.join(runner.match_id, player, f"{level} (stand-in)")  # not taken for the level's own seat
        bot = builtin_bot(level)
        bot.seat(player, runner.match.rules)
        bots.append(bot)
        runner.connected(player)  # its bot is here: the clock may start, and the server plays a taken-over seat
    while not runner.is_over:
        to_act = runner.match.to_act
        assert to_act is not None
        turn = runner.turn_for(to_act)
        if turn is None:  # a seat the server plays (too many strikes): its move comes on the loop
            await asyncio.sleep(0.01)
            continue
        runner.submit(to_act, turn.turn_id, bots[to_act].decide(turn.observation))
        await asyncio.sleep(0)  # the server's streams and pages keep going meanwhile
