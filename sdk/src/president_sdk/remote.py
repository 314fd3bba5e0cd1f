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

import atexit
import gc
import logging
import queue
import threading
import time
from collections.abc import Iterator, Sequence

import grpc
from president_engine import Observation
from president_engine.events import MatchEnded
from president_engine.narrate import counted
from president_protocol import convert
from president_protocol.names import MAX_NAME_CHARS, is_display_name
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_sdk.bot import Bot, listens
from president_sdk.connection import DEFAULT_SERVER, RETRY_DELAYS_S, Reconnection, rpc_error
from president_sdk.guard import Decision, notify_all, outcome, think
from president_sdk.runner_errors import RunnerError
from president_sdk.seat import Seat, seat_bot

log = logging.getLogger("president.runner")

READER_JOIN_S = 10.0
"""How long a finished stream waits for its reader thread, which the cancelled call ends at once."""
CANCEL_POLL_S = 0.5
"""How often a `cancel` watcher looks whether its stream has ended, so that it ends with it."""

# A failed call is an exception that its own traceback keeps alive, so only the collector frees it, and its __del__
# takes the call's lock.  Collected at interpreter exit, once gRPC's daemon threads are frozen (one may be frozen
# holding that lock), it deadlocks the exit; collected at exit, before they freeze, it waits for them.
atexit.register(gc.collect)


def run(bot: Bot, server: str = DEFAULT_SERVER, token: str = "", *, tls: bool = False,
        root_certificates: bytes | None = None, move_timeout: float | None = None,
        retry_delays: Sequence[float] = RETRY_DELAYS_S, cancel: threading.Event | None = None,
        name: str | None = None, names: list[str] | None = None) -> MatchEnded:
    """Play the seat of `token` on `server` ("host:port") with `bot` until the match ends.

    move_timeout: seconds the bot may think when the server sets no deadline
    (default: no limit).  retry_delays: the waits between reconnection
    attempts after a dropped connection.  cancel: set it (from another
    thread) to leave the match at once.  name: what a seat created without a
    name shows (default: ``bot.name``, cut to the contract's 64 characters).
    names: a list the seats' names (Welcome.names) are put in, for saying who won.
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
    seat = Seat(listens=listens(bot))
    reconnection = Reconnection(server, "seat", retry_delays)
    while True:
        credentials = grpc.ssl_channel_credentials(root_certificates) if tls else None
        with (grpc.secure_channel(server, credentials) if credentials else grpc.insecure_channel(server)) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            try:
                _stream(bot, stub, token, name, seat, reconnection, move_timeout, cancel)
                if seat.result is None:
                    raise RunnerError("the server ended the stream before the match was over")
                if names is not None:
                    names[:] = seat.names
                return seat.result
            except grpc.RpcError as exc:
                if seat.result is not None:
                    if names is not None:
                        names[:] = seat.names
                    return seat.result
                if cancel is not None and cancel.is_set():
                    raise RunnerError("left the match: cancelled", reason="CANCELLED") from None
                reason, message = rpc_error(exc)
                code = exc.code() if isinstance(exc, grpc.Call) else None
                delay = reconnection.after(code, reason, message)
                log.warning("connection to %s lost (%s); reconnecting in %g s from event %d",
                            server, message, delay, seat.last_seq)
                time.sleep(delay)


def check_name(name: str) -> None:
    """RunnerError (reason MALFORMED) for a name the server would refuse, before connecting."""
    if not is_display_name(name):
        shown = repr(name if len(name) <= 32 else name[:32] + "...")
        raise RunnerError(f"a name is at most {MAX_NAME_CHARS} printable characters, not {shown}", reason="MALFORMED")


def _stream(bot: Bot, stub: pb_grpc.PresidentServiceStub, token: str, name: str, seat: Seat,
            reconnection: Reconnection, move_timeout: float | None, cancel: threading.Event | None) -> None:
    """One connection: Hello, then the seat's messages until the match is over or the call fails.

    A reader thread takes the messages off the call, so that a TurnDeadline arriving while the bot thinks
    sets the deadline of that decision (as on a Session); the bot's hooks run here, between messages."""
    outbox: queue.Queue[pb.PlayRequest | None] = queue.Queue()
    inbox: queue.Queue[pb.PlayResponse | BaseException | None] = queue.Queue()
    wake = threading.Event()
    """Set when the open decision is done or its deadline moved."""

    def requests() -> Iterator[pb.PlayRequest]:
        while (item := outbox.get()) is not None:
            yield item

    seat.connected()
    outbox.put(pb.PlayRequest(hello=pb.Hello(last_seq=seat.last_seq, name=name)))
    responses = stub.Play(requests(), metadata=(("authorization", f"Bearer {token}"),))

    def read() -> None:
        try:
            for msg in responses:
                if msg.HasField("turn_deadline"):  # seen here, not behind the decision it is for
                    seat.turn_deadline(msg.turn_deadline)
                    wake.set()
                inbox.put(msg)
            inbox.put(None)
        except BaseException as exc:  # raised where the messages are handled, so the stream never hangs
            inbox.put(exc)

    reader = threading.Thread(target=read, name="president-play-reader", daemon=True)
    reader.start()
    ended = threading.Event()
    if cancel is not None:
        def watch() -> None:
            while not ended.is_set():
                if cancel.wait(CANCEL_POLL_S):
                    responses.cancel()
                    return

        threading.Thread(target=watch, name="president-cancel", daemon=True).start()
    try:
        while (msg := inbox.get()) is not None:
            if isinstance(msg, BaseException):
                raise msg
            kind = msg.WhichOneof("kind")
            if kind == "welcome":
                reconnection.welcomed()
                seat.welcome(msg.welcome)
                bot.raw = msg.welcome
                seat_bot(bot, seat)
            elif kind == "snapshot":
                first = not seat.caught_up
                seat.snapshot(msg.snapshot)
                if first:
                    log.info("%s plays player %d (%s) in match %s", bot.name, seat.player, _shown_as(seat),
                             seat.match_id)
            elif kind == "event":
                seat.event(msg.event)
            elif kind == "prompt":
                asked = seat.prompt(msg.prompt)
                if isinstance(asked, Observation):
                    bot.raw = msg.prompt
                    asked = seat.answer(msg.prompt, asked, _decide(bot, seat, asked, move_timeout, wake))
                if asked is not None:
                    outbox.put(pb.PlayRequest(act=asked))
            elif kind == "action_rejected":
                act = seat.rejected(msg.action_rejected, bot)
                if act is not None:
                    outbox.put(pb.PlayRequest(act=act))
            elif kind == "match_over":
                result = convert.match_result_from_proto(msg.match_over.result)
                seat.finish(result, msg.match_over)
                log.info("match over: %s wins; %s finished %s", player_name(seat.names, result.winner), bot.name,
                         _place(result, seat.player))
            notify_all(bot, seat.take_events())
    finally:
        ended.set()
        outbox.put(None)
        responses.cancel()
        reader.join(READER_JOIN_S)


