"""The doors an outside probe found open, each closed: bursts, silent streams, bad bytes, long ids, huge numbers,
unknown fields, duplicate deals, claimed seats, the clock's move and its deadline."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import grpc
import pytest
from google.rpc.error_details_pb2 import RetryInfo
from grpc_status import rpc_status
from president_engine import PASS
from president_protocol.v1 import president_pb2 as pb
from president_service.base.limits import Limits
from service_support import ADMIN, SeatLog, action_of, auth, client, create, error_info, play_seat, refused, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
HANDS = ["3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C", "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
         "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2H", "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"]


def _hands() -> list[pb.DealHands]:
    from president_engine import CardSet
    from president_protocol import convert
    return [pb.DealHands(hands=[pb.Hand(cards=convert.cards_to_proto(CardSet(h))) for h in HANDS])]


def test_a_burst_of_streams_is_served_or_refused_with_a_reason(tmp_path: Path) -> None:
    """Many Play streams opened at once: each gets its Welcome or, when the server's loop falls behind, a refusal
    with TOO_MANY_STREAMS and a retry hint; none is CANCELLED or INTERNAL by gRPC."""
    async def main() -> None:
        async with running(tmp_path / "b.db") as server, client(server.port) as stub:
            tokens = [seat.token for _ in range(300) for seat in (await create(stub, clock=NO_CLOCK)).seats]

            async def open_one(token: str) -> str:
                hold = asyncio.Event()

                async def requests():  # type: ignore[no-untyped-def]
                    yield pb.PlayRequest(hello=pb.Hello())
                    await hold.wait()

                call = stub.Play(requests(), metadata=auth(token))
                try:
                    async for message in call:
                        return message.WhichOneof("kind")
                    return "ended"
                except grpc.aio.AioRpcError as exc:
                    if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                        return exc.code().name
                    hint = RetryInfo()
                    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
                    assert status is not None and any(d.Unpack(hint) for d in status.details)
                    return f"refused {error_info(exc).reason}, retry {hint.retry_delay.ToMilliseconds() > 0}"
                finally:
                    hold.set()
                    call.cancel()

            kinds = await asyncio.gather(*(open_one(t) for t in tokens))
            counts = {k: kinds.count(k) for k in set(kinds)}
            assert set(kinds) <= {"welcome", "refused TOO_MANY_STREAMS, retry True"}, counts
            assert counts.get("welcome", 0) > len(kinds) // 2, counts
    asyncio.run(main())


def test_a_silent_stream_counts_against_its_seat_and_is_closed(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "s.db", limits=Limits(max_streams_per_seat=1)) as server, \
                client(server.port) as stub:
            token = (await create(stub, clock=NO_CLOCK)).seats[0].token
            hold = asyncio.Event()

            async def silence():  # type: ignore[no-untyped-def]
                await hold.wait()
                yield pb.PlayRequest(hello=pb.Hello())

            silent = stub.Play(silence(), metadata=auth(token))
            await asyncio.sleep(0.3)
            second = stub.Play(silence(), metadata=auth(token))
            await refused(second.read(), grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS")
            started = time.monotonic()
            info = await refused(silent.read(), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            assert time.monotonic() - started < 10
            assert info.reason == "MALFORMED"
            hold.set()
    asyncio.run(main())


def test_bytes_that_are_not_a_request_are_malformed_in_one_log_line(tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        async with running(tmp_path / "m.db") as server:  # noqa: SIM117 - the channel needs the port
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                for method in ("CreateMatch", "GetMatch", "ListMatches", "GetReplay", "SubmitAction"):
                    call = channel.unary_unary(f"/president.v1.PresidentService/{method}")
                    await refused(call(b"\xff" * 50), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
                spectate = channel.unary_stream("/president.v1.PresidentService/Spectate")
                await refused(spectate(b"\xff" * 50).read(), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
                check = channel.unary_unary("/grpc.health.v1.Health/Check")
                await refused(check(b"\xff" * 50), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
    with caplog.at_level(logging.INFO):
        asyncio.run(main())
    lines = [r for r in caplog.records if "malformed" in r.getMessage()]
    assert len(lines) == 1 and not any(r.exc_info for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_echoed_values_are_bounded(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "e.db") as server, client(server.port) as stub:
            long_id = "x" * 20_000
            try:
                await stub.GetMatch(pb.GetMatchRequest(match_id=long_id))
            except grpc.aio.AioRpcError as exc:
                assert exc.code() is grpc.StatusCode.NOT_FOUND
                assert len(exc.details() or "") < 200
            else:
                raise AssertionError("an unknown match was found")
            await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="p" * 10_000), metadata=auth(ADMIN)),
                          grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
            await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", seat_names=["n" * 65]),
                                           metadata=auth(ADMIN)), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
    asyncio.run(main())


@pytest.mark.parametrize(("rules", "option"), [
    (pb.Rules(deals=4294967295), "deals"),
    (pb.Rules(target_score=4294967295), "target_score"),
    (pb.Rules(points=pb.PointList(points=[10**9, 0, 0, 0])), "points"),
])
def test_numbers_beyond_the_servers_bounds_are_refused(tmp_path: Path, rules: pb.Rules, option: str) -> None:
    async def main() -> None:
        async with running(tmp_path / "n.db") as server, client(server.port) as stub:
            info = await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", rules=rules),
                                                  metadata=auth(ADMIN)),
                                 grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
            assert info.metadata["option"] == option
            strikes = pb.ClockSettings(move_time_limit_ms=1000, strikes_before_takeover=10**6)
            await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", clock=strikes),
                                           metadata=auth(ADMIN)), grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
    asyncio.run(main())


def test_a_field_this_server_does_not_know_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "u.db") as server:  # noqa: SIM117 - the channel needs the port
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                create_match = channel.unary_unary("/president.v1.PresidentService/CreateMatch")
                body = pb.CreateMatchRequest(preset="cardverse").SerializeToString() + bytes([0xF8, 0x07, 0x01])
                info = await refused(create_match(body, metadata=auth(ADMIN)), grpc.StatusCode.INVALID_ARGUMENT,
                                     "MALFORMED")
                assert info.reason == "MALFORMED"
    asyncio.run(main())


def test_a_deal_in_play_is_hidden_from_all_but_the_admin(tmp_path: Path) -> None:
    """Two seatings of a duplicate board: while one is live, the other's replay and play are not shown."""
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            request = pb.CreateMatchRequest(preset="cardverse", seed=5, deals=_hands(), clock=NO_CLOCK)
            first = await stub.CreateMatch(request, metadata=auth(ADMIN))
            second = await stub.CreateMatch(request, metadata=auth(ADMIN))
            await refused(stub.Spectate(pb.SpectateRequest(match_id=second.match_id)).read(),
                          grpc.StatusCode.PERMISSION_DENIED, "DEAL_IN_PLAY")
            watching = stub.Spectate(pb.SpectateRequest(match_id=second.match_id), metadata=auth(ADMIN))
            assert (await watching.read()).HasField("snapshot")
            watching.cancel()
            await asyncio.gather(*(play_seat(stub, s.token, SeatLog(s.player)) for s in first.seats))
            await refused(stub.GetReplay(pb.GetReplayRequest(match_id=first.match_id)),
                          grpc.StatusCode.PERMISSION_DENIED, "DEAL_IN_PLAY")
            admin = await stub.GetReplay(pb.GetReplayRequest(match_id=first.match_id), metadata=auth(ADMIN))
            assert admin.replay.deals
            await asyncio.gather(*(play_seat(stub, s.token, SeatLog(s.player)) for s in second.seats))
            public = await stub.GetReplay(pb.GetReplayRequest(match_id=first.match_id))
            assert public.replay == admin.replay
            other = await create(stub, clock=NO_CLOCK)  # another deal: public while it is played
            spectate = stub.Spectate(pb.SpectateRequest(match_id=other.match_id))
            assert (await spectate.read()).HasField("snapshot")
            spectate.cancel()
    asyncio.run(main())


