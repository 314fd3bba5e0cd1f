"""The proto messages built from the server's own state: log entries, prompts, results, summaries.

Engine values are converted by `president_protocol.convert`; this module adds
what only the server has (strikes, take-overs, clocks, seat claims).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from google.protobuf.timestamp_pb2 import Timestamp
from president_engine.events import MatchEnded
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.accounts import Account
from president_service.clock import ClockSettings
from president_service.match_runner import MatchRunner, Turn
from president_service.match_store import Fault, FinishedSummary
from president_service.strike import LogEvent, Strike, TakenOver, visible

_M = TypeVar("_M")
_SHARED = 4
"""Latest log entries a match keeps encoded: what one move adds, for each of its streams to send."""


def event_message(event: LogEvent, seq: int) -> pb.Event:
    """A log entry already redacted for its receiver (strike.visible)."""
    if isinstance(event, Strike):
        action = None if event.action is None else convert.action_to_proto(event.action)
        return pb.Event(seq=seq, strike_recorded=pb.StrikeRecorded(
            player=event.player, strikes=event.strikes, action=action))
    if isinstance(event, TakenOver):
        return pb.Event(seq=seq, seat_taken_over=pb.SeatTakenOver(player=event.player))
    return convert.event_to_proto(event, seq)


class SharedEvents:
    """A match's latest log entries, each encoded once and sent as the same message on every stream.

    An entry is shared only with receivers for whom `visible` leaves it whole;
    a redacted copy is built for its one receiver and never stored, so a
    shared message never carries a card its receiver may not see.  Messages
    are not changed once built, and only the latest few are kept.
    """

    def __init__(self) -> None:
        self._seats: dict[int, pb.PlayResponse] = {}
        self._spectators: dict[int, pb.SpectateResponse] = {}

    def for_seat(self, entry: LogEvent, seq: int, player: int) -> pb.PlayResponse | None:
        """Entry `seq` as `player` may see it; None if hidden."""
        return _shared(self._seats, lambda event: pb.PlayResponse(event=event), entry, seq, player)

    def for_spectator(self, entry: LogEvent, seq: int) -> pb.SpectateResponse | None:
        """Entry `seq` as a spectator may see it; None if hidden."""
        return _shared(self._spectators, lambda event: pb.SpectateResponse(event=event), entry, seq, None)


def _shared(cache: dict[int, _M], wrap: Callable[[pb.Event], _M], entry: LogEvent, seq: int,
            receiver: int | None) -> _M | None:
    shown = visible(entry, receiver)
    if shown is not entry:
        return None if shown is None else wrap(event_message(shown, seq))
    message = cache.get(seq)
    if message is None:
        message = cache[seq] = wrap(event_message(entry, seq))
        if len(cache) > _SHARED:
            del cache[next(iter(cache))]  # the oldest: dicts keep insertion order
    return message


def account_message(account: Account) -> pb.Account:
    return pb.Account(name=account.name, owner=account.owner, created_at=timestamp(account.created_at),
                      revoked=account.revoked, house=account.house)


def timestamp(unix: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(unix * 1e9))
    return stamp


def prompt_message(turn: Turn) -> pb.Prompt:
    deadline = None if turn.deadline_unix is None else timestamp(turn.deadline_unix)
    return convert.prompt_to_proto(turn.turn_id, turn.observation, deadline=deadline,
                                   time_bank_remaining_ms=turn.bank_ms)


def deadline_message(turn: Turn) -> pb.TurnDeadline:
    """A turn's deadline alone, for a seat already prompted when the clock started."""
    assert turn.deadline_unix is not None
    return pb.TurnDeadline(turn_id=turn.turn_id, deadline=timestamp(turn.deadline_unix),
                           time_bank_remaining_ms=turn.bank_ms)


def clock_message(clock: ClockSettings) -> pb.ClockSettings:
    return pb.ClockSettings(move_time_limit_ms=clock.move_ms, time_bank_ms=clock.bank_ms,
                            strikes_before_takeover=clock.max_strikes)


def result(runner: MatchRunner) -> MatchEnded | None:
    """The MatchEnded event of a finished match (always its last log entry)."""
    last = runner.log[-1]
    return last if isinstance(last, MatchEnded) else None


def match_summary(runner: MatchRunner) -> pb.MatchSummary:
    match = runner.match
    ended = result(runner)
    status = (pb.MATCH_STATUS_OVER if ended is not None
              else pb.MATCH_STATUS_RUNNING if all(runner.claimed) else pb.MATCH_STATUS_WAITING)
    sizes = match.hand_sizes()
    return pb.MatchSummary(
        match_id=runner.match_id,
        status=status,
        preset=runner.preset,
        rules=convert.rules_to_proto(match.rules),
        players=[pb.PlayerSummary(
            player=p, name=runner.names[p], seat=match.seat_of(p), role=convert.role_to_proto(match.roles[p]),
            score=match.scores[p], hand_size=sizes[p], claimed=runner.claimed[p],
            taken_over=runner.taken_over(p), faults=fault_counts(runner, p),
            account=runner.accounts[p] if runner.accounts else "") for p in range(match.rules.players)],
        deal=match.deal,
        phase=convert.phase_to_proto(match.phase),
        to_act=match.to_act,
        last_seq=runner.last_seq,
        created_at=timestamp(runner.created_at),
        result=None if ended is None else convert.match_result_to_proto(ended),
    )


def fault_counts(runner: MatchRunner, player: int) -> pb.FaultCounts:
    faults = runner.faults[player]
    return pb.FaultCounts(errors=faults[Fault.ERROR], timeouts=faults[Fault.TIMEOUT], invalid=faults[Fault.INVALID],
                          strikes=runner.clock.strikes[player])


def finished_summary(done: FinishedSummary) -> pb.MatchSummary:
    """A finished match not in memory: what its stored result says (no per-deal detail)."""
    totals = done.result["totals"]
    return pb.MatchSummary(
        match_id=done.match_id,
        status=pb.MATCH_STATUS_OVER,
        preset=done.preset,
        rules=convert.rules_to_proto(done.rules),
        players=[pb.PlayerSummary(player=p, name=name, score=totals[p], claimed=True)
                 for p, name in enumerate(done.names)],
        phase=pb.PHASE_OVER,
        created_at=timestamp(done.created_at),
        result=pb.MatchResult(winner=done.result["winner"], totals=totals, last_places=done.result["last_places"]),
    )
