"""A duplicate board's seatings are rated together as its last seating ends (issue 44 item 5): while one seating is
live, the leaderboard does not move after its twins end; a restart in between rates the kept ones once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena_support import ARENA, arena_settings
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.play.clock import ClockSettings
from service_support import client, running
from session_support import SessionBot, new_account

NO_CLOCK = ClockSettings(move_ms=0, bank_ms=0, max_strikes=0)


async def _board(stub: pb_grpc.PresidentServiceAsyncStub) -> dict[str, int]:
    got = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4))
    return {e.account: e.matches for e in got.entries}


async def _live(stub: pb_grpc.PresidentServiceAsyncStub) -> set[str]:
    listed = await stub.ListMatches(pb.ListMatchesRequest())
    return {m.match_id for m in listed.matches if m.status != pb.MATCH_STATUS_OVER}


def test_a_board_is_rated_only_when_its_last_seating_ends_and_once_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "dup.db"
    settings = arena_settings(duplicate=True, deals=1, clock=NO_CLOCK)

    async def first_seating_only() -> None:
        async with running(db, arena=settings) as server, client(server.port) as stub:
            houses = [SessionBot(stub, await new_account(stub, f"house-{i}", house=True), accepts=ARENA)
                      for i in range(3)]
            seen: list[str] = []

            def hold(match_id: str) -> bool:  # the check match and the board's first seating are played
                if match_id not in seen:
                    seen.append(match_id)
                return seen.index(match_id) >= 2
            me = SessionBot(stub, await new_account(stub, "me"), accepts=ARENA, hold=hold)
            tasks = [asyncio.create_task(h.run()) for h in houses]
            await asyncio.wait_for(me.run(until=lambda bot: len(bot.over()) >= 2), 60)
            assert len(seen) == 5, seen  # the check match, then a board of four seatings
            assert await _live(stub) == set(seen[2:])
            await asyncio.sleep(0.3)
            assert await _board(stub) == {}  # a seating ended, its twins are live: nothing is rated yet
            for task in tasks:
                task.cancel()

    async def the_rest_after_a_restart() -> None:
        async with running(db, arena=settings, absence_s=0.01, start_grace_s=0.1) as server, \
                client(server.port) as stub:
            while not (board := await _board(stub)):  # the server plays the absent seats of the live seatings
                await asyncio.sleep(0.02)
            assert board == {"me": 4, "house-0": 4, "house-1": 4, "house-2": 4}, board  # all at once, each once
            assert await _live(stub) == set()

    asyncio.run(first_seating_only())
    asyncio.run(the_rest_after_a_restart())
