"""The seat protocol, one suite run over each transport: the per-seat ``Play`` stream (`run`) and the account's
``Session`` (`SessionClient`) against one scripted server, which sends a seat's messages, waits for its acts and
drops the connection where a case says.  Both transports drive the same `Seat`; these cases are what it promises."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any, Literal

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from president_engine import Event, Match, Observation, Rules, fallback_action
from president_engine.events import MatchEnded
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk import Bot, run
from president_sdk.session_client import SessionClient

Transport = Literal["play", "session"]
TRANSPORTS: tuple[Transport, ...] = ("play", "session")
ACT = "act"
"""A step: wait for the client's next act and record it."""
DROP = "drop"
"""A step: end the call with UNAVAILABLE, as a server going away does."""
Step = pb.PlayResponse | str

RULES = Rules.preset("cardverse")
RESULT = MatchEnded(winner=1, totals=(1, 3, 2, 0), last_places=(1, 2, 3, 0))


MATCH = Match(RULES, seed=3)
assert MATCH.to_act is not None
OBS = MATCH.observation(MATCH.to_act)
PLAYER = OBS.player
WELCOME = pb.PlayResponse(welcome=pb.Welcome(match_id="m1", player=PLAYER, names=["a", "b", "c", "d"],
                                             rules=convert.rules_to_proto(RULES)))
SNAPSHOT = pb.PlayResponse(snapshot=pb.Snapshot(observation=convert.observation_to_proto(OBS), last_seq=2))
PROMPT = pb.PlayResponse(prompt=convert.prompt_to_proto(5, OBS))
ENDED = pb.PlayResponse(event=pb.Event(seq=3, match_ended=convert.match_result_to_proto(RESULT)))
OVER = pb.PlayResponse(match_over=pb.MatchOver(result=convert.match_result_to_proto(RESULT)))


@dataclass
class Scripted(pb_grpc.PresidentServiceServicer):
    """Each connection plays the next list of steps; then a Play stream ends (as after MatchOver) and a Session
    waits for the client to go."""

    connections: list[list[Step]]
    acts: list[pb.Act] = field(default_factory=list)
    hellos: list[int] = field(default_factory=list)
    """The last_seq each connection resumed from."""

    def Play(self, requests: Iterator[pb.PlayRequest], context: grpc.ServicerContext) -> Iterator[pb.PlayResponse]:  # noqa: N802
        self.hellos.append(next(requests).hello.last_seq)
        for step in self._steps(context):
            if isinstance(step, pb.PlayResponse):
                yield step
            else:
                self.acts.append(next(requests).act)

    def Session(self, requests: Iterator[pb.SessionRequest],  # noqa: N802
                context: grpc.ServicerContext) -> Iterator[pb.SessionResponse]:
        cursors = next(requests).hello.resume
        self.hellos.append(cursors[0].last_seq if cursors else 0)
        yield pb.SessionResponse(welcome=pb.SessionWelcome(account="a", live_matches=["m1"]))
        for step in self._steps(context):
            if isinstance(step, pb.PlayResponse):
                yield pb.SessionResponse(match=pb.MatchUpdate(match_id="m1", messages=[step]))
            else:
                self.acts.append(next(requests).act.act)
        for _ in requests:
            pass

    def _steps(self, context: grpc.ServicerContext) -> Iterator[Step]:
        if not self.connections:
            context.abort(grpc.StatusCode.UNAVAILABLE, "no more connections in the script")
        for step in self.connections.pop(0):
            if step == DROP:
                context.abort(grpc.StatusCode.UNAVAILABLE, "dropped")
            yield step


class Recorder(Bot):
    """Plays the last legal action (not the fallback); counts its decisions and remembers its hooks' calls."""

    def __init__(self) -> None:
        self.decisions = 0
        self.events: list[tuple[int, Event]] = []
        self.ends: list[MatchEnded] = []

    def play(self, obs: Observation):  # type: ignore[no-untyped-def]
        self.decisions += 1
        return obs.legal_actions[-1]

    def on_event(self, event: Event) -> None:
        self.events.append((getattr(self.raw, "seq", -1), event))

    def on_match_end(self, result: MatchEnded) -> None:
        self.ends.append(result)


def play(transport: Transport, script: list[list[Step]], bot: Bot) -> tuple[Scripted, Any]:
    """Play the script's seat with `bot` over `transport`: the server and the result (or the error raised)."""
    scripted = Scripted(script)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_PresidentServiceServicer_to_server(scripted, server)
    address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    try:
        if transport == "play":
            try:
                return scripted, run(bot, address, "seat-token", retry_delays=(0.2, 0.2, 0.2))
            except Exception as exc:
                return scripted, exc
        return scripted, asyncio.run(_session(bot, address))
    finally:
        server.stop(None)


