"""Reading a CreateMatchRequest: the rules, explicit hands, clock, seed and names it asks for.

Every value from outside is checked here, before anything is stored: a bad
rule option or clock setting is BAD_OPTION naming the option, a card that
cannot exist is MALFORMED.  What the request leaves unset takes the
server's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from president_engine import CardSet, Rules, RulesError
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.clock import ClockError, ClockSettings
from president_service.errors import Reason, ServiceError


@dataclass(frozen=True, kw_only=True, slots=True)
class MatchRequest:
    preset: str
    rules: Rules
    seed: int | None
    """None: the server draws one."""
    hands: tuple[tuple[CardSet, ...], ...]
    """Explicit hands for the first deals, by seat; empty: every deal is shuffled."""
    clock: ClockSettings
    names: tuple[str, ...]
    open_seats: bool


def rules_from_request(preset: str, overrides: pb.Rules) -> Rules:
    """The preset with the request's set fields changed; RulesError names a bad option."""
    return Rules.preset(preset, **convert.overrides_from_proto(overrides))


def clock_from_proto(msg: pb.ClockSettings) -> ClockSettings:
    """The clock a request asks for; ClockError names a bad setting."""
    return ClockSettings(move_ms=msg.move_time_limit_ms, bank_ms=msg.time_bank_ms,
                         max_strikes=msg.strikes_before_takeover)


def read_match_request(request: pb.CreateMatchRequest, default_clock: ClockSettings) -> MatchRequest:
    """What `request` asks for, checked; ServiceError (BAD_OPTION or MALFORMED) otherwise."""
    try:
        rules = rules_from_request(request.preset, request.rules)
        clock = clock_from_proto(request.clock) if request.HasField("clock") else default_clock
    except (RulesError, ClockError) as exc:
        raise ServiceError(Reason.BAD_OPTION, str(exc), {"option": exc.option}) from None
    try:
        hands = tuple(tuple(convert.cards_from_proto(hand.cards, f"deals[{d}].hands[{i}]")
                            for i, hand in enumerate(deal.hands)) for d, deal in enumerate(request.deals))
    except convert.WireError as exc:
        raise ServiceError(Reason.MALFORMED, str(exc)) from None
    return MatchRequest(preset=request.preset, rules=rules, seed=request.seed if request.HasField("seed") else None,
                        hands=hands, clock=clock, names=tuple(request.seat_names), open_seats=request.open_seats)