def _decide(bot: Bot, seat: Seat, obs: Observation, move_timeout: float | None, wake: threading.Event) -> Decision:
    """The bot's pending events, then its decision, before the turn's deadline (which `wake` says has moved)."""
    started = time.monotonic()
    thinking = think(bot, obs, seat.take_events())
    if isinstance(thinking, Decision):
        return thinking
    wake.clear()
    thinking.add_done_callback(lambda _done: wake.set())
    while not thinking.done():
        timeout = seat.timeout(time.time(), None if move_timeout is None
                               else max(0.0, started + move_timeout - time.monotonic()))
        if not wake.wait(timeout):
            break
        wake.clear()
    return outcome(bot, obs, thinking, time.monotonic() - started)


def player_name(names: Sequence[str], player: int) -> str:
    """A player as people read it: its name in the match, or "player N" for a seat without one."""
    return names[player] if 0 <= player < len(names) and names[player] else f"player {player}"


def _shown_as(seat: Seat) -> str:
    """The seat's name in the match (Welcome.names)."""
    return seat.names[seat.player] if 0 <= seat.player < len(seat.names) else "?"


def _place(result: MatchEnded, player: int) -> str:
    if player in result.last_places:
        place = result.last_places.index(player) + 1
        return f"place {place} in the last deal, {counted(result.totals[player], 'point')}"
    return "?"
