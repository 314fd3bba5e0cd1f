"""Play a `Bot` for one seat of a match on a President server: ``run(bot, server, token)``.

The runner speaks the bidirectional ``Play`` stream (protos/president/v1),
with the seat token in the ``authorization: Bearer`` metadata.  It turns each
prompt into the engine's `Observation` (`president_protocol.convert`), asks the bot
(`guard.decide`: a bot that raises, runs past the deadline or answers
illegally gets an error in its log and a safe action is sent), hands it every
event it may see, and returns the match result.  When the connection drops
it reconnects and resumes after the last event it saw.  Its Hello gives the
bot's name, which a seat created without one shows.  A match that was over
before the bot first connected is not the bot's result: the runner raises
`MatchAlreadyOverError` instead, having handed the bot none of its events.  The message behind
the current call is in ``bot.raw`` for authors who want the protobuf.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import grpc
from president_engine import Action, Event, Fault, Observation, Rules, fallback_action
from president_engine.events import MatchEnded
from president_engine.narrate import counted
from president_protocol import convert
from president_protocol.names import MAX_NAME_CHARS, is_display_name
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_sdk.bot import Bot
from president_sdk.guard import decide

log = logging.getLogger("president.runner")

DEFAULT_SERVER = "localhost:50051"
SAFETY_MARGIN_S = 0.25
"""Time kept back from the server's deadline for the answer to travel."""
RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Waits between reconnection attempts; the runner gives up after the last."""


"""How a replaced answer is reported to the server (Act.fault)."""


class RunnerError(RuntimeError):
    """The runner cannot go on: bad token, match over, server gone, refused stream."""

    def __init__(self, message: str, *, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        """The server's ErrorReason name (e.g. "BAD_TOKEN"), or "" when it gave none."""


class MatchAlreadyOverError(RunnerError):
    """The match was over before this runner first connected: the bot played nothing, so it has no result."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"match {match_id} was already over when this bot connected; nothing to play",
                         reason="ALREADY_OVER")
        self.match_id = match_id


@dataclass(kw_only=True)
class _Seat:
    """What the runner knows between connections."""

    last_seq: int = 0
    rules: Rules | None = None
    player: int = -1
    result: MatchEnded | None = None
    welcomed: bool = False
    """Set by each Welcome: the connection worked, so retries start over."""
    ever_welcomed: bool = False
    """Some connection worked: an unreachable server is then a dropped connection, not a wrong address."""
    match_id: str = ""
    shown_as: str = ""
    """The seat's name in the match (Welcome.names)."""
    caught_up: bool = False
    """Set by the first Snapshot: the events before it are the past of the match as it was on connecting."""
    past: list[tuple[pb.Event, Event]] = field(default_factory=list)
    """Those events, held back until the first Snapshot says whether the match was over before the bot came."""
    answered: dict[int, tuple[Action, pb.BotFault.ValueType]] = field(default_factory=dict)
    """Acts sent (action and reported fault), by turn id: a prompt repeated after a resume gets the same answer."""
    prompts: dict[int, Observation] = field(default_factory=dict)


def run(bot: Bot, server: str = DEFAULT_SERVER, token: str = "", *, tls: bool = False,
        root_certificates: bytes | None = None, move_timeout: float | None = None,
        retry_delays: Sequence[float] = RETRY_DELAYS_S, cancel: threading.Event | None = None,
        name: str | None = None) -> MatchEnded:
    """Play the seat of `token` on `server` ("host:port") with `bot` until the match ends.

    move_timeout: seconds the bot may think when the server sets no deadline
    (default: no limit).  retry_delays: the waits between reconnection
    attempts after a dropped connection.  cancel: set it (from another
    thread) to leave the match at once.  name: what a seat created without a
    name shows (default: ``bot.name``, cut to the contract's 64 characters).
    Returns the result; raises `RunnerError` with a clear message when the
    runner cannot go on (reason "CANCELLED" after `cancel`), and
    `MatchAlreadyOverError` for a match that was over before it first connected.
    """
    if not token:
        raise RunnerError("no seat token given", reason="MISSING_TOKEN")
    if name is None:
        name = bot.name[:MAX_NAME_CHARS] if bot.name.isprintable() else ""
    else:
        check_name(name)
    seat = _Seat()
    delays = iter(retry_delays)
    while True:
        credentials = grpc.ssl_channel_credentials(root_certificates) if tls else None
        with (grpc.secure_channel(server, credentials) if credentials else grpc.insecure_channel(server)) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            try:
                _stream(bot, stub, token, name, seat, move_timeout, cancel)
                if seat.result is None:
                    raise RunnerError("the server ended the stream before the match was over")
                return seat.result
            except grpc.RpcError as exc:
                if seat.result is not None:
                    return seat.result
                if cancel is not None and cancel.is_set():
                    raise RunnerError("left the match: cancelled", reason="CANCELLED") from None
                reason, message = rpc_error(exc)
                code = exc.code() if isinstance(exc, grpc.Call) else None
                if code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                                grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
                    raise RunnerError(_explain(reason, message, server), reason=reason) from None
                if not seat.ever_welcomed and code is grpc.StatusCode.UNAVAILABLE and not reason:
                    raise RunnerError(f"cannot reach {server}: is the server running, and is the address right?",
                                      reason="UNREACHABLE") from None
                if seat.welcomed:
                    seat.welcomed = False
                    delays = iter(retry_delays)
                delay = next(delays, None)
                if delay is None:
                    raise RunnerError(f"server gone: cannot reach {server} ({message})", reason=reason) from None
                log.warning("connection to %s lost (%s); reconnecting in %g s from event %d",
                            server, message, delay, seat.last_seq)
                time.sleep(delay)


