"""The clock: a seat that sleeps past its time is played for, gets strikes, is taken over, and the match ends."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president_protocol.v1 import president_pb2 as pb
from service_support import SeatLog, auth, client, create, play_seat, running


def test_sleeping_seat_is_played_for(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "c.db") as server, client(server.port) as stub:
            clock = pb.ClockSettings(move_time_limit_ms=600, time_bank_ms=300, strikes_before_takeover=2)
            created = await create(stub, deals=2, clock=clock)
            seats = [SeatLog(s.player) for s in created.seats]

            async def sleeper() -> None:
                """Seat 0 connects, reads everything, never acts."""
                async def hello():  # type: ignore[no-untyped-def]
                    yield pb.PlayRequest(hello=pb.Hello())
                    await asyncio.sleep(60)
                call = stub.Play(hello(), metadata=auth(created.seats[0].token))
                async for message in call:
                    seats[0].messages.append(message)
                    if message.HasField("match_over"):
                        break

            await asyncio.wait_for(asyncio.gather(
                sleeper(), *(play_seat(stub, created.seats[p].token, seats[p]) for p in (1, 2, 3))), 60)
            for log in seats:
                events = [m.event for m in log.messages if m.HasField("event")]
                strikes = [e.strike_recorded for e in events if e.HasField("strike_recorded")]
                assert [(s.player, s.strikes) for s in strikes] == [(0, 1), (0, 2)]
                assert [e.seat_taken_over.player for e in events if e.HasField("seat_taken_over")] == [0]
                assert log.messages[-1].HasField("match_over")
            prompts = [m.prompt for m in seats[0].messages if m.HasField("prompt")]
            assert prompts and prompts[-1].HasField("deadline")
            summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id))).match
            assert summary.status == pb.MATCH_STATUS_OVER and summary.players[0].taken_over
    asyncio.run(main())
