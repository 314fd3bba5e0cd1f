"""A seat whose client has gone is played for after the absence limit, with strikes, so that every started match
ends: without a clock, over a Session, in the arena (rated), and after a restart; a match waiting for open seats
stays waiting."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from arena_support import ARENA, arena_settings, house_bots
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.play.clock import ClockSettings
from service_support import ADMIN, SeatLog, ServerProcess, auth, client, create, play_seat, running
from session_support import SessionBot, new_account
from support import free_port

UNTIMED = pb.ClockSettings(move_time_limit_ms=0, strikes_before_takeover=2)
ABSENCE_S = 0.3


def _strikes(log: list[pb.PlayResponse]) -> list[tuple[int, int]]:
    return [(m.event.strike_recorded.player, m.event.strike_recorded.strikes) for m in log
            if m.HasField("event") and m.event.HasField("strike_recorded")]


async def _over(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str) -> pb.MatchSummary:
    """The match's summary once it is over (polled: nobody plays it)."""
    while True:
        summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match
        if summary.status == pb.MATCH_STATUS_OVER:
            return summary
        await asyncio.sleep(0.05)


async def _all_over(stub: pb_grpc.PresidentServiceAsyncStub, name: str) -> list[pb.MatchSummary]:
    """The matches `name` sits in, once every one is over."""
    while True:
        listed = await stub.ListMatches(pb.ListMatchesRequest())
        seated = [m for m in listed.matches if name in {p.name for p in m.players}]
        if all(m.status == pb.MATCH_STATUS_OVER for m in seated):
            return seated
        await asyncio.sleep(0.05)


def test_a_seat_whose_bot_left_an_untimed_match_is_played_for_and_the_match_ends(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "a.db", absence_s=ABSENCE_S) as server, client(server.port) as stub:
            created = await create(stub, deals=2, clock=UNTIMED)
            seats = [SeatLog(s.player) for s in created.seats]
            tokens = [s.token for s in created.seats]
            await asyncio.wait_for(asyncio.gather(
                play_seat(stub, tokens[0], seats[0], stop_after=1),  # plays once, then its stream closes
                *(play_seat(stub, tokens[p], seats[p]) for p in (1, 2, 3))), 60)
            for log in seats[1:]:
                assert log.messages[-1].HasField("match_over")
                assert _strikes(log.messages) == [(0, 1), (0, 2)]  # only the gone seat; then it is taken over
                assert [m.event.seat_taken_over.player for m in log.messages
                        if m.HasField("event") and m.event.HasField("seat_taken_over")] == [0]
            summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id))).match
            assert summary.status == pb.MATCH_STATUS_OVER
            gone = summary.players[0]
            assert gone.taken_over and gone.faults.strikes == 2
            assert not any(p.faults.strikes or p.taken_over for p in summary.players[1:])
    asyncio.run(main())


def test_an_account_that_left_its_session_has_its_matches_played_out(tmp_path: Path) -> None:
    """The Ctrl-C of `president-bot --account-token`: its matches end instead of staying live."""
    async def main() -> None:
        async with running(tmp_path / "s.db", absence_s=ABSENCE_S) as server, client(server.port) as stub:
            names = ["stays-0", "stays-1", "stays-2", "leaves"]
            bots = {n: SessionBot(stub, await new_account(stub, n)) for n in names}
            ids = [(await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=1), seed=seed, clock=UNTIMED, seat_accounts=names),
                metadata=auth(ADMIN))).match_id for seed in (1, 2, 3)]
            bots["leaves"].stop_after = 1
            stayers = [asyncio.create_task(bots[n].run(until=lambda bot: len(bot.over()) == len(ids)))
                       for n in names[:3]]
            await asyncio.wait_for(bots["leaves"].run(), 30)
            await asyncio.wait_for(asyncio.gather(*stayers), 60)
            listed = await stub.ListMatches(pb.ListMatchesRequest(status=pb.MATCH_STATUS_RUNNING))
            assert not [m.match_id for m in listed.matches if m.match_id in ids]
            summaries = [await _over(stub, m) for m in ids]
            assert all(s.players[3].faults.strikes >= 1 for s in summaries)
            assert not any(p.faults.strikes for s in summaries for p in s.players[:3])
    asyncio.run(main())


