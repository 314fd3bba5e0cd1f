"""Resuming: a dropped stream picks up where it left off; a server killed with SIGKILL loses no accepted move."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from president_engine import visible_to
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from service_support import (
    SeatLog,
    ServerProcess,
    action_of,
    client,
    create,
    play_seat,
    running,
)
from support import free_port

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)


def _check_no_gap(seat: SeatLog, replay: pb.Replay) -> None:
    """The seat received every event it may see exactly once, across all its streams."""
    match = convert.replay_from_proto(replay).replay()
    got = [m.event.seq for m in seat.messages if m.HasField("event")]
    expected = [i + 1 for i, e in enumerate(match.events) if visible_to(e, seat.player) is not None]
    assert got == expected


def _check_accepted(seats: list[SeatLog], replay: pb.Replay, *, exact: bool) -> None:
    """Every action the server acknowledged is in the final record, at its turn.

    Not `exact` after a crash: an action committed just before the kill is
    applied although its acknowledgement never left the server.
    """
    applied = [(a.player, action_of(a.action)) for deal in replay.deals for a in deal.actions]
    count = 0
    for seat in seats:
        for turn, action in seat.accepted:
            assert applied[turn - 1] == (seat.player, action_of(action))
            count += 1
    assert count == len(applied) if exact else len(applied) - 4 <= count <= len(applied)


def test_dropped_stream_resumes(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "r.db") as server, client(server.port) as stub:
            created = await create(stub, deals=2, clock=NO_CLOCK)
            seats = [SeatLog(s.player) for s in created.seats]
            tokens = [s.token for s in created.seats]

            async def flaky(player: int) -> None:
                # seat 2 drops its stream after every 3 actions and resumes from its last seq
                while not await play_seat(stub, tokens[player], seats[player],
                                          stop_after=3 if player == 2 else None, last_seq=seats[player].last_seq):
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(asyncio.gather(*(flaky(p) for p in range(4))), 60)
            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id))).replay
            for seat in seats:
                _check_no_gap(seat, replay)
            _check_accepted(seats, replay, exact=True)
            # a seat that resumes after the end gets the rest and MatchOver
            late = SeatLog(1)
            assert await play_seat(stub, tokens[1], late, last_seq=seats[1].last_seq - 2)
            assert [m.WhichOneof("kind") for m in late.messages] == ["welcome", "event", "event", "snapshot",
                                                                      "match_over"]
    asyncio.run(main())


def test_sigkill_mid_match_loses_no_accepted_move(tmp_path: Path) -> None:
    db, port = tmp_path / "k.db", free_port()
    servers = [ServerProcess(db, port)]

    async def main() -> None:
        async with client(port) as stub:
            created = await create(stub, deals=3, clock=NO_CLOCK)
        seats = [SeatLog(s.player) for s in created.seats]
        killed = asyncio.Event()

        async def seat_loop(player: int) -> None:
            while True:
                try:
                    async with client(port) as stub:
                        if await play_seat(stub, created.seats[player].token, seats[player],
                                           last_seq=seats[player].last_seq):
                            return
                except grpc.aio.AioRpcError:
                    pass
                await asyncio.sleep(0.1)

        async def killer() -> None:
            while sum(len(s.accepted) for s in seats) < 40:
                await asyncio.sleep(0.005)
            servers[-1].kill()
            killed.set()
            await asyncio.sleep(0.3)
            servers.append(ServerProcess(db, port))

        await asyncio.wait_for(asyncio.gather(killer(), *(seat_loop(p) for p in range(4))), 90)
        assert killed.is_set()
        async with client(port) as stub:
            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id))).replay
        assert len(replay.deals) == 3
        _check_accepted(seats, replay, exact=False)
        for seat in seats:
            _check_no_gap(seat, replay)

    try:
        asyncio.run(main())
    finally:
        servers[-1].stop()
