"""Reading a CreateMatchRequest: the rules, explicit hands and seats, clock, seed and names it asks for.

Every value from outside is checked here, before anything is stored: a bad
rule option, clock setting or a value beyond the server's bounds is
BAD_OPTION naming the option; a card that cannot exist or an over-long name is
MALFORMED (a field this server does not know is refused for every request
by `request_guard.check_message`).  What the request leaves
unset takes the server's defaults.  No refusal echoes more than a short
piece of what was sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from president_engine import PRESETS, CardSet, Rules, RulesError
from president_protocol import convert
from president_protocol.names import MAX_NAME_CHARS, is_display_name
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.play.clock import ClockError, ClockSettings
from president_service.play.match_store import MatchKind, Statement

MAX_DEALS = 1_000
"""The most deals a match may last (a deal takes about a hundred moves)."""
MAX_POINTS = 1_000_000
"""The largest target score and points for a place."""
MAX_SEED = 2**63 - 1
"""SQLite stores signed 64-bit integers."""


@dataclass(frozen=True, kw_only=True, slots=True)
class MatchRequest:
    preset: str
    rules: Rules
    seed: int | None
    """None: the server draws one."""
    hands: tuple[tuple[CardSet, ...], ...]
    """Explicit hands for the first deals, by seat; empty: every deal is shuffled."""
    seats: tuple[tuple[int, ...] | None, ...] = ()
    """For those deals, the players by seat (None: the rules' seating); empty when no deal has them."""
    pass_orders: tuple[tuple[int, ...] | None, ...] = ()
    """For those deals, the order of the pass limit's places (None: drawn); empty when no deal has one."""
    clock: ClockSettings
    names: tuple[str, ...]
    open_seats: bool
    reserved: frozenset[int] = frozenset()
    """With open seats: players only the creator's tokens play."""
    accounts: tuple[str, ...] = ()
    """The account holding each player's seat ("" for none); empty when no seat is an account's."""
    kind: MatchKind = MatchKind.ORGANISED
    bot_seeds: tuple[int | None, ...] = ()
    """The seed for each player's bot (None: none); empty when none is given."""
    match_id: str = ""
    """The new match's id, chosen by its maker (a tournament, which logs it in `also`); empty: the server draws one."""
    also: tuple[Statement, ...] = ()
    """Statements committed in the match's creating transaction (a tournament's log of its matches)."""
    dev_seat: str = ""
    """Player 0 is the development seat of this name (`dev_seats`); empty: none."""


def rules_from_request(preset: str, overrides: pb.Rules) -> Rules:
    """The preset with the request's set fields changed, within this server's bounds; RulesError names a bad
    option.  Every way a client makes a match (CreateMatch, a challenge) reads its rules here, so none skips
    a bound."""
    rules = Rules.preset(preset, **convert.overrides_from_proto(overrides))
    for option, value, most in (("deals", rules.deals or 0, MAX_DEALS), ("target_score", rules.target_score or 0,
                                MAX_POINTS), ("points", max(rules.points), MAX_POINTS)):
        if value > most:
            raise RulesError(option, f"at most {most} on this server")
    return rules


def clock_from_proto(msg: pb.ClockSettings) -> ClockSettings:
    """The clock a request asks for; ClockError names a bad setting."""
    return ClockSettings(move_ms=msg.move_time_limit_ms, bank_ms=msg.time_bank_ms,
                         max_strikes=msg.strikes_before_takeover)


def read_match_request(request: pb.CreateMatchRequest, default_clock: ClockSettings) -> MatchRequest:
    """What `request` asks for, checked; ServiceError (BAD_OPTION or MALFORMED) otherwise."""
    if request.preset not in PRESETS:
        raise ServiceError(Reason.BAD_OPTION, f"preset: unknown preset {shorten(request.preset)}"
                                              f" (known: {', '.join(PRESETS)})", {"option": "preset"})
    for name in request.seat_names:
        check_name(name, "seat_names")
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
    seats = tuple(tuple(deal.seats) or None for deal in request.deals)  # the engine refuses a bad seating
    pass_orders = tuple(tuple(deal.pass_order) or None for deal in request.deals)
    for d, order in enumerate(pass_orders):
        if order is not None and sorted(order) != list(range(rules.players)):
            raise ServiceError(Reason.MALFORMED, f"deals[{d}].pass_order: every player of the match once (0 to"
                                                 f" {rules.players - 1}), or empty; not {shorten(str(list(order)))}")
    reserved = frozenset(request.reserved_seats)
    if any(player >= rules.players for player in reserved) or (reserved and not request.open_seats):
        raise ServiceError(Reason.MALFORMED, "reserved_seats: players of this match, and only with open_seats")
    accounts = tuple(request.seat_accounts)
    if len(accounts) > rules.players:
        raise ServiceError(Reason.MALFORMED, f"seat_accounts: {len(accounts)} accounts for {rules.players} players")
    if any(accounts) and request.open_seats:
        raise ServiceError(Reason.MALFORMED, "seat_accounts: accounts hold seats of matches without open seats")
    accounts = accounts + ("",) * (rules.players - len(accounts)) if any(accounts) else ()
    if len(request.bot_seeds) > rules.players or any(seed > MAX_SEED for seed in request.bot_seeds):
        raise ServiceError(Reason.BAD_OPTION, f"bot_seeds: at most one per player, each at most {MAX_SEED}",
                           {"option": "bot_seeds"})
    seeds: tuple[int | None, ...] = tuple(request.bot_seeds)
    if request.dev_seat:
        check_name(request.dev_seat, "dev_seat")
        if accounts:
            raise ServiceError(Reason.MALFORMED, "dev_seat: player 0 is the dev seat's, not an account's")
    return MatchRequest(preset=request.preset, rules=rules, seed=request.seed if request.HasField("seed") else None,
                        hands=hands, seats=seats if any(seats) else (),
                        pass_orders=pass_orders if any(pass_orders) else (), clock=clock,
                        names=tuple(request.seat_names),
                        open_seats=request.open_seats, reserved=reserved, accounts=accounts,
                        bot_seeds=seeds + (None,) * (rules.players - len(seeds)) if seeds else (),
                        dev_seat=request.dev_seat)


def check_name(name: str, field: str) -> None:
    """MALFORMED for a name the contract refuses (too long, or with characters that are not printable)."""
    if not is_display_name(name):
        raise ServiceError(Reason.MALFORMED, f"{field}: a name is at most {MAX_NAME_CHARS} printable characters,"
                                             f" not {shorten(name)}")


def shorten(text: str, most: int = 32) -> str:
    """A piece of a client's text fit to echo in an error: quoted, cut to `most` characters."""
    return repr(text if len(text) <= most else text[:most] + "...")