async def _session(bot: Bot, address: str) -> Any:
    client = SessionClient(lambda _seed: bot, "account-token", server=address, retry_delays=(0.2, 0.2, 0.2))
    task = asyncio.create_task(client.run())
    try:
        for _ in range(1000):
            if client.stats.finished:
                return client.stats.finished[0].result
            if task.done():
                return task.exception()
            await asyncio.sleep(0.01)
        raise AssertionError("the session client never finished the match")
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_match_is_played_and_its_end_heard_once(transport: Transport) -> None:
    bot = Recorder()
    scripted, result = play(transport, [[WELCOME, SNAPSHOT, PROMPT, ACT, ENDED, OVER]], bot)
    assert result == RESULT
    assert [convert.action_from_proto(a.action) for a in scripted.acts] == [OBS.legal_actions[-1]]
    assert bot.decisions == 1 and bot.ends == [RESULT] and bot.events == [(3, RESULT)]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_end_is_heard_once_when_match_over_comes_on_the_next_connection(transport: Transport) -> None:
    bot = Recorder()
    _, result = play(transport, [[WELCOME, SNAPSHOT, ENDED, DROP], [WELCOME, SNAPSHOT, OVER]], bot)
    assert result == RESULT and bot.ends == [RESULT] and bot.events == [(3, RESULT)]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_prompt_repeated_after_a_reconnection_gets_the_answer_already_given(transport: Transport) -> None:
    bot = Recorder()
    scripted, result = play(transport, [[WELCOME, SNAPSHOT, PROMPT, ACT, DROP],
                                        [WELCOME, SNAPSHOT, PROMPT, ACT, ENDED, OVER]], bot)
    assert result == RESULT
    assert bot.decisions == 1 and scripted.acts[0] == scripted.acts[1]
    assert scripted.hellos == [0, 2]  # the second connection resumes after the last event seen


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_prompt_repeated_on_the_same_connection_is_answered_once(transport: Transport) -> None:
    """The server prompts again when its clock starts; the client has answered already and says nothing."""
    bot = Recorder()
    scripted, result = play(transport, [[WELCOME, SNAPSHOT, PROMPT, ACT, PROMPT, ENDED, OVER]], bot)
    assert result == RESULT and bot.decisions == 1 and len(scripted.acts) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_act_refused_as_illegal_is_replaced_by_the_fallback_once(transport: Transport,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    refused = pb.PlayResponse(action_rejected=pb.ActionRejected(
        turn_id=5, error_reason=pb.ERROR_REASON_ILLEGAL_ACTION, message="not now"))
    bot = Recorder()
    scripted, result = play(transport, [[WELCOME, SNAPSHOT, PROMPT, ACT, refused, ACT, refused, ENDED, OVER]], bot)
    assert result == RESULT
    fallback = fallback_action(OBS.legal_actions)
    assert [convert.action_from_proto(a.action) for a in scripted.acts] == [OBS.legal_actions[-1], fallback]
    assert scripted.acts[1].fault == pb.BOT_FAULT_UNSPECIFIED  # the server counted its refusal itself
    assert sum(bot.faults.values()) == 1
    assert "the server refused" in caplog.text and f"playing {fallback} instead" in caplog.text


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_bot_that_raises_is_replaced_and_the_fault_reported(transport: Transport) -> None:
    class Raises(Recorder):
        def play(self, obs: Observation):  # type: ignore[no-untyped-def]
            raise ValueError("no idea")

    bot = Raises()
    scripted, result = play(transport, [[WELCOME, SNAPSHOT, PROMPT, ACT, ENDED, OVER]], bot)
    assert result == RESULT
    assert scripted.acts[0].fault == pb.BOT_FAULT_ERROR
    assert convert.action_from_proto(scripted.acts[0].action) == fallback_action(OBS.legal_actions)


def _timed_out(transport: Transport, timed: list[Step]) -> pb.Act:
    """The act sent for turn 5 by a bot that thinks until it is told to stop, under the deadline that `timed`
    (messages between the snapshot and the act) sets."""
    release = threading.Event()

    class Hangs(Recorder):
        def play(self, obs: Observation):  # type: ignore[no-untyped-def]
            release.wait(30)
            return super().play(obs)

    try:
        scripted, result = play(transport, [[WELCOME, SNAPSHOT, *timed, ACT, ENDED, OVER]], Hangs())
    finally:
        release.set()
    assert result == RESULT
    return scripted.acts[0]


def _in_two_seconds() -> Timestamp:
    deadline = Timestamp()
    deadline.FromNanoseconds(time.time_ns() + 2_000_000_000)
    return deadline


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_bot_past_the_prompts_deadline_is_replaced_in_time(transport: Transport) -> None:
    prompt = pb.PlayResponse(prompt=convert.prompt_to_proto(5, OBS, deadline=_in_two_seconds()))
    assert _timed_out(transport, [prompt]).fault == pb.BOT_FAULT_TIMEOUT


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_turn_deadline_after_the_prompt_bounds_the_decision_under_way(transport: Transport) -> None:
    """The server's clock started after its prompt (a seat was missing): the TurnDeadline that follows sets the
    deadline of the decision already under way."""
    clock = pb.PlayResponse(turn_deadline=pb.TurnDeadline(turn_id=5, deadline=_in_two_seconds()))
    assert _timed_out(transport, [PROMPT, clock]).fault == pb.BOT_FAULT_TIMEOUT


def test_a_turn_deadline_read_ahead_of_its_prompt_is_kept() -> None:
    """A reader thread may hand the seat a TurnDeadline before the prompt it follows: the prompt, which carries
    no deadline, keeps it; the next turn's prompt starts without one."""
    from president_sdk.seat import Seat

    seat = Seat()
    seat.welcome(WELCOME.welcome)
    seat.turn_deadline(pb.TurnDeadline(turn_id=5, deadline=_in_two_seconds()))
    assert isinstance(seat.prompt(PROMPT.prompt), Observation)
    assert seat.deadline is not None and seat.timeout(time.time(), None) is not None
    later = pb.Prompt()
    later.CopyFrom(PROMPT.prompt)
    later.turn_id = 6
    seat.prompt(later)
    assert seat.deadline is None and seat.timeout(time.time(), None) is None
