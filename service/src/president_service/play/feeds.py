"""What a stream is sent: `SeatFeed` for a seat (a Play stream or a Session), `SharedEvents` for every stream.

`SeatFeed` is the same on a Play stream and on a Session:
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

from president_service.play.match_runner import MatchRunner
from president_service.play.messages import clock_message, result, timestamp
from president_service.play.shared_events import SharedEvents
from president_service.play.turns import Turn


def shared_events(runner: MatchRunner) -> SharedEvents:
    """The match's SharedEvents, made on first use and kept on its runner: one for every stream of the match."""
    shared = runner.shared_events
    if shared is None:
        shared = runner.shared_events = SharedEvents()
    return shared


def prompt_message(turn: Turn) -> pb.Prompt:
    deadline = None if turn.deadline_unix is None else timestamp(turn.deadline_unix)
    return convert.prompt_to_proto(turn.turn_id, turn.observation, deadline=deadline,
                                   time_bank_remaining_ms=turn.bank_ms)


def deadline_message(turn: Turn) -> pb.TurnDeadline:
    """A turn's deadline alone, for a seat already prompted when the clock started."""
    assert turn.deadline_unix is not None
    return pb.TurnDeadline(turn_id=turn.turn_id, deadline=timestamp(turn.deadline_unix),
                           time_bank_remaining_ms=turn.bank_ms)




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

    @property
    def prompted_turn(self) -> int:
        """The turn of the latest Prompt or TurnDeadline `due` returned; 0 before any."""
        return 0 if self._prompted is None else self._prompted[0]

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