def check_name(name: str) -> None:
    """RunnerError (reason MALFORMED) for a name the server would refuse, before connecting."""
    if not is_display_name(name):
        shown = repr(name if len(name) <= 32 else name[:32] + "...")
        raise RunnerError(f"a name is at most {MAX_NAME_CHARS} printable characters, not {shown}", reason="MALFORMED")


def _stream(bot: Bot, stub: pb_grpc.PresidentServiceStub, token: str, name: str, seat: _Seat,
            move_timeout: float | None, cancel: threading.Event | None) -> None:
    outbox: queue.Queue[pb.PlayRequest | None] = queue.Queue()

    def requests() -> Iterator[pb.PlayRequest]:
        while (item := outbox.get()) is not None:
            yield item

    outbox.put(pb.PlayRequest(hello=pb.Hello(last_seq=seat.last_seq, name=name)))
    sent_here: set[int] = set()
    """Turns answered on this connection: the server may prompt again (e.g. when its clock starts)."""
    responses = stub.Play(requests(), metadata=(("authorization", f"Bearer {token}"),))
    if cancel is not None:
        def watch() -> None:
            cancel.wait()
            responses.cancel()

        threading.Thread(target=watch, name="president-cancel", daemon=True).start()
    try:
        for msg in responses:
            kind = msg.WhichOneof("kind")
            if kind == "welcome":
                seat.rules = convert.rules_from_proto(msg.welcome.rules)
                seat.player = msg.welcome.player
                seat.welcomed = seat.ever_welcomed = True
                seat.match_id = msg.welcome.match_id
                seat.shown_as = msg.welcome.names[seat.player] if len(msg.welcome.names) > seat.player else "?"
                bot.raw = msg.welcome
                try:
                    bot.seat(seat.player, seat.rules)
                except Exception as exc:  # a bot that refuses these rules: none of its moves could stand in
                    raise RunnerError(f"{bot.name} (player {seat.player}) cannot play these rules: {exc}") from exc
            elif kind == "snapshot":
                seat.last_seq = max(seat.last_seq, msg.snapshot.last_seq)
                if not seat.caught_up:
                    _catch_up(bot, seat, msg.snapshot)
            elif kind == "event":
                _event(bot, seat, msg.event)
            elif kind == "prompt":
                if msg.prompt.turn_id not in sent_here:
                    sent_here.add(msg.prompt.turn_id)
                    outbox.put(_answer(bot, seat, msg.prompt, move_timeout))
            elif kind == "action_rejected":
                retry = _rejected(bot, seat, msg.action_rejected)
                if retry is not None:
                    outbox.put(retry)
            elif kind == "match_over":
                result = convert.match_result_from_proto(msg.match_over.result)
                if seat.result is None:
                    seat.result = result
                    bot.raw = msg.match_over
                    _hook(bot, result)
                log.info("match over: player %d wins; %s finished %s", result.winner, bot.name,
                         _place(result, seat.player))
    finally:
        outbox.put(None)
        responses.cancel()


