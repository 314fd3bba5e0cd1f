"""The SDK's Session client against a real server (a child process): many matches at once over one connection
per account, a slow bot that holds up no other match, faults reported, resume after a restart, refused tokens,
challenges, and the ``president-bot --account-token`` command."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from president_engine import Event, Fault, Observation, visible_to
from president_engine.events import MatchEnded
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk import Bot, RunnerError, builtin_bot
from president_sdk.challenge import Challenge
from president_sdk.session_client import FinishedMatch, SessionClient
from sdk_support import ADMIN, Server
from support import free_port

NAMES = ("north", "east", "south", "west")
FIRST_BOT = Path(__file__).resolve().parents[2] / "examples" / "python" / "first_bot.py"


def admin_stub(server: Server) -> tuple[grpc.Channel, pb_grpc.PresidentServiceStub]:
    channel = grpc.insecure_channel(server.address)
    return channel, pb_grpc.PresidentServiceStub(channel)


META = (("authorization", f"Bearer {ADMIN}"),)


def account(stub: pb_grpc.PresidentServiceStub, name: str) -> str:
    return str(stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="tests"), metadata=META).token)


def seat(stub: pb_grpc.PresidentServiceStub, accounts: list[str], *, deals: int = 1, move_ms: int = 0,
         seeds: list[int] | None = None, preset: str = "cardverse") -> str:
    created = stub.CreateMatch(pb.CreateMatchRequest(
        preset=preset, rules=pb.Rules(deals=deals), seat_accounts=accounts, bot_seeds=seeds or [],
        clock=pb.ClockSettings(move_time_limit_ms=move_ms, time_bank_ms=0, strikes_before_takeover=0)),
        metadata=META)
    return str(created.match_id)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("sessions") / "server.db", free_port())
    yield running
    running.stop()


class Recorder(Bot):
    """The easy level's moves; remembers every event seq it was handed and its seed."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.seqs: list[int] = []
        self.ended: MatchEnded | None = None

    def play(self, obs: Observation):  # type: ignore[no-untyped-def]
        return builtin_bot("easy").play(obs)

    def on_event(self, event: Event) -> None:
        self.seqs.append(self.raw.seq)

    def on_match_end(self, result: MatchEnded) -> None:
        self.ended = result


def play_until(clients: list[SessionClient], done: threading.Event | None = None, *,
               matches: int, timeout: float = 120) -> None:
    """Run the clients on one loop until each has finished `matches` matches."""
    async def main() -> None:
        tasks = [asyncio.create_task(c.run()) for c in clients]
        deadline = time.monotonic() + timeout
        try:
            while any(len(c.stats.finished) < matches for c in clients):
                for task in tasks:
                    if task.done():
                        task.result()
                assert time.monotonic() < deadline, [len(c.stats.finished) for c in clients]
                await asyncio.sleep(0.02)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    asyncio.run(main())


def test_four_accounts_play_six_matches_at_once_each_over_one_connection(server: Server) -> None:
    channel, stub = admin_stub(server)
    with channel:
        tokens = {name: account(stub, name) for name in NAMES}
        ids = [seat(stub, list(NAMES[i % 4:] + NAMES[:i % 4]), deals=2, seeds=[100 + i] * 4) for i in range(6)]
        bots: dict[str, list[Recorder]] = {name: [] for name in NAMES}

        def factory(name: str):  # type: ignore[no-untyped-def]
            def make(seed: int | None) -> Bot:
                bot = Recorder(seed)
                bots[name].append(bot)
                return bot
            return make

        clients = [SessionClient(factory(n), tokens[n], server=server.address, threaded=(n != "west"))
                   for n in NAMES]
        play_until(clients, matches=6)
        for client in clients:
            assert client.stats.live == 0
            assert sorted(f.match_id for f in client.stats.finished) == sorted(ids)
            assert all(not f.faults for f in client.stats.finished)
        assert {b.seed for b in bots["north"]} == {100 + i for i in range(6)}
        for match_id in ids:
            replay = stub.GetReplay(pb.GetReplayRequest(match_id=match_id)).replay
            match = convert.replay_from_proto(replay).replay()
            summary = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match
            for player in summary.players:
                mine = next(b for b in bots[player.account] if b.ended is not None and b.player == player.player
                            and b.seqs and _seen(match, player.player) == sorted(b.seqs))
                assert mine.ended == match.events[-1]


def _seen(match, player: int) -> list[int]:  # type: ignore[no-untyped-def]
    return [i + 1 for i, e in enumerate(match.events) if visible_to(e, player) is not None]