def test_a_rated_arena_match_a_bot_left_is_played_out_and_rated(tmp_path: Path) -> None:
    async def main() -> None:
        arena = arena_settings(clock=ClockSettings(move_ms=0, bank_ms=0, max_strikes=2))
        async with running(tmp_path / "r.db", arena=arena, absence_s=ABSENCE_S) as server, \
                client(server.port) as stub:
            _, tasks = await house_bots(stub)
            newbie = SessionBot(stub, await new_account(stub, "newbie"), accepts=ARENA)

            def in_a_rated_match(bot: SessionBot) -> bool:
                return bool(bot.notices("CHECK_PASSED")) and len(bot.messages) > len(bot.over())

            await asyncio.wait_for(newbie.run(until=in_a_rated_match), 60)  # then its Session ends
            seated = await asyncio.wait_for(_all_over(stub, "newbie"), 60)
            board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4))
            rated = {e.account: e.matches for e in board.entries}
            assert rated["newbie"] == len(seated) - 1  # every match but the check match
            full = [(await stub.GetMatch(pb.GetMatchRequest(match_id=m.match_id))).match for m in seated]
            assert any(p.faults.strikes for s in full for p in s.players if p.account == "newbie")
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def test_restored_matches_whose_bots_never_come_back_are_played_out(tmp_path: Path) -> None:
    """kill -9, then a restart with `--absence-limit`: the seats that do not come back are played for."""
    db, port = tmp_path / "restart.db", free_port()

    async def start_playing() -> str:
        async with client(port) as stub:
            created = await create(stub, deals=1, clock=UNTIMED)
            seats = [asyncio.create_task(play_seat(stub, s.token, SeatLog(s.player), stop_after=2))
                     for s in created.seats]
            await asyncio.wait(seats, timeout=30, return_when=asyncio.FIRST_COMPLETED)  # a few moves played
            for seat in seats:
                seat.cancel()
            return created.match_id

    async def ended(match_id: str) -> pb.MatchSummary:
        async with client(port) as stub:
            return await asyncio.wait_for(_over(stub, match_id), 60)

    first = ServerProcess(db, port)
    try:
        match_id = asyncio.run(start_playing())
    finally:
        first.kill()
    second = ServerProcess(db, port, "--absence-limit", str(ABSENCE_S), "--start-grace", "0.05")
    try:
        summary = asyncio.run(ended(match_id))
        assert "(1 match restored)" in second.output.read_text()
    finally:
        second.stop()
    assert all(p.faults.strikes == 2 and p.taken_over for p in summary.players)


def test_a_match_waiting_for_an_open_seat_stays_waiting(tmp_path: Path) -> None:
    """Nobody may be asked to act before every seat is claimed: the absence limit does not end such a match,
    and it is listed as waiting, not running."""
    async def main() -> None:
        async with running(tmp_path / "w.db", absence_s=0.05, start_grace_s=0.05) as server, \
                client(server.port) as stub:
            created = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", seed=3, clock=UNTIMED, open_seats=True, reserved_seats=[1, 2, 3]),
                metadata=auth(ADMIN))
            await asyncio.sleep(0.5)  # many absence limits
            listed = await stub.ListMatches(pb.ListMatchesRequest(status=pb.MATCH_STATUS_WAITING))
            assert [m.match_id for m in listed.matches] == [created.match_id]
            assert not any(p.faults.strikes for p in listed.matches[0].players)
            running_now = await stub.ListMatches(pb.ListMatchesRequest(status=pb.MATCH_STATUS_RUNNING))
            assert not running_now.matches
    asyncio.run(main())


def test_an_absence_limit_that_is_not_a_positive_number_is_refused_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "president_service", "serve", "--port", "0", "--db",
                           str(tmp_path / "x.db"), "--absence-limit", "0"], capture_output=True, text=True,
                          timeout=30, env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN), check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--absence-limit: '0': a number of seconds above 0, e.g. 60" in done.stderr
