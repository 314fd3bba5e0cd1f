"""Bad input: each refusal has its status code and ErrorInfo reason, and changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from president_engine import Card, CardSet, GiveBack, Play
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_service.base.errors import Reason
from president_service.base.limits import Limits
from service_support import ADMIN, auth, client, create, refused, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
FAILED = grpc.StatusCode.FAILED_PRECONDITION


def test_refusals_change_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "e.db") as server, client(server.port) as stub:
            created = await create(stub, clock=NO_CLOCK)
            mid = created.match_id
            tokens = [s.token for s in created.seats]

            async def state() -> tuple[object, ...]:
                summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=mid))).match
                turn = await stub.GetTurn(pb.GetTurnRequest(), metadata=auth(tokens[0]))
                return summary.last_seq, summary.to_act, turn.prompt.SerializeToString()

            before = await state()
            prompt = (await stub.GetTurn(pb.GetTurnRequest(), metadata=auth(tokens[0]))).prompt
            assert prompt.turn_id == 1
            hand = convert.cards_from_proto(prompt.observation.hand)
            lowest = prompt.legal_actions[0]

            def submit(token: str | None, turn_id: int, action: pb.Action) -> object:
                return stub.SubmitAction(pb.SubmitActionRequest(turn_id=turn_id, action=action),
                                         metadata=auth(token) if token else None)

            await refused(submit(tokens[1], 1, lowest), FAILED, "NOT_YOUR_TURN")
            not_held = next(c for c in CardSet("3C 3D 3H 3S 4C 4D 4H 4S 5C") if c not in hand)
            info = await refused(submit(tokens[0], 1, convert.action_to_proto(Play(CardSet([not_held])))),
                                 FAILED, "ILLEGAL_ACTION")
            assert info.metadata["illegal_reason"] == "CARDS_NOT_HELD" and info.metadata["message"]
            ranks = sorted({c.rank for c in hand})
            mixed = CardSet([next(c for c in hand if c.rank == ranks[0]), next(c for c in hand if c.rank == ranks[1])])
            info = await refused(submit(tokens[0], 1, convert.action_to_proto(Play(mixed))), FAILED, "ILLEGAL_ACTION")
            assert info.metadata["illegal_reason"] == "MIXED_RANKS"
            info = await refused(submit(tokens[0], 1, pb.Action(pass_turn=pb.PassAction())), FAILED, "ILLEGAL_ACTION")
            assert info.metadata["illegal_reason"] == "LEADER_MUST_PLAY"
            info = await refused(submit(tokens[0], 1, convert.action_to_proto(GiveBack(CardSet([hand.distinct()[0]])))),
                                 FAILED, "ILLEGAL_ACTION")
            assert info.metadata["illegal_reason"] == "WRONG_PHASE"
            await refused(submit(tokens[0], 1, pb.Action()), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            await refused(submit(tokens[0], 0, lowest), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            bad_card = pb.Action(play=pb.PlayAction(cards=[pb.Card(rank=pb.RANK_THREE)]))
            await refused(submit(tokens[0], 1, bad_card), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            await refused(submit(tokens[0], 2, lowest), FAILED, "STALE_TURN")
            await refused(submit("not-a-token", 1, lowest), grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
            await refused(submit(None, 1, lowest), grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN")
            await refused(stub.GetMatch(pb.GetMatchRequest(match_id="nope")), grpc.StatusCode.NOT_FOUND,
                          "UNKNOWN_MATCH")
            await refused(stub.GetReplay(pb.GetReplayRequest(match_id=mid)), FAILED, "MATCH_NOT_OVER")
            await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse"), metadata=auth(tokens[0])),
                          grpc.StatusCode.PERMISSION_DENIED, "NOT_ADMIN")
            info = await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse",
                                                                        rules=pb.Rules(players=1)),
                                                  metadata=auth(ADMIN)), grpc.StatusCode.INVALID_ARGUMENT,
                                 "BAD_OPTION")
            assert info.metadata["option"] == "players"
            await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="chess"), metadata=auth(ADMIN)),
                          grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
            huge = pb.Action(play=pb.PlayAction(cards=[pb.Card(rank=pb.RANK_THREE, suit=pb.SUIT_CLUBS)] * 30_000))
            try:
                await submit(tokens[0], 1, huge)  # type: ignore[misc]
                raise AssertionError("an oversized message was accepted")
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert await state() == before

            # the move itself, then the same move again and an old turn id
            await submit(tokens[0], 1, lowest)
            after = await state()
            assert after != before
            await refused(submit(tokens[0], 1, lowest), grpc.StatusCode.ALREADY_EXISTS, "DUPLICATE_ACTION")
            await refused(submit(tokens[1], 1, lowest), FAILED, "STALE_TURN")
            assert await state() == after
            # a refused Act on the Play stream is an ActionRejected and the stream stays open
            requests: asyncio.Queue[pb.PlayRequest] = asyncio.Queue()
            await requests.put(pb.PlayRequest(hello=pb.Hello()))
            await requests.put(pb.PlayRequest(act=pb.Act(turn_id=1, action=lowest)))

            async def feed():  # type: ignore[no-untyped-def]
                while True:
                    yield await requests.get()

            call = stub.Play(feed(), metadata=auth(tokens[0]))
            async for message in call:
                if message.HasField("action_rejected"):
                    assert message.action_rejected.reason == "DUPLICATE_ACTION"
                    break
            await requests.put(pb.PlayRequest(act=pb.Act(turn_id=9, action=lowest)))
            async for message in call:
                if message.HasField("action_rejected"):
                    assert message.action_rejected.reason == "STALE_TURN"
                    break
            call.cancel()
            assert await state() == after
    asyncio.run(main())


def test_limits(tmp_path: Path) -> None:
    async def main() -> None:
        limits = Limits(max_matches=2, max_streams_per_seat=1)
        async with running(tmp_path / "l.db", limits=limits) as server, client(server.port) as stub:
            first = await create(stub, clock=NO_CLOCK)
            await create(stub, clock=NO_CLOCK)
            await refused(stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse"), metadata=auth(ADMIN)),
                          grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MATCHES")

            async def hello():  # type: ignore[no-untyped-def]
                yield pb.PlayRequest(hello=pb.Hello())
                await asyncio.sleep(30)

            token = first.seats[1].token
            one = stub.Play(hello(), metadata=auth(token))
            assert (await one.read()).HasField("welcome")
            two = stub.Play(hello(), metadata=auth(token))
            await refused(two.read(), grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS")
            one.cancel()
            await asyncio.sleep(0.2)
            three = stub.Play(hello(), metadata=auth(token))  # the slot is free again
            assert (await three.read()).HasField("welcome")
            three.cancel()
            await refused(stub.Play(hello(), metadata=auth("x")).read(), grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
            card = Card.parse("3C")
            assert str(card) == "3C"
    asyncio.run(main())


def test_pipelined_acts_get_one_answer_each_in_order(tmp_path: Path) -> None:
    """Acts sent back to back, before the snapshot even arrives: each is answered once, in order, after it."""
    async def main() -> None:
        async with running(tmp_path / "p.db") as server, client(server.port) as stub:
            created = await create(stub, clock=NO_CLOCK)
            token = created.seats[0].token
            prompt = (await stub.GetTurn(pb.GetTurnRequest(), metadata=auth(token))).prompt
            act = pb.PlayRequest(act=pb.Act(turn_id=prompt.turn_id, action=prompt.legal_actions[0]))
            hold = asyncio.Event()

            async def requests():  # type: ignore[no-untyped-def]
                for request in (pb.PlayRequest(hello=pb.Hello()), act, act, pb.PlayRequest(hello=pb.Hello()), act):
                    yield request
                await hold.wait()

            call = stub.Play(requests(), metadata=auth(token))
            kinds: list[str] = []  # message kinds, a refusal as its reason
            async for message in call:
                kind = message.WhichOneof("kind")
                if kind == "action_rejected":
                    rejected = message.action_rejected
                    assert pb.ErrorReason.Name(rejected.error_reason) == "ERROR_REASON_" + rejected.reason
                    kinds.append(rejected.reason)
                else:
                    kinds.append(kind)
                if kinds.count("action_accepted") + sum(k.isupper() for k in kinds) == 4:
                    break
            call.cancel()
            hold.set()
            answers = [k for k in kinds if k == "action_accepted" or k.isupper()]
            assert answers == ["action_accepted", "DUPLICATE_ACTION", "MALFORMED", "DUPLICATE_ACTION"], kinds
            assert kinds[0] == "welcome" and kinds.index("snapshot") < kinds.index("action_accepted"), kinds
            # the move's own events come after its answer
            assert "event" not in kinds[kinds.index("snapshot"):kinds.index("action_accepted")], kinds
    asyncio.run(main())


def test_every_refusal_is_a_reason_of_the_contract() -> None:
    """ErrorInfo.reason and ActionRejected name the same ErrorReason values the proto lists, both ways."""
    names = pb.ErrorReason.DESCRIPTOR.values_by_name
    contract = {name.removeprefix("ERROR_REASON_") for name in names} - {"UNSPECIFIED"}
    assert {reason.name for reason in Reason} == contract
    assert all(pb.ErrorReason.Name(reason.proto) == "ERROR_REASON_" + reason.name for reason in Reason)
