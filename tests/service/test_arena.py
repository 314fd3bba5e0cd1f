"""The arena over real gRPC: check matches against house bots, continuous rated matches, spread pairings,
duplicate boards, and ratings and results intact after kill -9."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from arena_support import ARENA, arena_settings, house_bots
from president_protocol.v1 import president_pb2 as pb
from service_support import ServerProcess, auth, client, running
from session_support import SessionBot, new_account
from support import free_port


def test_a_newcomer_plays_a_check_match_then_is_rated_against_the_house(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "a.db", arena=arena_settings()) as server, client(server.port) as stub:
            houses, tasks = await house_bots(stub)
            await asyncio.sleep(0.3)
            assert not any(h.messages for h in houses)  # house bots alone never play each other
            newbie = SessionBot(stub, await new_account(stub, "newbie"), accepts=ARENA)
            started = time.monotonic()

            def rated_twice(bot: SessionBot) -> bool:
                return len(bot.over()) >= 3

            runner = asyncio.create_task(newbie.run(until=rated_twice))
            while not newbie.messages and time.monotonic() - started < 5:
                await asyncio.sleep(0.01)
            assert newbie.messages and time.monotonic() - started < 1.0  # a match formed within a second
            await asyncio.wait_for(runner, 60)
            passed = newbie.notices("CHECK_PASSED")
            assert len(passed) == 1 and passed[0].match_id == sorted(newbie.over(), key=list(newbie.messages).index)[0]
            board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4))
            entries = {e.account: e for e in board.entries}
            assert entries["newbie"].matches >= 2 and not entries["newbie"].house and entries["house-0"].house
            assert 1 <= entries["newbie"].mean_place_low <= entries["newbie"].mean_place <= 4
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def test_a_bot_that_times_out_in_its_check_match_is_told_why_and_not_rated(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "f.db", arena=arena_settings()) as server, client(server.port) as stub:
            _, tasks = await house_bots(stub)
            sleepy = SessionBot(stub, await new_account(stub, "sleepy"), accepts=ARENA)
            await asyncio.wait_for(silent_run(sleepy), 60)
            failed = sleepy.notices("CHECK_FAILED")
            assert failed and "time-outs" in failed[0].message and "not rated" in failed[0].message
            board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4))
            assert "sleepy" not in {e.account for e in board.entries}
            for task in tasks:
                task.cancel()
    asyncio.run(main())


async def silent_run(bot: SessionBot) -> None:
    """Take matches and answer no prompt, until the check match's verdict comes."""
    outbox: asyncio.Queue[pb.SessionRequest | None] = asyncio.Queue()
    await outbox.put(pb.SessionRequest(hello=pb.SessionHello(accepts=bot.accepts)))

    async def requests():  # type: ignore[no-untyped-def]
        while (item := await outbox.get()) is not None:
            yield item

    call = bot.stub.Session(requests(), metadata=auth(bot.token))
    try:
        async for response in call:
            if response.HasField("notice"):
                bot.other.append(response)
                if response.notice.reason == "CHECK_FAILED":
                    return
    finally:
        await outbox.put(None)
        call.cancel()


def test_duplicate_boards_deal_one_table_every_rotation(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db", arena=arena_settings(duplicate=True)) as server, \
                client(server.port) as stub:
            bots = [SessionBot(stub, await new_account(stub, f"h{i}", house=True), accepts=ARENA) for i in range(3)]
            me = SessionBot(stub, await new_account(stub, "me"), accepts=ARENA)
            tasks = [asyncio.create_task(b.run()) for b in bots]
            await asyncio.wait_for(me.run(until=lambda bot: len(bot.over()) >= 5), 60)
            # the check match is single; then a board of four rotations of one deal
            board = [m for m in list(me.messages)[1:5]]
            summaries = [(await stub.GetMatch(pb.GetMatchRequest(match_id=m))).match for m in board]
            seats = [[p.account for p in s.players] for s in summaries]
            assert len({tuple(s) for s in seats}) == 4 and all(sorted(s) == sorted(seats[0]) for s in seats)
            replays = [(await stub.GetReplay(pb.GetReplayRequest(match_id=m))).replay for m in board]
            assert all(r.deals[0].hands == replays[0].deals[0].hands for r in replays)
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def test_kill_9_mid_arena_keeps_ratings_and_results(tmp_path: Path) -> None:
    """Matches are rated in the same transaction as their result: after kill -9 and a restart no result is
    counted twice or lost, and the live matches finish."""
    db = tmp_path / "arena.db"
    port = free_port()
    flags = ("--arena", "--arena-queue", "cardverse:4", "--move-ms", "2000", "--start-grace", "1")

    async def play(seconds: float, tokens: dict[str, str]) -> dict[str, SessionBot]:
        async with client(port) as stub:
            bots = {n: SessionBot(stub, t, accepts=ARENA) for n, t in tokens.items()}
            tasks = [asyncio.create_task(b.run()) for b in bots.values()]
            await asyncio.sleep(seconds)
            for task in tasks:
                task.cancel()
            return bots

    async def board() -> dict[str, int]:
        async with client(port) as stub:
            got = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4))
            return {e.account: e.matches for e in got.entries}

    async def finished_arena_matches() -> dict[str, int]:
        async with client(port) as stub:
            listed = await stub.ListMatches(pb.ListMatchesRequest(status=pb.MATCH_STATUS_OVER))
            counts: dict[str, int] = {}
            for summary in listed.matches:
                full = (await stub.GetMatch(pb.GetMatchRequest(match_id=summary.match_id))).match
                for player in full.players:
                    counts[player.account] = counts.get(player.account, 0) + 1
            return counts

    server = ServerProcess(db, port, *flags)
    try:
        async def setup() -> dict[str, str]:
            async with client(port) as stub:
                names = [f"house-{i}" for i in range(3)] + ["one", "two"]
                return {n: await new_account(stub, n, house=n.startswith("house")) for n in names}
        tokens = asyncio.run(setup())
        asyncio.run(play(3.0, tokens))
        server.kill()
        server = ServerProcess(db, port, *flags)
        asyncio.run(play(3.0, tokens))
        rated = asyncio.run(board())
        finished = asyncio.run(finished_arena_matches())
        # every finished match counted once for each of its players (check matches are not rated)
        for name in ("one", "two"):
            assert rated.get(name, 0) == finished.get(name, 0) - 1, (rated, finished)
        assert sum(rated.values()) > 0
    finally:
        server.stop()