def test_a_slow_bot_holds_up_only_its_own_match(server: Server) -> None:
    """One bot thinks until another match of the same account is over: with one thread per decision that
    finishes; were the matches played one after another it would never end."""
    channel, stub = admin_stub(server)
    with channel:
        names = [f"slow{i}" for i in range(4)]
        tokens = {name: account(stub, name) for name in names}
        first = seat(stub, names)
        second = seat(stub, names)
        other_done = threading.Event()
        made: list[Bot] = []

        class Waits(Bot):
            def play(self, obs: Observation):  # type: ignore[no-untyped-def]
                if self.raw is not None and made and self is made[0]:
                    assert other_done.wait(60), "the other match never finished"
                return builtin_bot("easy").play(obs)

        def make(_seed: int | None) -> Bot:
            bot = Waits()
            made.append(bot)
            return bot

        def finished(match: FinishedMatch) -> None:
            other_done.set()

        slow = SessionClient(make, tokens[names[0]], server=server.address, on_finished=finished)
        others = [SessionClient(lambda _s: builtin_bot("easy"), tokens[n], server=server.address,
                                threaded=False) for n in names[1:]]
        play_until([slow, *others], matches=2, timeout=90)
        assert {f.match_id for f in slow.stats.finished} == {first, second}


class Sleeps(Bot):
    def play(self, obs: Observation):  # type: ignore[no-untyped-def]
        time.sleep(2.0)
        return builtin_bot("easy").play(obs)


def test_a_bot_too_slow_for_the_clock_is_replaced_and_the_timeout_reported(server: Server) -> None:
    channel, stub = admin_stub(server)
    with channel:
        names = [f"clock{i}" for i in range(4)]
        tokens = {name: account(stub, name) for name in names}
        match_id = seat(stub, names, move_ms=900)
        slow = SessionClient(lambda _s: Sleeps(), tokens[names[0]], server=server.address)
        others = [SessionClient(lambda _s: builtin_bot("normal"), tokens[n], server=server.address, threaded=False)
                  for n in names[1:]]
        play_until([slow, *others], matches=1, timeout=120)
        faults = slow.stats.finished[0].faults
        assert faults[Fault.TIMEOUT] >= 1 and "1 match finished" in slow.stats.summary()
        counted = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.players[0].faults
        # Each turn's fallback went in before the server's deadline (a time-out the client reports), unless the
        # machine was too slow for the margin, when the server's clock struck instead.
        assert counted.timeouts >= 1 and counted.timeouts <= faults[Fault.TIMEOUT] <= counted.timeouts + counted.strikes


def test_after_a_server_restart_every_match_resumes_from_its_last_event(tmp_path: Path) -> None:
    first = Server(tmp_path / "restart.db", free_port())
    channel, stub = admin_stub(first)
    with channel:
        names = [f"r{i}" for i in range(4)]
        tokens = {name: account(stub, name) for name in names}
        ids = {seat(stub, names, deals=3) for _ in range(3)}
    bots: list[Recorder] = []

    class SlowRecorder(Recorder):
        def play(self, obs: Observation):  # type: ignore[no-untyped-def]
            time.sleep(0.01)
            return super().play(obs)

    def make(seed: int | None) -> Bot:
        bot = SlowRecorder(seed)
        bots.append(bot)
        return bot

    clients = [SessionClient(make if n == "r0" else (lambda _s: builtin_bot("easy")), tokens[n],
                             server=first.address, retry_delays=(0.5, 1, 1, 2, 2, 4)) for n in names]
    outcome: list[BaseException | None] = []

    def play() -> None:
        try:
            play_until(clients, matches=3, timeout=120)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=play, daemon=True)
    worker.start()
    time.sleep(1.5)
    first.kill()
    second = Server(tmp_path / "restart.db", first.port)
    try:
        worker.join(150)
        assert outcome == [None]
        channel, stub = admin_stub(second)
        with channel:
            for match_id in ids:
                match = convert.replay_from_proto(stub.GetReplay(pb.GetReplayRequest(match_id=match_id)).replay)
                replayed = match.replay()
                mine = [b for b in bots if b.ended is not None and b.ended == replayed.events[-1]
                        and sorted(b.seqs) == _seen(replayed, 0)]
                assert len(mine) == 1, (match_id, _seen(replayed, 0), [(b.ended, b.seqs) for b in bots])
                assert len(mine[0].seqs) == len(set(mine[0].seqs))  # each event once, over both connections
    finally:
        second.stop()
    assert {f.match_id for f in clients[0].stats.finished} == ids