def _event(bot: Bot, seat: _Seat, msg: pb.Event) -> None:
    if msg.seq <= seat.last_seq:
        return  # already seen before a reconnection
    seat.last_seq = msg.seq
    event = convert.event_from_proto(msg)
    if event is None:
        return
    if not seat.caught_up:
        seat.past.append((msg, event))
        return
    _deliver(bot, seat, msg, event)


def _catch_up(bot: Bot, seat: _Seat, snapshot: pb.Snapshot) -> None:
    """The first Snapshot: a match already over when the bot came is none of its business (MatchAlreadyOverError);
    otherwise the bot gets the past it missed, then plays on."""
    seat.caught_up = True
    if snapshot.observation.phase == pb.PHASE_OVER:
        raise MatchAlreadyOverError(seat.match_id)
    log.info("%s plays player %d (%s) in match %s", bot.name, seat.player, seat.shown_as, seat.match_id)
    past, seat.past = seat.past, []
    for msg, event in past:
        _deliver(bot, seat, msg, event)


def _deliver(bot: Bot, seat: _Seat, msg: pb.Event, event: Event) -> None:
    bot.raw = msg
    if isinstance(event, MatchEnded):
        if seat.result is not None:
            return
        seat.result = event
    _hook(bot, event)


def _hook(bot: Bot, event: Event) -> None:
    """Events go to the bot's hooks; a hook that raises is logged, never fatal."""
    try:
        bot.notify(event)
    except Exception:
        bot.log.exception("%s raised in an event hook (ignored)", bot.name)


def _answer(bot: Bot, seat: _Seat, prompt: pb.Prompt, move_timeout: float | None) -> pb.PlayRequest:
    assert seat.rules is not None, "a prompt before Welcome"
    turn = prompt.turn_id
    sent = seat.answered.get(turn)
    if sent is None:
        obs = convert.prompt_from_proto(prompt, seat.rules)
        bot.raw = prompt
        timeout = move_timeout
        if prompt.HasField("deadline"):
            timeout = max(0.05, prompt.deadline.ToNanoseconds() / 1e9 - time.time() - SAFETY_MARGIN_S)
        decision = decide(bot, obs, timeout=timeout)
        sent = decision.action, convert.fault_to_proto(decision.fault)
        seat.answered = {turn: sent}
        seat.prompts = {turn: obs}
    action, fault = sent
    return pb.PlayRequest(act=pb.Act(turn_id=turn, action=convert.action_to_proto(action), fault=fault))


def _rejected(bot: Bot, seat: _Seat, msg: pb.ActionRejected) -> pb.PlayRequest | None:
    """The server refused an answer: log it in the bot's output; send the fallback action once."""
    obs = seat.prompts.get(msg.turn_id)
    answered = seat.answered.get(msg.turn_id)
    sent = None if answered is None else answered[0]
    bot.log.error("%s: the server refused %s for turn %d: %s %s %s", bot.name, sent, msg.turn_id,
                  msg.reason, msg.illegal_reason, msg.message)
    if obs is None or msg.error_reason != pb.ERROR_REASON_ILLEGAL_ACTION:
        return None
    fallback = fallback_action(obs.legal_actions)
    if fallback == sent:
        return None
    seat.answered[msg.turn_id] = fallback, pb.BOT_FAULT_UNSPECIFIED  # the server counted its refusal itself
    bot.log.error("%s: playing %s instead", bot.name, fallback)
    bot.faults[Fault.INVALID] += 1
    return pb.PlayRequest(act=pb.Act(turn_id=msg.turn_id, action=convert.action_to_proto(fallback)))


def _place(result: MatchEnded, player: int) -> str:
    if player in result.last_places:
        place = result.last_places.index(player) + 1
        return f"place {place} in the last deal, {counted(result.totals[player], 'point')}"
    return "?"


def rpc_error(exc: grpc.RpcError) -> tuple[str, str]:
    """(ErrorInfo reason, message) of a failed call, blocking or asyncio."""
    refusal = read_refusal(exc)
    return refusal.reason, refusal.message


def _explain(reason: str, message: str, server: str) -> str:
    if reason == "BAD_TOKEN":
        return f"bad token: {server} does not know this seat token ({message})"
    if reason == "MISSING_TOKEN":
        return f"no seat token was sent ({message})"
    if reason == "MATCH_OVER":
        return f"the match is over ({message})"
    if reason == "TOO_MANY_STREAMS":
        return f"this seat is already being played from elsewhere ({message})"
    return f"the server refused the stream: {reason or 'error'}: {message}"
