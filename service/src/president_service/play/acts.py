"""A seat's act from the wire: the one path for the Play stream, SubmitAction and a Session.

Each of the three reads an `Act` (match, turn id, action, reported fault)
its own way; all of them check and apply it here, and the two streams
answer it with `answer`'s `ActionAccepted` or `ActionRejected`.
"""

from __future__ import annotations

from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.play.match_runner import MatchRunner


def apply_act(runner: MatchRunner, player: int, turn_id: int, action: pb.Action, fault: int) -> None:
    """Check and apply `player`'s action for `turn_id` (committed before this returns); ServiceError if refused.

    A malformed action counts against the seat like an illegal one.
    """
    if not turn_id:
        raise ServiceError(Reason.MALFORMED, "turn_id is required (from the prompt)")
    try:
        chosen = convert.action_from_proto(action)
        reported = convert.fault_from_proto(fault)
    except convert.WireError as exc:
        runner.refused(player)
        raise ServiceError(Reason.MALFORMED, str(exc)) from None
    runner.submit(player, turn_id, chosen, reported)


def answer(runner: MatchRunner, player: int, act: pb.Act) -> pb.PlayResponse:
    """Apply `act` and say how it went: ActionAccepted, or ActionRejected with the reason."""
    try:
        apply_act(runner, player, act.turn_id, act.action, act.fault)
    except ServiceError as exc:
        return rejected(act.turn_id, exc)
    return pb.PlayResponse(action_accepted=pb.ActionAccepted(turn_id=act.turn_id))


def rejected(turn_id: int, exc: ServiceError) -> pb.PlayResponse:
    """ActionRejected for `turn_id` (0: a message that was no act), with the engine's reason for an illegal one."""
    return pb.PlayResponse(action_rejected=pb.ActionRejected(
        turn_id=turn_id, reason=exc.reason.name, error_reason=exc.reason.proto,
        illegal_reason=exc.metadata.get("illegal_reason", ""), message=exc.message))
