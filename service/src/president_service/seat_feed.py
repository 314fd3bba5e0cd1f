"""`SeatFeed`: what one seat of a match is sent, in order — the same on a Play stream and on a Session.

Welcome; the events the seat may see after its cursor; a Snapshot of the
present; then live events; a Prompt once per turn (and, when the clock starts
on a turn already prompted, only its TurnDeadline); MatchOver at the end.
The feed walks the match's shared log with a cursor and redacts each entry
for its seat as it sends it (`SharedEvents`), so it holds no copies.  Each
call of `due` returns everything due now, in order: a Session sends it as
one message, a Play stream one message each.
"""

from __future__ import annotations

from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.match_runner import MatchRunner
from president_service.messages import SharedEvents, clock_message, deadline_message, prompt_message, result


def match_over(runner: MatchRunner) -> pb.MatchOver:
    ended = result(runner)
    assert ended is not None
    return pb.MatchOver(result=convert.match_result_to_proto(ended))


class SeatFeed:
    __slots__ = ("_prompted", "_shared", "cursor", "player", "runner", "snapshot_sent")

    def __init__(self, runner: MatchRunner, player: int, shared: SharedEvents, cursor: int) -> None:
        self.runner = runner
        self.player = player
        self.cursor = cursor
        """The seq of the last log entry handled."""
        self.snapshot_sent = False
        self._shared = shared
        self._prompted: tuple[int, bool] | None = None

    def welcome(self) -> pb.PlayResponse:
        runner = self.runner
        seeds = runner.bot_seeds
        return pb.PlayResponse(welcome=pb.Welcome(
            match_id=runner.match_id, player=self.player, names=runner.names,
            rules=convert.rules_to_proto(runner.match.rules), clock=clock_message(runner.clock.settings),
            bot_seed=seeds[self.player] if seeds else None))

    def asks(self) -> bool:
        """Whether `due` holds something that asks for the client: the snapshot, a prompt or deadline, the end."""
        runner = self.runner
        if not self.snapshot_sent or runner.is_over:
            return True
        due = runner.turn_key(self.player)
        return due is not None and due != self._prompted

    def due(self) -> tuple[list[pb.PlayResponse], bool]:
        """Every message due now, in order, and whether the feed is done (MatchOver is among them)."""
        runner, player = self.runner, self.player
        out: list[pb.PlayResponse] = []
        log = runner.log
        while self.cursor < len(log):
            self.cursor += 1
            message = self._shared.for_seat(log[self.cursor - 1], self.cursor, player)
            if message is not None:
                out.append(message)
        if not self.snapshot_sent:
            self.snapshot_sent = True
            out.append(pb.PlayResponse(snapshot=pb.Snapshot(
                observation=convert.observation_to_proto(runner.match.observation(player)), last_seq=self.cursor)))
        if runner.is_over:
            out.append(pb.PlayResponse(match_over=match_over(runner)))
            return out, True
        due = runner.turn_key(player)
        turn = None if due is None or due == self._prompted else runner.turn_for(player)
        if turn is not None:
            again = self._prompted is not None and self._prompted[0] == turn.turn_id
            self._prompted = due
            out.append(pb.PlayResponse(turn_deadline=deadline_message(turn)) if again
                       else pb.PlayResponse(prompt=prompt_message(turn)))
        return out, False