def test_reserved_seats_cannot_be_joined_and_their_tokens_play(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "r.db") as server, client(server.port) as stub:
            created = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", open_seats=True, reserved_seats=[0, 2], clock=NO_CLOCK), metadata=auth(ADMIN))
            joined = [await stub.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id)) for _ in range(2)]
            assert [j.seat.player for j in joined] == [1, 3]
            await refused(stub.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id, player=0)),
                          grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
            await refused(stub.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id)),
                          grpc.StatusCode.FAILED_PRECONDITION, "NO_FREE_SEAT")
            tokens = [created.seats[0].token, joined[0].seat.token, created.seats[2].token, joined[1].seat.token]
            done = await asyncio.gather(*(play_seat(stub, t, SeatLog(p)) for p, t in enumerate(tokens)))
            assert all(done)
            await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", reserved_seats=[1]),
                                           metadata=auth(ADMIN)), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
    asyncio.run(main())


def test_the_clock_plays_the_easy_move_and_a_second_prompt_is_only_a_deadline(tmp_path: Path) -> None:
    """Seats that let their time run out get the easy level's move (a follower's lowest play, not a pass); a seat
    already prompted when the clock starts gets TurnDeadline, never a second Prompt for the turn."""
    async def main() -> None:
        clock = pb.ClockSettings(move_time_limit_ms=200, time_bank_ms=0, strikes_before_takeover=10)
        async with running(tmp_path / "c.db", start_grace_s=0.5) as server, client(server.port) as stub:
            created = await stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", seed=3, clock=clock),
                                             metadata=auth(ADMIN))
            hold = asyncio.Event()

            async def hello():  # type: ignore[no-untyped-def]
                yield pb.PlayRequest(hello=pb.Hello())
                await hold.wait()

            call = stub.Play(hello(), metadata=auth(created.seats[0].token))
            messages: list[pb.PlayResponse] = []

            async def listen() -> None:
                async for message in call:
                    messages.append(message)

            listening = asyncio.create_task(listen())
            await asyncio.sleep(2.5)  # the grace passes, the clock starts, every seat lets its turns run out
            hold.set()
            call.cancel()
            listening.cancel()
            prompts = [m.prompt.turn_id for m in messages if m.HasField("prompt")]
            assert prompts and len(prompts) == len(set(prompts)), prompts
            deadlines = [m.turn_deadline for m in messages if m.HasField("turn_deadline")]
            assert deadlines and deadlines[0].turn_id == prompts[0], messages[:6]
            followers = [m.event.strike_recorded for m in messages if m.HasField("event")
                         and m.event.HasField("strike_recorded") and m.event.strike_recorded.player != 0]
            assert followers
            assert all(action_of(strike.action) is not PASS for strike in followers[:1])
    asyncio.run(main())


def test_overload_refusals_carry_a_retry_hint(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "o.db", limits=Limits(max_matches=1)) as server, client(server.port) as stub:
            await create(stub)
            try:
                await create(stub)
            except grpc.aio.AioRpcError as exc:
                status = rpc_status.from_call(exc)  # type: ignore[arg-type]
                assert status is not None
                hint = RetryInfo()
                assert any(d.Unpack(hint) for d in status.details)
                assert hint.retry_delay.ToMilliseconds() > 0
            else:
                raise AssertionError("a second match on a server of one")
    asyncio.run(main())
