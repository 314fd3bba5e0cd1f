"""What one account may cost the server on its Session, and what a Session tells an account that was away.

Issue 27: a Session that sends acts and never reads is held back, not buffered; a resume cursor for a match
that ended meanwhile gets its remaining events and MatchOver; an act resent for a turn already applied is
DUPLICATE_ACTION; a challenge is held to CreateMatch's bounds; a second Session ends the first with the
reason the contract lists; account names differ by more than case; NOT_ADMIN says what it is about.
"""

from __future__ import annotations

import asyncio
import gc
import re
import sqlite3
import weakref
from collections.abc import Callable
from pathlib import Path

import grpc
from leak_check import check_seat_messages
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.base.limits import Limits
from president_service.play.session import ANSWERS_HELD
from president_service.server.grpc_server import RunningServer
from service_support import ADMIN, SeatLog, auth, client, error_info, play_seat, refused, running
from session_support import SessionBot, new_account

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
PROTO = Path(__file__).resolve().parents[2] / "protos" / "president" / "v1" / "president.proto"


async def seated(stub: pb_grpc.PresidentServiceAsyncStub, accounts: list[str], **rules: int) -> pb.CreateMatchResponse:
    created: pb.CreateMatchResponse = await stub.CreateMatch(pb.CreateMatchRequest(
        preset="cardverse", rules=pb.Rules(**rules), seat_accounts=accounts, clock=NO_CLOCK), metadata=auth(ADMIN))
    return created


async def until(check: Callable[[], bool], timeout_s: float = 20.0) -> None:
    """Wait for `check` to hold (polling), failing after a generous `timeout_s`."""
    async with asyncio.timeout(timeout_s):
        while not check():
            await asyncio.sleep(0.05)


async def welcome_of(stub: pb_grpc.PresidentServiceAsyncStub, token: str) -> pb.SessionWelcome:
    """Open a Session, take its SessionWelcome, leave."""
    call = stub.Session(metadata=auth(token))
    try:
        await call.write(pb.SessionRequest(hello=pb.SessionHello()))
        first = await asyncio.wait_for(call.read(), 10)
        assert isinstance(first, pb.SessionResponse) and first.HasField("welcome"), first
        return first.welcome
    finally:
        call.cancel()


def waiting_on(server: RunningServer, account: str) -> tuple[int, int]:
    """What the account's Session holds for its client: answers held by its feeds, messages queued to write."""
    session = server.servicer.sessions.by_account.get(account)
    if session is None:
        return 0, 0
    return sum(len(feeding.answers) for feeding in session.feeds.values()), len(session._outbox)


def test_a_session_that_sends_acts_and_never_reads_is_held_back_not_buffered(tmp_path: Path) -> None:
    """Stale acts as fast as grpc takes them, never reading: the server holds at most ANSWERS_HELD answers
    (it stops reading instead), others are served meanwhile, and the closed session leaves nothing behind."""
    async def main() -> None:
        async with running(tmp_path / "f.db") as server, client(server.port) as stub:
            token = await new_account(stub, "flood")
            for name in ("o1", "o2", "o3"):
                await new_account(stub, name)
            created = await seated(stub, ["flood", "o1", "o2", "o3"])
            call = stub.Session(metadata=auth(token))
            await call.write(pb.SessionRequest(hello=pb.SessionHello()))
            stale = pb.MatchAct(match_id=created.match_id, act=pb.Act(turn_id=10**6))
            burst = pb.SessionRequest(acts=pb.MatchActs(acts=[stale] * 500))
            written = 0

            async def flood() -> None:
                nonlocal written
                while True:
                    await call.write(burst)
                    written += 1

            flooding = asyncio.create_task(flood())
            await until(lambda: "flood" in server.servicer.sessions.by_account)
            session = server.servicer.sessions.by_account["flood"]
            held = []
            for _ in range(40):  # 2 s of flooding, sampled
                await asyncio.sleep(0.05)
                held.append(waiting_on(server, "flood"))
            assert written >= 1  # the first burst alone is more than a feed may hold
            assert max(answers for answers, _ in held) < ANSWERS_HELD, held
            assert max(queued for _, queued in held) <= 2, held  # the feed's batch and the reader's answers

            summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id), timeout=10)).match
            assert summary.match_id == created.match_id
            assert (await welcome_of(stub, await new_account(stub, "calm"))).account == "calm"

            flooding.cancel()
            call.cancel()
            await until(lambda: "flood" not in server.servicer.sessions.by_account)
            gone = weakref.ref(session)
            del session
            await until(lambda: gc.collect() >= 0 and gone() is None)  # once its tasks have finished cancelling
    asyncio.run(main())


