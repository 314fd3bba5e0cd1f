"""``president house``: built-in levels playing house accounts on a running server, until Ctrl-C.

    president house hard,normal,easy --server localhost:50051 --admin-token SECRET

Each level plays the house account ``house-LEVEL`` (made if it is missing,
else given a new token: the old one stops working), over one Session each,
every match the server seats it in: a tournament's tables, and with
``--arena`` the arena's matches too.  The server core never runs bot code, so
house bots are clients like any other.  The admin token comes from
--admin-token or PRESIDENT_ADMIN_TOKEN.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import deque
from typing import TYPE_CHECKING

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.admin_token import ADMIN_TOKEN_ENV, Metadata, admin_metadata
from president_harness.cli.cli_names import BUILTIN_LEVELS, known_in_help
from president_harness.interrupts import terminate_as_interrupt
from president_harness.rpc_errors import describe_rpc_error, error_reason

if TYPE_CHECKING:
    from president_sdk.session_client import FinishedMatch


_TOLD = 1024
"""The newest ends remembered: a match's house seats report its end within moments of each other."""


class HouseError(RuntimeError):
    """A house account could not be made or given a token (the message says why, in one line)."""


def house_name(level: str) -> str:
    """The house account a built-in level plays."""
    return f"house-{level}"


def account_token(stub: pb_grpc.PresidentServiceStub, admin: Metadata, name: str, server: str, *, house: bool,
                  owner: str, rotate: bool = True) -> str:
    """The token of account `name`: made now, or (`rotate`) a new one for an account the server has already;
    without `rotate` an existing account is left as it is and "" returned."""
    try:
        try:
            return str(stub.CreateAccount(pb.CreateAccountRequest(name=name, owner=owner, house=house),
                                          metadata=admin, timeout=10).token)
        except grpc.RpcError as exc:
            if error_reason(exc) != "ACCOUNT_EXISTS":
                raise
        if not rotate:
            return ""
        return str(stub.RotateAccountToken(pb.RotateAccountTokenRequest(name=name), metadata=admin, timeout=10).token)
    except grpc.RpcError as exc:
        raise HouseError(f"account {name}: {describe_rpc_error(exc, server)}") from None


def house_account(stub: pb_grpc.PresidentServiceStub, admin: Metadata, level: str, server: str, *,
                  rotate: bool = True) -> str:
    """A built-in level's house account, made if missing (see `account_token`)."""
    return account_token(stub, admin, house_name(level), server, house=True, owner="president house", rotate=rotate)


def add_house_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    house = commands.add_parser("house", help="built-in levels playing house accounts on a running server",
                                description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    known_in_help(house.add_argument("levels", help="built-in levels, comma-separated (%(known)s)"), BUILTIN_LEVELS)
    house.add_argument("--server", default="localhost:50051", help="HOST:PORT (default localhost:50051)")
    house.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV})")
    house.add_argument("--max-matches", type=int, default=20, help="matches each house bot plays at once (default 20)")
    house.add_argument("--arena", action="store_true", help="play the arena's matches too")
    house.set_defaults(handler=house_command)


def house_command(args: argparse.Namespace) -> int:
    if (admin := admin_metadata(args.admin_token, "house")) is None:
        return 2
    levels = list(dict.fromkeys(level.strip() for level in args.levels.split(",") if level.strip()))
    unknown = [level for level in levels if level not in BUILTIN_LEVELS]
    if not levels or unknown:
        print(f"president house: no built-in level {(unknown or [''])[0]!r} (known: {BUILTIN_LEVELS})",
              file=sys.stderr)
        return 2
    if args.max_matches < 1:
        print("president house: --max-matches is at least 1", file=sys.stderr)
        return 2
    try:
        with grpc.insecure_channel(args.server) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            tokens = {house_account(stub, admin, level, args.server): level for level in levels}
    except HouseError as exc:
        print(f"president house: {exc}", file=sys.stderr)
        return 1
    from president_sdk.session_client import Appetite

    from president_harness.builtin_sessions import BuiltinSessions

    told: deque[str] = deque(maxlen=_TOLD)
    telling = threading.Lock()  # the house accounts' reports come from a loop's thread and a worker's listener

    def finished(match: FinishedMatch) -> None:
        with telling:
            if match.match_id in told:  # every house account seated in the match reports its end
                return
            told.append(match.match_id)
        print(f"match {match.match_id} over", flush=True)

    print(f"house bots {', '.join(house_name(level) for level in levels)} playing on {args.server}; Ctrl-C stops",
          flush=True)
    with terminate_as_interrupt():
        try:
            with BuiltinSessions(args.server, tokens, appetite=Appetite(max_matches=args.max_matches,
                                                                       arena=args.arena),
                                 on_finished=finished) as bots:
                while True:
                    time.sleep(1.0)
                    if bots.error is not None:
                        print(f"president house: {bots.error}", file=sys.stderr)
                        return 1
        except KeyboardInterrupt:
            print("house bots stopped")
            return 0
