"""Accounts and the Session stream over real gRPC: one connection, many matches; resume; revoke; limits;
challenges; and no card a seat may not see on the multiplexed stream."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from leak_check import check_seat_messages
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_service.base.limits import Limits
from service_support import ADMIN, auth, client, refused, running
from session_support import SessionBot, new_account

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)


async def seat(stub: object, accounts: list[str], preset: str = "cardverse", **rules: object) -> pb.CreateMatchResponse:
    request = pb.CreateMatchRequest(preset=preset, rules=pb.Rules(**rules), seat_accounts=accounts, clock=NO_CLOCK)
    created: pb.CreateMatchResponse = await stub.CreateMatch(request, metadata=auth(ADMIN))  # type: ignore[attr-defined]
    return created


def test_accounts_are_created_listed_rotated_and_revoked(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "a.db") as server, client(server.port) as stub:
            await new_account(stub, "alpha")
            for taken in ("alpha", "Alpha"):
                await refused(stub.CreateAccount(pb.CreateAccountRequest(name=taken), metadata=auth(ADMIN)),
                              grpc.StatusCode.ALREADY_EXISTS, "ACCOUNT_EXISTS")
            await refused(stub.CreateAccount(pb.CreateAccountRequest(name="bad name!"), metadata=auth(ADMIN)),
                          grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            await refused(stub.CreateAccount(pb.CreateAccountRequest(name="beta")),
                          grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN")
            listed = await stub.ListAccounts(pb.ListAccountsRequest(), metadata=auth(ADMIN))
            assert [a.name for a in listed.accounts] == ["alpha"] and listed.accounts[0].owner == "tests"
            rotated = await stub.RotateAccountToken(pb.RotateAccountTokenRequest(name="alpha"), metadata=auth(ADMIN))
            assert rotated.token
            revoked = await stub.RevokeAccount(pb.RevokeAccountRequest(name="alpha"), metadata=auth(ADMIN))
            assert revoked.account.revoked
            await refused(stub.RevokeAccount(pb.RevokeAccountRequest(name="nobody"), metadata=auth(ADMIN)),
                          grpc.StatusCode.NOT_FOUND, "UNKNOWN_ACCOUNT")
            await refused(seat(stub, ["alpha", "", "", ""]), grpc.StatusCode.NOT_FOUND, "UNKNOWN_ACCOUNT")
    asyncio.run(main())


def test_two_accounts_play_many_matches_at_once_each_on_one_connection(tmp_path: Path) -> None:
    """Ten matches where two accounts hold a seat each; the other seats are played by two more accounts.
    Every seat's messages pass the leak checker."""
    async def main() -> None:
        async with running(tmp_path / "m.db") as server, client(server.port) as stub:
            names = ["north", "east", "south", "west"]
            bots = {name: SessionBot(stub, await new_account(stub, name)) for name in names}
            created = [await seat(stub, names[i % 4:] + names[:i % 4], deals=2) for i in range(10)]
            ids = {c.match_id for c in created}

            def done(bot: SessionBot) -> bool:
                return bot.over() >= ids

            await asyncio.wait_for(asyncio.gather(*(bot.run(until=done) for bot in bots.values())), 120)
            for created_match in created:
                replay = await stub.GetReplay(pb.GetReplayRequest(match_id=created_match.match_id))
                match = convert.replay_from_proto(replay.replay).replay()
                summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=created_match.match_id))).match
                for player in summary.players:
                    messages = bots[player.account].messages[created_match.match_id]
                    assert messages[0].HasField("welcome") and messages[0].welcome.player == player.player
                    check_seat_messages(messages, match, player.player)
            welcome = bots["north"].other[0].welcome
            assert welcome.account == "north" and welcome.check_pending
    asyncio.run(main())