async def _read_until(call: grpc.aio.StreamStreamCall[pb.SessionRequest, pb.SessionResponse],
                      done: Callable[[pb.SessionResponse], bool]) -> list[pb.SessionResponse]:
    out = []
    async with asyncio.timeout(20):
        while True:
            response = await call.read()
            assert response is not grpc.aio.EOF
            out.append(response)
            if done(response):
                return out


def test_a_resumed_match_that_ended_while_away_sends_its_rest_and_match_over(tmp_path: Path) -> None:
    """The account plays two acts on a Session and leaves; its seat is played to the end on a Play stream.
    Resuming the Session with its cursor gets what a Play stream of the seat gets from there, MatchOver
    included (before: nothing, and not in live_matches); resending its last act is DUPLICATE_ACTION."""
    async def main() -> None:
        async with running(tmp_path / "e.db") as server, client(server.port) as stub:
            token = await new_account(stub, "away")
            created = await seated(stub, ["away", "", "", ""], deals=1)
            match_id = created.match_id
            seats = [SeatLog(p) for p in range(4)]
            others = [asyncio.create_task(play_seat(stub, created.seats[p].token, seats[p])) for p in (1, 2, 3)]
            bot = SessionBot(stub, token, stop_after=2)
            await asyncio.wait_for(bot.run(), 20)
            cursor = bot.last_seq(match_id)
            (_, last_turn), last_action = max(bot.sent.items())
            assert await asyncio.wait_for(play_seat(stub, created.seats[0].token, seats[0], last_seq=cursor), 30)
            await asyncio.wait_for(asyncio.gather(*others), 30)

            session = stub.Session(metadata=auth(token))
            await session.write(pb.SessionRequest(hello=pb.SessionHello(
                resume=[pb.MatchCursor(match_id=match_id, last_seq=cursor)])))
            got = await _read_until(session, lambda r: r.HasField("match") and any(
                m.HasField("match_over") for m in r.match.messages))
            assert got[0].welcome.live_matches == [match_id]
            resumed = [m for r in got[1:] for m in r.match.messages]

            play = stub.Play(metadata=auth(created.seats[0].token))
            await play.write(pb.PlayRequest(hello=pb.Hello(last_seq=cursor)))
            from_play = [message async for message in play]
            assert resumed == from_play
            assert resumed[-1].HasField("match_over") and resumed[0].HasField("welcome")

            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=match_id))).replay
            check_seat_messages(bot.messages[match_id] + resumed, convert.replay_from_proto(replay).replay(), 0)

            for where, turn, action in ((match_id, last_turn, last_action), (match_id, 10**6, last_action),
                                        (match_id, last_turn, pb.Action()), ("no-such-match", 1, last_action)):
                await session.write(pb.SessionRequest(act=pb.MatchAct(match_id=where, act=pb.Act(
                    turn_id=turn, action=action))))
            answers = await _read_until(session, lambda r: r.notice.match_id == "no-such-match")
            notices = [r.notice for r in answers if r.HasField("notice")]
            assert [(n.reason, n.match_id) for n in notices] == [
                ("DUPLICATE_ACTION", match_id), ("MATCH_OVER", match_id), ("MALFORMED", match_id),
                ("UNKNOWN_MATCH", "no-such-match")]
            session.cancel()
            summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match
            assert summary.players[0].faults == pb.FaultCounts()  # the refused acts counted nothing
    asyncio.run(main())


def test_resume_cursors_of_matches_not_live_are_looked_up_up_to_the_accounts_match_limit(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "u.db", limits=Limits(account_matches=2)) as server, \
                client(server.port) as stub:
            call = stub.Session(metadata=auth(await new_account(stub, "many")))
            await call.write(pb.SessionRequest(hello=pb.SessionHello(
                resume=[pb.MatchCursor(match_id=f"gone{i}", last_seq=3) for i in range(5)])))
            got = await _read_until(call, lambda r: r.HasField("notice"))
            call.cancel()
            assert not got[0].welcome.live_matches
            assert got[-1].notice.reason == "ACCOUNT_LIMIT" and got[-1].notice.message.startswith("3 resume cursors")
    asyncio.run(main())


