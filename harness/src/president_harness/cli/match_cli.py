"""``president match create``: a match on a running server, with one seat token per player.

    president match create --server localhost:50051 --preset norwegian --players 5 --deals 3
    president match create --server localhost:50051 --options '{"jokers": 2}' --names me,hard,easy,normal
    president match create --server localhost:50051 --dev mine

--dev NAME makes player 0 the dev seat NAME: its first match prints its token,
and each later match of NAME is played by that same token (president-bot
--again plays one after another) until ``president match revoke-dev NAME``.

The admin token comes from --admin-token or PRESIDENT_ADMIN_TOKEN.  It prints
the match id, each seat's token and the command that plays a seat with a
built-in bot; the rules are checked here first, so a mistake is named before
anything is sent.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_metadata
from president_harness.cli.cli_names import SORTED_PRESET_NAMES
from president_harness.rpc_errors import describe_rpc_error

if TYPE_CHECKING:
    from president_engine import Rules


def add_match_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    match = commands.add_parser("match", help="create a match on a running server")
    actions = match.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="create a match and print its seat tokens",
                                description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    create.add_argument("--server", default="localhost:50051", help="HOST:PORT (default localhost:50051)")
    create.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV})")
    create.add_argument("--preset", default="cardverse", choices=SORTED_PRESET_NAMES, metavar="PRESET",
                        help="%(choices)s (default cardverse)")
    create.add_argument("--players", type=int, help="players (default: the preset's)")
    create.add_argument("--deals", type=int, help="deals in the match (default 1)")
    create.add_argument("--seed", type=int, help="the shuffle's seed (default: the server draws one)")
    create.add_argument("--options", help='JSON object of rule option overrides, e.g. \'{"jokers": 2}\'')
    create.add_argument("--names", help="seat names by player, comma-separated")
    create.add_argument("--open-seats", action="store_true", help="let JoinMatch claim the seats")
    create.add_argument("--dev", default="", metavar="NAME",
                        help="player 0 is the dev seat NAME: one token for every match created with --dev NAME")
    create.add_argument("--move-ms", type=int, help="move time limit in ms (0: no clock; default: the server's)")
    create.add_argument("--bank-ms", type=int, default=60_000, help="time bank per seat in ms (with --move-ms)")
    create.add_argument("--strikes", type=int, default=3, help="timeouts before the server plays a seat")
    create.set_defaults(handler=match_command)
    revoke = actions.add_parser("revoke-dev", help="revoke a dev seat: its token is refused from then on")
    revoke.add_argument("name", help="the dev seat's name (match create --dev NAME)")
    revoke.add_argument("--server", default="localhost:50051", help="HOST:PORT (default localhost:50051)")
    revoke.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV})")
    revoke.set_defaults(handler=revoke_command)


def revoke_command(args: argparse.Namespace) -> int:
    """``president match revoke-dev NAME``: one line either way."""
    if (admin := admin_metadata(args.admin_token, "match")) is None:
        return 2
    with grpc.insecure_channel(args.server) as channel:
        try:
            revoked = pb_grpc.PresidentServiceStub(channel).RevokeDevSeat(
                pb.RevokeDevSeatRequest(name=args.name), metadata=admin, timeout=10).revoked
        except grpc.RpcError as exc:
            print(f"president match: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    print(f"dev seat {args.name}: {'revoked' if revoked else 'none had this name'}")
    return 0


def match_command(args: argparse.Namespace) -> int:
    from president_engine import RulesError
    from president_engine.narrate import counted
    from president_protocol import convert

    if (admin := admin_metadata(args.admin_token, "match")) is None:
        return 2
    try:
        rules = _rules(args)
    except (RulesError, ValueError) as exc:
        print(f"president match: {exc}", file=sys.stderr)
        return 2
    request = pb.CreateMatchRequest(
        preset=args.preset, rules=convert.rules_to_proto(rules), seed=args.seed,
        seat_names=[n.strip() for n in args.names.split(",")] if args.names else [], open_seats=args.open_seats,
        dev_seat=args.dev, clock=None if args.move_ms is None else pb.ClockSettings(
            move_time_limit_ms=args.move_ms, time_bank_ms=args.bank_ms, strikes_before_takeover=args.strikes))
    with grpc.insecure_channel(args.server) as channel:
        try:
            created = pb_grpc.PresidentServiceStub(channel).CreateMatch(
                request, metadata=admin, timeout=10)
        except grpc.RpcError as exc:
            print(f"president match: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    deals = counted(rules.deals, "deal") if rules.deals else "no limit of deals"
    print(f"match {created.match_id}: {args.preset}, {rules.players} players, {deals}")
    for seat in created.seats:
        print(f"player {seat.player}: {seat.token or f'the dev seat {args.dev}: its token, as before'}")
    if args.dev:
        print(f"play the dev seat, this match and the next: .venv/bin/president-bot builtin:hard --server {args.server}"
              f" --token TOKEN --again")
    else:
        print(f"play a seat: .venv/bin/president-bot builtin:hard --server {args.server} --token TOKEN")
    return 0


def _rules(args: argparse.Namespace) -> Rules:
    from president_engine import Rules

    overrides: dict[str, Any] = {}
    if args.options:
        try:
            loaded = json.loads(args.options)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--options is not JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise ValueError("--options must be a JSON object of option names and values")
        overrides.update(loaded)
    for name in ("players", "deals"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    return Rules.preset(args.preset, **overrides)