def test_a_revoked_account_ends_the_session_with_a_clear_error(server: Server) -> None:
    channel, stub = admin_stub(server)
    with channel:
        token = account(stub, "doomed")
        client = SessionClient(lambda _s: builtin_bot("easy"), token, server=server.address)

        async def main() -> None:
            task = asyncio.create_task(client.run())
            await asyncio.sleep(0.5)
            stub.RevokeAccount(pb.RevokeAccountRequest(name="doomed"), metadata=META)
            await asyncio.wait_for(task, 10)

        with pytest.raises(RunnerError, match=r"bad account token.*revoked") as caught:
            asyncio.run(main())
        assert caught.value.reason == "BAD_TOKEN"


def test_a_bad_token_and_an_unreachable_server_fail_at_once() -> None:
    started = time.monotonic()
    with pytest.raises(RunnerError, match="cannot reach") as caught:
        asyncio.run(SessionClient(lambda _s: builtin_bot("easy"), "t", server=f"127.0.0.1:{free_port()}",
                                  retry_delays=(5.0,)).run())
    assert caught.value.reason == "UNREACHABLE" and time.monotonic() - started < 4


def test_bad_token_is_named(server: Server) -> None:
    with pytest.raises(RunnerError, match="bad account token") as caught:
        asyncio.run(SessionClient(lambda _s: builtin_bot("easy"), "nope", server=server.address).run())
    assert caught.value.reason == "BAD_TOKEN"


class Picky(Bot):
    """Plays easy; accepts challenges from 'friend' only."""

    def play(self, obs: Observation):  # type: ignore[no-untyped-def]
        return builtin_bot("easy").play(obs)

    def accept_challenge(self, challenge: Challenge) -> bool:
        return challenge.challenger == "friend" and challenge.rules.players == 3


def test_challenges_are_answered_by_the_bot_hook(server: Server) -> None:
    channel, stub = admin_stub(server)
    with channel:
        tokens = {name: account(stub, name) for name in ("friend", "stranger", "picky", "keen")}
        picky = SessionClient(lambda _s: Picky(), tokens["picky"], server=server.address)
        keen = SessionClient(lambda _s: builtin_bot("easy"), tokens["keen"], server=server.address,
                             accept_challenges=True)

        async def challenge(token: str) -> pb.ChallengeSettled:
            async with grpc.aio.insecure_channel(server.address) as aio:
                call = pb_grpc.PresidentServiceStub(aio).Session(metadata=(("authorization", f"Bearer {token}"),))
                await call.write(pb.SessionRequest(hello=pb.SessionHello()))
                await call.write(pb.SessionRequest(challenge=pb.ChallengeRequest(
                    opponents=["picky", "keen"], preset="cardverse", rules=pb.Rules(players=3))))
                while True:
                    response = await call.read()
                    if response.HasField("settled"):
                        call.cancel()
                        return response.settled
                    if response.HasField("match"):
                        for message in response.match.messages:
                            if message.HasField("prompt"):
                                await call.write(pb.SessionRequest(act=pb.MatchAct(
                                    match_id=response.match.match_id, act=pb.Act(
                                        turn_id=message.prompt.turn_id, action=message.prompt.legal_actions[0]))))

        async def main() -> tuple[pb.ChallengeSettled, pb.ChallengeSettled]:
            tasks = [asyncio.create_task(picky.run()), asyncio.create_task(keen.run())]
            await asyncio.sleep(0.5)
            try:
                return await challenge(tokens["stranger"]), await challenge(tokens["friend"])
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

        declined, accepted = asyncio.run(main())
        assert not declined.accepted and "picky declined" in declined.reason
        assert accepted.accepted and accepted.match_id