def test_a_challenge_is_held_to_create_matchs_bounds(tmp_path: Path) -> None:
    """deals = 2^32-1 is BAD_OPTION deals for CreateMatch and for a challenge alike; no offer goes out."""
    async def main() -> None:
        async with running(tmp_path / "c.db") as server, client(server.port) as stub:
            info = await refused(stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=2**32 - 1)), metadata=auth(ADMIN)),
                grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
            assert info.metadata["option"] == "deals"
            bots = {name: SessionBot(stub, await new_account(stub, name)) for name in ("host", "x", "y")}
            tasks = [asyncio.create_task(bot.run()) for bot in bots.values()]
            await until(lambda: len(server.servicer.sessions.by_account) == 3)
            host = bots["host"]
            for rules in (pb.Rules(players=3, deals=2**32 - 1), pb.Rules(players=3, target_score=2**32 - 1)):
                await host.outbox.put(pb.SessionRequest(challenge=pb.ChallengeRequest(
                    opponents=["x", "y"], preset="cardverse", rules=rules)))
            await until(lambda: len(host.notices("BAD_OPTION")) == 2)
            assert [n.message.split(":")[0] for n in host.notices("BAD_OPTION")] == ["deals", "target_score"]
            assert not any(r.HasField("challenge") for bot in bots.values() for r in bot.other)
            assert not server.registry.live
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def _session_rpc_doc() -> str:
    text = PROTO.read_text()
    comment = re.search(r"((?:\n  //[^\n]*)+)\n  rpc Session\(", text)
    assert comment is not None
    return comment.group(1)


def test_a_second_session_ends_the_first_with_a_reason_the_contract_lists(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "t.db") as server, client(server.port) as stub:
            token = await new_account(stub, "twice")
            first = SessionBot(stub, token)
            running_first = asyncio.create_task(first.run())
            await until(lambda: "twice" in server.servicer.sessions.by_account)
            second = SessionBot(stub, token)
            running_second = asyncio.create_task(second.run())
            await asyncio.wait_for(running_first, 10)
            assert first.error is not None and first.error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_info(first.error).reason == "TOO_MANY_STREAMS"
            running_second.cancel()
    asyncio.run(main())
    documented = set(re.findall(r"\b[A-Z][A-Z_]{4,}\b", _session_rpc_doc()))
    assert {"TOO_MANY_STREAMS", "BAD_TOKEN", "MISSING_TOKEN", "MALFORMED", "SHUTTING_DOWN"} <= documented


def test_an_account_name_differing_only_in_case_is_taken_and_old_twins_keep_working(tmp_path: Path) -> None:
    db = tmp_path / "n.db"

    async def first() -> None:
        async with running(db) as server, client(server.port) as stub:
            await new_account(stub, "Bob")
            for twin in ("bob", "BOB", "bOb"):
                await refused(stub.CreateAccount(pb.CreateAccountRequest(name=twin), metadata=auth(ADMIN)),
                              grpc.StatusCode.ALREADY_EXISTS, "ACCOUNT_EXISTS")
            await refused(stub.RotateAccountToken(pb.RotateAccountTokenRequest(name="bob"), metadata=auth(ADMIN)),
                          grpc.StatusCode.NOT_FOUND, "UNKNOWN_ACCOUNT")  # names are matched exactly

    async def again() -> None:
        async with running(db) as server, client(server.port) as stub:
            listed = await stub.ListAccounts(pb.ListAccountsRequest(), metadata=auth(ADMIN))
            assert sorted(a.name for a in listed.accounts) == ["Bob", "bob"]
            for name in ("Bob", "bob"):
                rotated = await stub.RotateAccountToken(pb.RotateAccountTokenRequest(name=name), metadata=auth(ADMIN))
                assert (await welcome_of(stub, rotated.token)).account == name
            await refused(stub.CreateAccount(pb.CreateAccountRequest(name="BOB"), metadata=auth(ADMIN)),
                          grpc.StatusCode.ALREADY_EXISTS, "ACCOUNT_EXISTS")

    asyncio.run(first())
    with sqlite3.connect(db) as connection:  # a twin made before the rule, by an older server
        connection.execute("INSERT INTO accounts VALUES ('bob', 'old', x'00', 0, 0, 0, 0)")
    asyncio.run(again())


def test_not_admin_says_which_calls_need_the_admin_token(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "a.db") as server, client(server.port) as stub:
            token = await new_account(stub, "plain")
            try:
                await stub.ListAccounts(pb.ListAccountsRequest(), metadata=auth(token))
            except grpc.aio.AioRpcError as exc:
                assert exc.code() is grpc.StatusCode.PERMISSION_DENIED and error_info(exc).reason == "NOT_ADMIN"
                assert "manage accounts" in (exc.details() or ""), exc.details()
            else:
                raise AssertionError("ListAccounts took an account's token")
    asyncio.run(main())