def test_a_reconnect_resumes_every_match(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "r.db") as server, client(server.port) as stub:
            names = ["a1", "a2", "a3", "a4"]
            bots = {name: SessionBot(stub, await new_account(stub, name)) for name in names}
            created = [await seat(stub, names, deals=2) for _ in range(3)]
            ids = {c.match_id for c in created}
            bots["a1"].stop_after = 4  # drops its connection after four acts, mid-match

            def done(bot: SessionBot) -> bool:
                return bot.over() >= ids

            others = [asyncio.create_task(bots[n].run(until=done)) for n in names[1:]]
            await asyncio.wait_for(bots["a1"].run(), 30)
            assert not bots["a1"].over()
            bots["a1"].stop_after = None
            await asyncio.wait_for(bots["a1"].run(resume=True, until=done), 60)
            await asyncio.wait_for(asyncio.gather(*others), 60)
            for match_id in ids:
                replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=match_id))).replay
                match = convert.replay_from_proto(replay).replay()
                # resumed after the last event seen: each event exactly once over both connections
                check_seat_messages(bots["a1"].messages[match_id], match, 0)
                assert sum(m.HasField("welcome") for m in bots["a1"].messages[match_id]) == 2
    asyncio.run(main())


def test_a_revoked_token_is_refused_mid_stream(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            token = await new_account(stub, "gone")
            bot = SessionBot(stub, token)
            running_bot = asyncio.create_task(bot.run())
            await asyncio.sleep(0.3)
            await stub.RevokeAccount(pb.RevokeAccountRequest(name="gone"), metadata=auth(ADMIN))
            await asyncio.wait_for(running_bot, 10)
            assert bot.error is not None and bot.error.code() is grpc.StatusCode.UNAUTHENTICATED
            again = SessionBot(stub, token)
            await asyncio.wait_for(again.run(), 10)
            assert again.error is not None and again.error.code() is grpc.StatusCode.UNAUTHENTICATED
    asyncio.run(main())


def test_one_account_may_not_hold_two_seats_and_limits_are_answered(tmp_path: Path) -> None:
    async def main() -> None:
        limits = Limits(account_matches=2, account_matches_per_day=3, account_challenges_per_minute=1)
        async with running(tmp_path / "l.db", limits=limits) as server, client(server.port) as stub:
            for name in ("p", "q", "r", "s"):
                await new_account(stub, name)
            await refused(seat(stub, ["p", "p", "q", "r"]), grpc.StatusCode.FAILED_PRECONDITION, "SEATED_TWICE")
            await seat(stub, ["p", "q", "r", "s"])
            await seat(stub, ["p", "q", "r", "s"])
            info = await refused(seat(stub, ["p", "q", "r", "s"]), grpc.StatusCode.RESOURCE_EXHAUSTED, "ACCOUNT_LIMIT")
            assert info.metadata["account"] == "p"
    asyncio.run(main())


def test_challenges_are_offered_accepted_and_declined(tmp_path: Path) -> None:
    async def main() -> None:
        limits = Limits(account_challenges_per_minute=2)
        async with running(tmp_path / "c.db", limits=limits) as server, client(server.port) as stub:
            tokens = {name: await new_account(stub, name) for name in ("host", "x", "y", "z")}
            bots = {name: SessionBot(stub, token) for name, token in tokens.items()}
            bots["z"].accept_challenges = False
            tasks = [asyncio.create_task(bot.run()) for bot in bots.values()]
            await asyncio.sleep(0.3)
            host = bots["host"]
            await host.outbox.put(pb.SessionRequest(challenge=pb.ChallengeRequest(
                opponents=["x", "y"], preset="cardverse", rules=pb.Rules(players=3))))
            await asyncio.sleep(1.0)
            settled = [r.settled for r in host.other if r.HasField("settled")]
            assert len(settled) == 1 and settled[0].accepted, host.other
            match_id = settled[0].match_id
            await host.outbox.put(pb.SessionRequest(challenge=pb.ChallengeRequest(
                opponents=["x", "z"], preset="cardverse", rules=pb.Rules(players=3))))
            await asyncio.sleep(1.0)
            settled = [r.settled for r in host.other if r.HasField("settled")]
            assert len(settled) == 2 and not settled[1].accepted and "z declined" in settled[1].reason
            await host.outbox.put(pb.SessionRequest(challenge=pb.ChallengeRequest(
                opponents=["x", "y"], preset="cardverse", rules=pb.Rules(players=3))))
            await asyncio.sleep(0.5)
            limit = host.notices("ACCOUNT_LIMIT")
            assert limit and limit[0].retry_after_ms > 0
            for _ in range(100):
                if match_id in host.over():
                    break
                await asyncio.sleep(0.1)
            assert match_id in host.over() and match_id in bots["x"].over() and match_id in bots["y"].over()
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def test_deferred_events_come_with_the_next_prompt_in_fewer_messages(tmp_path: Path) -> None:
    """With defer_events a seat gets the same messages in the same order, in about one update per own turn;
    without, one per move; every seat still gets exactly what it may see."""
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            names = ["d1", "d2", "d3", "d4"]
            per_mode: dict[bool, float] = {}
            for defer in (False, True):
                tag = "y" if defer else "n"
                bots = {n: SessionBot(stub, await new_account(stub, f"{n}{tag}"), defer=defer) for n in names}
                created = [await seat(stub, [f"{n}{tag}" for n in names[i:] + names[:i]], deals=2)
                           for i in range(3)]
                ids = {c.match_id for c in created}

                def done(bot: SessionBot, ids: set[str] = ids) -> bool:
                    return bot.over() >= ids

                await asyncio.wait_for(asyncio.gather(*(bot.run(until=done) for bot in bots.values())), 120)
                moves = 0
                for created_match in created:
                    replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created_match.match_id))).replay
                    moves += sum(len(deal.actions) for deal in replay.deals)
                    match = convert.replay_from_proto(replay).replay()
                    summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=created_match.match_id))).match
                    for player in summary.players:
                        messages = bots[player.account.removesuffix(tag)].messages[created_match.match_id]
                        check_seat_messages(messages, match, player.player)
                        kinds = [m.WhichOneof("kind") for m in messages]
                        assert kinds[0] == "welcome" and kinds[-1] == "match_over"
                        acts = sum(1 for (m, _t) in bots[player.account.removesuffix(tag)].sent
                                   if m == created_match.match_id)
                        assert kinds.count("action_accepted") == acts
                per_mode[defer] = sum(bot.updates for bot in bots.values()) / moves
            assert per_mode[False] > 3.5  # every seat hears of every move
            assert per_mode[True] < 1.5  # about one update a move: the next seat's prompt
    asyncio.run(main())