def test_president_bot_plays_an_accounts_matches_until_interrupted(server: Server, tmp_path: Path) -> None:
    channel, stub = admin_stub(server)
    with channel:
        names = [f"cli{i}" for i in range(4)]
        tokens = {name: account(stub, name) for name in names}
        ids = {seat(stub, names) for _ in range(3)}
        bot = subprocess.Popen(
            [sys.executable, "-m", "president_sdk.bot_cli", str(FIRST_BOT), "--server", server.address, "-q"],
            env=dict(os.environ, PRESIDENT_ACCOUNT_TOKEN=tokens["cli0"]), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        try:
            others = [SessionClient(lambda _s: builtin_bot("hard"), tokens[n], server=server.address,
                                    threaded=False) for n in names[1:]]
            play_until(others, matches=3, timeout=90)
            time.sleep(0.5)
        finally:
            bot.send_signal(signal.SIGINT)
            out, err = bot.communicate(timeout=30)
        assert bot.returncode == 0, err
        lines = out.strip().splitlines()
        assert {line.split(":")[0].removeprefix("match ") for line in lines[:-1]} == ids
        assert all("FirstBot (player 0)" in line and "no faults" in line for line in lines[:-1])
        assert lines[-1].startswith("cli0: 3 matches finished (") and "0 in play; no faults" in lines[-1]
        assert "Traceback" not in err


def test_president_bot_is_told_when_the_server_runs_without_the_arena(server: Server) -> None:
    """A bot waiting for its check match on a server without the arena hears at once that none will come
    (the server here runs without it), instead of waiting for ever."""
    channel, stub = admin_stub(server)
    with channel:
        token = account(stub, "no-arena")
    bot = subprocess.Popen([sys.executable, "-m", "president_sdk.bot_cli", "builtin:easy", "--server", server.address,
                            "--arena", "-q"], env=dict(os.environ, PRESIDENT_ACCOUNT_TOKEN=token),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    heard: list[str] = []

    def read() -> None:
        assert bot.stderr is not None
        for line in bot.stderr:
            heard.append(line)
            if "without the arena" in line:
                return
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(30)
    bot.send_signal(signal.SIGINT)
    bot.communicate(timeout=30)
    said = [line for line in heard if "without the arena" in line]
    assert said and "account no-arena: 0 live matches; this server runs without the arena: no check match or arena" \
        " match will come here, only challenges and the organiser's matches and tournaments" in said[0], heard
    assert not any("a check match against the house bots comes first" in line for line in heard), heard


def test_president_bot_refuses_a_bad_account_token_in_one_line(server: Server) -> None:
    done = subprocess.run([sys.executable, "-m", "president_sdk.bot_cli", "builtin:easy", "--server",
                           server.address, "--account-token", "wrong"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"president-bot: bad account token: {server.address} refuses it: this token is not an account's"
        " (or it was rotated)"]


def test_a_bot_hears_of_the_end_once_when_match_over_comes_in_a_later_update() -> None:
    """A scripted server sends the MatchEnded event in one update and MatchOver in the next (as after a restart
    that fell between them): the bot's on_event and on_match_end run once each, with the event's own seq."""
    from president_engine import Rules

    result = MatchEnded(winner=1, totals=(1, 3, 2, 0), last_places=(3,))
    welcome = pb.PlayResponse(welcome=pb.Welcome(match_id="m1", player=0, names=list(NAMES),
                                                 rules=convert.rules_to_proto(Rules())))
    caught_up = pb.PlayResponse(snapshot=pb.Snapshot(last_seq=6))
    ended = pb.PlayResponse(event=pb.Event(seq=7, match_ended=convert.match_result_to_proto(result)))
    over = pb.PlayResponse(match_over=pb.MatchOver(result=convert.match_result_to_proto(result)))

    class Scripted(pb_grpc.PresidentServiceServicer):
        async def Session(self, requests, context):  # type: ignore[no-untyped-def]  # noqa: N802
            await anext(aiter(requests))
            yield pb.SessionResponse(welcome=pb.SessionWelcome(account="a", live_matches=["m1"]))
            yield pb.SessionResponse(match=pb.MatchUpdate(match_id="m1", messages=[welcome, caught_up, ended]))
            yield pb.SessionResponse(match=pb.MatchUpdate(match_id="m1", messages=[over]))
            await asyncio.Event().wait()

    class Counting(Recorder):
        ends = 0

        def on_match_end(self, result: MatchEnded) -> None:
            self.ends += 1
            super().on_match_end(result)

    bots: list[Counting] = []

    def make(_seed: int | None) -> Bot:
        bots.append(Counting())
        return bots[-1]

    async def main() -> None:
        server = grpc.aio.server()
        pb_grpc.add_PresidentServiceServicer_to_server(Scripted(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            client = SessionClient(make, "token", server=f"127.0.0.1:{port}")
            task = asyncio.create_task(client.run())
            for _ in range(500):
                if client.stats.finished:
                    break
                await asyncio.sleep(0.01)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        finally:
            await server.stop(None)

    asyncio.run(main())
    assert [(b.seqs, b.ends, b.ended) for b in bots] == [([7], 1, result)]
