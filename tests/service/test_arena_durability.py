"""The arena over real gRPC when it matters most: a crash between a rated match's last move and its result
neither loses nor double-counts the rating (every rating recomputed from the database alone agrees), and no
queue starves another."""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
import time
from collections import Counter
from contextlib import closing
from pathlib import Path

from openskill.models import PlackettLuce
from president_engine import Match, Rules, fallback_action
from president_protocol.v1 import president_pb2 as pb
from president_service.base.auth import new_token, token_hash
from president_service.league.arena import ArenaSettings
from president_service.play.accounts import Accounts
from president_service.play.clock import ClockSettings
from president_service.play.match_store import ActionRow, MatchKind, MatchStore, Source, StoredMatch
from president_service.server.grpc_server import RunningServer
from service_support import client, running
from session_support import SessionBot, new_account

FAST = ClockSettings(move_ms=300, bank_ms=0, max_strikes=2)
BOARD = ("cardverse", 4)
NAMES = ("ann", "bob", "cy", "dee")


def _crashed_before_its_result(db: Path) -> dict[str, str]:
    """The database a kill -9 leaves between a rated match's last move and its result: four checked accounts
    (their tokens returned) and an arena match of two deals with every move logged, no result, no rating."""
    store = MatchStore(str(db))
    try:
        accounts = Accounts(store)
        tokens = {name: accounts.create(name, "tests")[1] for name in NAMES}
        for name in NAMES:
            accounts.mark_checked(name)
        rules = Rules.preset(BOARD[0], players=BOARD[1], deals=2)
        store.create(StoredMatch(
            match_id="crashed", created_at=time.time(), preset=BOARD[0], rules=rules, seed=11, hands=None,
            clock=FAST, names=NAMES, open_seats=False, token_hashes=tuple(token_hash(new_token()) for _ in NAMES),
            claimed=(True,) * len(NAMES), named=(True,) * len(NAMES), accounts=NAMES, kind=MatchKind.ARENA))
        match, turn = Match(rules, seed=11), 1
        while not match.is_over:
            player = match.to_act
            assert player is not None
            action = fallback_action(match.legal_actions())
            store.append("crashed", ActionRow(turn=turn, player=player, action=str(action), source=Source.SEAT,
                                              spent_ms=0))
            match.apply(action)
            turn += 1
        return tokens
    finally:
        store.close()


def _recomputed(db: Path) -> dict[str, tuple[float, float, int, int]]:
    """Each account's (mu, sigma, matches, deals) on `BOARD`, replayed from the stored rated results alone in
    their sequence."""
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT orders FROM rated WHERE preset = ? AND players = ? ORDER BY seq", BOARD).fetchall()
    model = PlackettLuce()
    ratings = {}
    matches: Counter[str] = Counter()
    deals: Counter[str] = Counter()
    for (orders,) in rows:
        for order in json.loads(orders):
            rated = model.rate([[ratings.get(name, model.rating())] for name in order],
                               ranks=list(range(1, len(order) + 1)))
            ratings.update((name, team[0]) for name, team in zip(order, rated, strict=True))
            deals.update(order)
        matches.update({name for order in json.loads(orders) for name in order})
    return {name: (r.mu, r.sigma, matches[name], deals[name]) for name, r in ratings.items()}


def _finished_arena_matches(db: Path) -> Counter[str]:
    """Per account, the arena matches with a stored result."""
    with closing(sqlite3.connect(db)) as conn:
        return Counter(dict(conn.execute(
            "SELECT seats.account, COUNT(*) FROM seats JOIN matches ON seats.match_id = matches.id"
            " WHERE matches.kind = ? AND matches.record IS NOT NULL GROUP BY seats.account",
            (MatchKind.ARENA.value,)).fetchall()))


async def _settled(server: RunningServer) -> None:
    """Wait until no Session is open and no match is live: nothing can change the ratings any more."""
    while server.servicer.sessions.by_account or server.registry.live:
        await asyncio.sleep(0.05)


def test_a_kill_9_between_a_rated_matchs_last_move_and_its_result_neither_loses_nor_double_counts(
        tmp_path: Path) -> None:
    db = tmp_path / "crashed.db"
    tokens = _crashed_before_its_result(db)
    arena = ArenaSettings(enabled=True, queues=(BOARD,), clock=FAST)
    accepts = pb.Appetite(max_matches=1, arena=True, presets=[BOARD[0]], players=[BOARD[1]])

    async def main() -> None:
        async with running(db, arena=arena) as server, client(server.port) as stub:
            restored = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset=BOARD[0], players=BOARD[1]))
            assert {e.account: (e.matches, e.deals) for e in restored.entries} == dict.fromkeys(NAMES, (1, 2))
            bots = [SessionBot(stub, tokens[name], accepts=accepts) for name in NAMES]
            await asyncio.wait_for(asyncio.gather(*(b.run(until=lambda bot: bool(bot.over())) for b in bots)), 60)
            await asyncio.wait_for(_settled(server), 60)
            board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset=BOARD[0], players=BOARD[1]))
        shown = {e.account: (e.mu, e.sigma, e.matches, e.deals) for e in board.entries}
        finished = _finished_arena_matches(db)
        assert all(shown[name][2] == finished[name] >= 2 for name in NAMES), (shown, finished)
        recomputed = _recomputed(db)
        assert shown.keys() == recomputed.keys()
        for name, (mu, sigma, matches, deals) in recomputed.items():
            assert math.isclose(shown[name][0], mu) and math.isclose(shown[name][1], sigma)
            assert shown[name][2:] == (matches, deals)
    asyncio.run(main())


def test_no_arena_queue_starves_another(tmp_path: Path) -> None:
    """With every seat filler in one table at a time, the longest-waiting account gets the next match whatever
    its queue: an account of the second queue only plays its share."""
    arena = ArenaSettings(enabled=True, queues=(("cardverse", 4), ("norwegian", 4)), clock=FAST)
    every = pb.Appetite(max_matches=1, arena=True)
    appetites = {"every": every, "norse": pb.Appetite(max_matches=1, arena=True, presets=["norwegian"]),
                 "cards": pb.Appetite(max_matches=1, arena=True, presets=["cardverse"], players=[4]),
                 "idle": pb.Appetite(max_matches=4, arena=False)}

    async def main() -> None:
        async with running(tmp_path / "q.db", arena=arena) as server, client(server.port) as stub:
            houses = [SessionBot(stub, await new_account(stub, f"house-{i}", house=True), accepts=every)
                      for i in range(3)]
            bots = {name: SessionBot(stub, await new_account(stub, name), accepts=appetite)
                    for name, appetite in appetites.items()}
            others = [asyncio.create_task(b.run()) for b in [*houses, *bots.values()] if b is not bots["every"]]
            await asyncio.wait_for(bots["every"].run(until=lambda bot: len(bot.over()) >= 12), 120)
            for task in others:
                task.cancel()
            played = {name: len(bot.over()) for name, bot in bots.items()}
            assert played["norse"] >= played["every"] // 4 and played["cards"] >= played["every"] // 4, played
            assert played["idle"] == 0
            summaries = [(await stub.GetMatch(pb.GetMatchRequest(match_id=m))).match
                         for m in bots["norse"].over()]
            assert {s.preset for s in summaries} == {"norwegian"}
    asyncio.run(main())
