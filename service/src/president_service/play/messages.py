"""The proto messages built from the server's own state for its unary answers: summaries, accounts, clocks.

Engine values are converted by `president_protocol.convert`; this module adds
what only the server has (strikes, take-overs, clocks, seat claims).
"""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp
from president_engine import Fault
from president_engine.events import MatchEnded
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.play.accounts import Account
from president_service.play.clock import ClockSettings
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import FinishedSummary


def account_message(account: Account) -> pb.Account:
    return pb.Account(name=account.name, owner=account.owner, created_at=timestamp(account.created_at),
                      revoked=account.revoked, house=account.house)


def timestamp(unix: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(unix * 1e9))
    return stamp


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
            account=runner.accounts[p] if runner.accounts else "", connected=ended is None and runner.online(p))
            for p in range(match.rules.players)],
        deal=match.deal,
        phase=convert.phase_to_proto(match.phase),
        to_act=match.to_act,
        last_seq=runner.last_seq,
        created_at=timestamp(runner.created_at),
        result=None if ended is None else convert.match_result_to_proto(ended),
    )


def hide_play(summary: pb.MatchSummary) -> pb.MatchSummary:
    """`summary` without what tells how its deals went (its result, each player's score, role, seat and hand size,
    who is to act): for a match whose cards another live match deals (a duplicate board's other seatings)."""
    summary.ClearField("result")
    summary.ClearField("to_act")
    for player in summary.players:
        for name in ("score", "role", "seat", "hand_size"):
            player.ClearField(name)
    return summary


def play_hidden(summary: pb.MatchSummary) -> bool:
    """Whether `hide_play` left out a finished match's result (every other finished summary has one)."""
    return summary.status == pb.MATCH_STATUS_OVER and not summary.HasField("result")


def fault_counts(runner: MatchRunner, player: int) -> pb.FaultCounts:
    faults = runner.faults[player]
    return pb.FaultCounts(errors=faults[Fault.ERROR], timeouts=faults[Fault.TIMEOUT], invalid=faults[Fault.INVALID],
                          strikes=runner.clock.strikes[player])


def finished_summary(done: FinishedSummary) -> pb.MatchSummary:
    """A finished match not in memory: what its stored result says (no per-deal detail)."""
    totals = done.result.totals
    return pb.MatchSummary(
        match_id=done.match_id,
        status=pb.MATCH_STATUS_OVER,
        preset=done.preset,
        rules=convert.rules_to_proto(done.rules),
        players=[pb.PlayerSummary(player=p, name=name, score=totals[p], claimed=True)
                 for p, name in enumerate(done.names)],
        phase=pb.PHASE_OVER,
        created_at=timestamp(done.created_at),
        result=pb.MatchResult(winner=done.result.winner, totals=totals, last_places=done.result.last_places),
    )
