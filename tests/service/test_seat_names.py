"""A bot names the seat it plays when the seat was created without a name (Hello.name), and the summaries say
which seats' clients are connected, over real loopback gRPC."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, SeatLog, auth, client, error_info, play_seat, running


@asynccontextmanager
async def seated(stub: pb_grpc.PresidentServiceAsyncStub, token: str, name: str) -> AsyncIterator[pb.Welcome]:
    """A Play stream of the seat, open (past its Welcome and Snapshot) until the block ends."""
    outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
    await outbox.put(pb.PlayRequest(hello=pb.Hello(name=name)))

    async def requests() -> AsyncIterator[pb.PlayRequest]:
        while (item := await outbox.get()) is not None:
            yield item

    call = stub.Play(requests(), metadata=auth(token))
    try:
        welcome = None
        async for message in call:
            if message.HasField("welcome"):
                welcome = message.welcome
            if message.HasField("snapshot"):
                break
        assert welcome is not None
        yield welcome
    finally:
        await outbox.put(None)
        call.cancel()


async def players(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str) -> list[pb.PlayerSummary]:
    return list((await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match.players)


async def disconnected(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str, player: int) -> None:
    """Wait until the server has seen the seat's stream close."""
    for _ in range(200):
        if not (await players(stub, match_id))[player].connected:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"player {player} still shows as connected")


async def play_out(stub: pb_grpc.PresidentServiceAsyncStub, created: pb.CreateMatchResponse) -> None:
    await asyncio.wait_for(asyncio.gather(*(play_seat(stub, s.token, SeatLog(s.player)) for s in created.seats)), 60)


def test_a_bot_names_a_seat_created_without_one_and_the_first_name_stays(tmp_path: Path) -> None:
    db = tmp_path / "names.db"

    async def first_run() -> tuple[str, list[str]]:
        async with running(db) as server, client(server.port) as stub:
            created = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=1), seed=5, seat_names=["", "bob", "", "di"],
                clock=pb.ClockSettings()), metadata=auth(ADMIN))
            match_id, tokens = created.match_id, [s.token for s in created.seats]
            before = await players(stub, match_id)
            assert [p.name for p in before] == ["player 0", "bob", "player 2", "di"]
            assert not any(p.connected for p in before)

            async with seated(stub, tokens[0], "zed") as welcome:
                assert welcome.names[0] == "zed"
                now = await players(stub, match_id)
                assert (now[0].name, now[0].connected) == ("zed", True)
            await disconnected(stub, match_id, 0)
            async with seated(stub, tokens[0], "someone else") as welcome:  # the first name stays
                assert welcome.names[0] == "zed"
            async with seated(stub, tokens[1], "imposter") as welcome:  # named at creation
                assert welcome.names[1] == "bob"

            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async with seated(stub, tokens[2], "x" * 65):
                    pass
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert error_info(refused.value).reason == "MALFORMED" and "64" in (refused.value.details() or "")
            listed = await stub.ListMatches(pb.ListMatchesRequest(player="zed"))
            assert [m.match_id for m in listed.matches] == [match_id]
            return match_id, tokens

    async def second_run(match_id: str, tokens: list[str]) -> None:
        async with running(db) as server, client(server.port) as stub:
            assert [p.name for p in await players(stub, match_id)] == ["zed", "bob", "player 2", "di"]
            async with seated(stub, tokens[2], "kim"):  # still without a name after the restart
                pass
            created = pb.CreateMatchResponse(match_id=match_id, seats=[
                pb.SeatToken(player=p, token=t) for p, t in enumerate(tokens)])
            await play_out(stub, created)
            names = ["zed", "bob", "kim", "di"]
            finished = await stub.ListMatches(pb.ListMatchesRequest(status=pb.MATCH_STATUS_OVER))
            assert [p.name for p in finished.matches[0].players] == names
            assert not any(p.connected for p in finished.matches[0].players)
            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=match_id))).replay
            assert list(replay.names) == names
            async with seated(stub, tokens[0], "late"):  # a finished match keeps its names
                pass
            assert [p.name for p in await players(stub, match_id)] == names

    async def scenario() -> None:
        await second_run(*await first_run())

    asyncio.run(scenario())


def test_an_accounts_seat_and_a_joined_seat_keep_their_names(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "names.db") as server, client(server.port) as stub:
            await stub.CreateAccount(pb.CreateAccountRequest(name="acct", owner="me"), metadata=auth(ADMIN))
            held = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", seat_accounts=["acct"], clock=pb.ClockSettings()), metadata=auth(ADMIN))
            async with seated(stub, held.seats[0].token, "bot") as welcome:
                assert welcome.names[0] == "acct"
            open_seats = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", open_seats=True, clock=pb.ClockSettings()), metadata=auth(ADMIN))
            named = await stub.JoinMatch(pb.JoinMatchRequest(match_id=open_seats.match_id, player=0, name="joe"))
            unnamed = await stub.JoinMatch(pb.JoinMatchRequest(match_id=open_seats.match_id, player=1))
            async with seated(stub, named.seat.token, "bot") as welcome:
                assert welcome.names[0] == "joe"
            async with seated(stub, unnamed.seat.token, "bot") as welcome:  # joined without a name: the bot's
                assert welcome.names[1] == "bot"

    asyncio.run(scenario())


def test_a_client_playing_by_unary_calls_counts_as_connected(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "names.db") as server, client(server.port) as stub:
            created = await stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", clock=pb.ClockSettings()),
                                             metadata=auth(ADMIN))
            await stub.GetTurn(pb.GetTurnRequest(), metadata=auth(created.seats[3].token))
            assert [p.connected for p in await players(stub, created.match_id)] == [False, False, False, True]

    asyncio.run(scenario())
