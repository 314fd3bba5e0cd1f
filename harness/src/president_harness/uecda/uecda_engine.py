"""Bridge A's match on the engine, in this process, as the reference server plays its own (`uecda serve` without
``--server``).

The engine's `Match` is the judge; the contest clients' seats are `ContestSeat`s (president_sdk.uecda.seat), the
same as on a server of ours, so every byte a client reads is what it reads there; only their driver differs:
one event loop carries the five connections and the match, the seats get their events as `play_local` gives
them (`visible_to` each player), and a client's answer is awaited on the loop instead of blocking a thread.
Each game's seven log lines are handed on as the game ends (`uecda_log.GameRecorder`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from president_engine import Match, MatchRecord, visible_to
from president_sdk.bot import Bot, listens
from president_sdk.bots import builtin_bot
from president_sdk.guard import decide
from president_sdk.uecda.seat import ContestSeat, Journal, LoopLine
from president_sdk.uecda.table import PLAYERS

from president_harness.uecda.uecda_bridge import Arrival, BridgeResult, OtherSeat, contest_names
from president_harness.uecda.uecda_log import GameRecorder, LoggedGame


async def play_on_engine(seated: list[tuple[Arrival, str]], match: Match, *, others: Sequence[OtherSeat] = (),
                         on_game: Callable[[LoggedGame], None] | None = None) -> BridgeResult:
    """Play `match` out with the seated clients as players 0, 1, ... and the built-in levels of `others` after
    them; `on_game` gets each game's log entry as the game ends."""
    if len(seated) + len(others) != PLAYERS:
        raise ValueError(f"{len(seated)} contest clients and {len(others)} other seats: the contest has {PLAYERS}")
    if any(other.account for other in others):
        raise ValueError("an account's seat is played over a server's Session: give --server")
    loop = asyncio.get_running_loop()
    names = contest_names(seated, others)
    journal = Journal()
    lines = [LoopLine(arrival.reader, arrival.writer, number, names[number], loop)
             for number, (arrival, _) in enumerate(seated)]
    bots: list[Bot] = [ContestSeat(line, journal) for line in lines]
    bots += [builtin_bot(other.builtin) for other in others]
    for player, bot in enumerate(bots):
        bot.seat(player, match.rules)
    listening = [(player, bot) for player, bot in enumerate(bots) if listens(bot)]
    recorder = GameRecorder(match.rules)
    seen = journaled = 0
    try:
        while True:
            for submission in journal.submissions[journaled:]:
                recorder.submitted(submission)
            journaled = len(journal.submissions)
            events = match.events
            for event in events[seen:]:
                for player, bot in listening:
                    shown = visible_to(event, player)
                    if shown is not None:
                        bot.notify(shown)
                game = recorder.event(event)
                if game is not None and on_game is not None:
                    on_game(game)
            seen = len(events)
            if match.is_over:
                break
            mover = match.to_act
            assert mover is not None
            obs = match.observation(mover)
            bot = bots[mover]
            if isinstance(bot, ContestSeat):
                bot.ask(obs)
                action = bot.decide_with(obs, await lines[mover].receive())
            else:  # a built-in level thinks off the loop, so the clients' connections keep being served
                action = (await asyncio.to_thread(decide, bot, obs)).action
            match.apply(action)
    finally:
        for line in lines:
            line.close()
    return BridgeResult("", names, tuple(match.scores), MatchRecord.from_match(match), tuple(journal.submissions))