def test_bot_seeds_reach_each_seat_in_its_welcome(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "s.db") as server, client(server.port) as stub:
            request = pb.CreateMatchRequest(preset="cardverse", bot_seeds=[11, 0, 2**63 - 1], clock=NO_CLOCK)
            created = await stub.CreateMatch(request, metadata=auth(ADMIN))
            seeds = []
            for seat_token in created.seats:
                call = stub.Play(metadata=auth(seat_token.token))
                await call.write(pb.PlayRequest(hello=pb.Hello()))
                welcome = (await call.read()).welcome
                seeds.append(welcome.bot_seed if welcome.HasField("bot_seed") else None)
                call.cancel()
            assert seeds == [11, 0, 2**63 - 1, None]
            too_big = pb.CreateMatchRequest(preset="cardverse", bot_seeds=[2**63])
            info = await refused(stub.CreateMatch(too_big, metadata=auth(ADMIN)),
                                 grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
            assert info.metadata["option"] == "bot_seeds"
    asyncio.run(main())


def test_batched_sessions_get_several_matches_in_one_message_and_may_answer_in_one(tmp_path: Path) -> None:
    """Updates waiting together go out as one MatchUpdates (on resuming five matches, all at once), acts may
    come back as one MatchActs, and each seat still gets exactly what it may see; without batch_matches a
    client gets only MatchUpdate."""
    async def main() -> None:
        async with running(tmp_path / "b.db") as server, client(server.port) as stub:
            names = ["b1", "b2", "b3", "b4"]
            tokens = {name: await new_account(stub, name) for name in names}
            created = [await seat(stub, names[i % 4:] + names[:i % 4]) for i in range(5)]
            ids = {c.match_id for c in created}
            bots = {n: SessionBot(stub, tokens[n], defer=True, batch=n != "b4") for n in names}

            def done(bot: SessionBot) -> bool:
                return bot.over() >= ids

            await asyncio.wait_for(asyncio.gather(*(bot.run(until=done) for bot in bots.values())), 120)
            welcome = bots["b1"].other[0].welcome
            assert welcome.batches
            assert bots["b1"].batches and bots["b1"].batches[0] == 5  # the five matches' first updates at once
            assert not bots["b4"].batches
            for created_match in created:
                replay = await stub.GetReplay(pb.GetReplayRequest(match_id=created_match.match_id))
                match = convert.replay_from_proto(replay.replay).replay()
                summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=created_match.match_id))).match
                for player in summary.players:
                    check_seat_messages(bots[player.account].messages[created_match.match_id], match, player.player)
    asyncio.run(main())
