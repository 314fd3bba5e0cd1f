"""GetLeaderboard over real gRPC: ordered by the rating it shows (mu - 3 sigma), ties by mean place, then name."""

from __future__ import annotations

import asyncio
import math
import random
from pathlib import Path

from president_protocol.v1 import president_pb2 as pb
from president_service.league.arena import ArenaSettings
from president_service.league.arena_ratings import rank_key
from service_support import ADMIN, auth, client, running

BOARD = ("cardverse", 4)
NAMES = ["ann", "bob", "cy", "dee"]


def test_the_leaderboard_is_ordered_by_the_rating_it_shows_even_where_mean_places_disagree(tmp_path: Path) -> None:
    rng = random.Random(0)  # thirty matches after which the best mean place is not the best rating
    orders = [rng.sample(NAMES, len(NAMES)) for _ in range(30)]

    async def main() -> None:
        arena = ArenaSettings(enabled=True, queues=(BOARD,))
        async with running(tmp_path / "l.db", arena=arena) as server, client(server.port) as stub:
            for name in NAMES:
                await stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="tests"), metadata=auth(ADMIN))
            ratings = server.servicer.arena.ratings
            for order in orders:  # one deal a match, written as the arena writes a rated match
                server.registry.store.write(ratings.update(BOARD, [order]))
                ratings.reload(BOARD, order)
            board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset=BOARD[0], players=BOARD[1]))
            shown = [e.ordinal for e in board.entries]
            assert shown == sorted(shown, reverse=True)
            assert all(math.isclose(e.ordinal, e.mu - 3 * e.sigma) for e in board.entries)
            by_place = sorted(board.entries, key=lambda e: e.mean_place)
            assert [e.account for e in by_place] != [e.account for e in board.entries]  # the case of the issue
            assert all(e.mean_place_low < e.mean_place < e.mean_place_high for e in board.entries)
    asyncio.run(main())


def test_equal_ratings_go_to_the_better_mean_place_then_the_name() -> None:
    rows = [("zed", 10.0, 2.0), ("amy", 10.0, 2.0), ("bea", 10.0, 1.5), ("cat", 12.0, 3.5), ("dan", 10.0, math.nan)]
    ranked = sorted(rows, key=lambda r: rank_key(rating=r[1], mean_place=r[2], name=r[0]))
    assert [r[0] for r in ranked] == ["cat", "bea", "amy", "zed", "dan"]
