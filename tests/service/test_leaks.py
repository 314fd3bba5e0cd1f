"""No message to a seat or spectator carries a card it may not see, checked card by card over several matches.

The web's live page is a spectator too: its stream (server-sent events) is checked the same way, and must be
the very messages a gRPC spectator gets.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from leak_check import check_event, check_observation, check_seat_messages
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from service_support import SeatLog, client, create, live_messages, play_seat, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)


def test_no_leaks(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "leak.db", http_port=0) as server, client(server.port) as stub:
            assert server.http_port is not None
            for preset, deals in (("norwegian", 3), ("cardverse", 3), ("italian", 2)):
                created = await create(stub, preset, deals=deals, clock=NO_CLOCK, exchange=True)
                seats = [SeatLog(s.player) for s in created.seats]
                watched: list[pb.SpectateResponse] = []

                async def watch(match_id: str = created.match_id, out: list[pb.SpectateResponse] = watched) -> None:
                    async for message in stub.Spectate(pb.SpectateRequest(match_id=match_id)):
                        out.append(message)

                spectator = asyncio.get_running_loop().create_task(watch())
                page = asyncio.get_running_loop().create_task(live_messages(server.http_port, created.match_id))
                await asyncio.sleep(0.05)
                await asyncio.wait_for(asyncio.gather(
                    *(play_seat(stub, s.token, log) for s, log in zip(created.seats, seats, strict=True))), 60)
                await asyncio.wait_for(spectator, 10)
                sent = await asyncio.wait_for(page, 10)
                replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id))).replay
                match = convert.replay_from_proto(replay).replay()
                for seat in seats:
                    check_seat_messages(seat.messages, match, seat.player)
                assert watched[0].HasField("snapshot") and watched[-1].HasField("match_over")
                check_observation(watched[0].snapshot.observation, match, None)
                for message in watched:
                    if message.HasField("event"):
                        check_event(message.event, match, None)
                assert [s.message() for s in sent] == watched
                assert all(s.id == str(s.message().event.seq) for s in sent if s.message().HasField("event"))
    asyncio.run(main())
