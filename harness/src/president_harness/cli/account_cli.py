"""``president account``: bot accounts on a running server (create, rotate, revoke, list).

    president account create mybot --owner "Ada <ada@example.org>" --server localhost:50051
    president account create house-hard --owner organiser --house
    president account rotate mybot          # a new token; the old one stops working at once
    president account revoke mybot          # the token stops working; live matches go on under the clock
    president account list

The admin token comes from --admin-token or PRESIDENT_ADMIN_TOKEN.  A token
is printed once, with the command that plays the account's matches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_metadata
from president_harness.rpc_errors import describe_rpc_error


def add_account_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    account = commands.add_parser("account", help="bot accounts on a running server: create, rotate, revoke, list",
                                  description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = account.add_subparsers(dest="action", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default="localhost:50051", help="HOST:PORT (default localhost:50051)")
    common.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV})")
    create = actions.add_parser("create", parents=[common], help="a new account and its token")
    create.add_argument("name", help="letters, digits, '-', '_' or '.', at most 32")
    create.add_argument("--owner", default="", help="who runs the bot (shown to organisers)")
    create.add_argument("--house", action="store_true",
                        help="a house bot: rated in the arena with no check match (a built-in level, usually)")
    for action, what in (("rotate", "a new token; the old one stops working at once"),
                         ("revoke", "the token stops working; the account's live matches go on under the clock")):
        sub = actions.add_parser(action, parents=[common], help=what)
        sub.add_argument("name")
    actions.add_parser("list", parents=[common], help="every account")
    account.set_defaults(handler=account_command)


def account_command(args: argparse.Namespace) -> int:
    if (admin := admin_metadata(args.admin_token, "account")) is None:
        return 2
    with grpc.insecure_channel(args.server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            if args.action == "create":
                created = stub.CreateAccount(pb.CreateAccountRequest(name=args.name, owner=args.owner,
                                                                     house=args.house), metadata=admin, timeout=10)
                print(f"account {created.account.name} created{' (a house bot)' if args.house else ''}")
                _token_lines(created.token, args.server)
            elif args.action == "rotate":
                rotated = stub.RotateAccountToken(pb.RotateAccountTokenRequest(name=args.name), metadata=admin,
                                                  timeout=10)
                print(f"account {args.name}: new token (the old one no longer works)")
                _token_lines(rotated.token, args.server)
            elif args.action == "revoke":
                stub.RevokeAccount(pb.RevokeAccountRequest(name=args.name), metadata=admin, timeout=10)
                print(f"account {args.name} revoked: its token no longer works")
            else:
                listed = stub.ListAccounts(pb.ListAccountsRequest(), metadata=admin, timeout=10)
                _table(listed.accounts)
        except grpc.RpcError as exc:
            print(f"president account: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    return 0


def _token_lines(token: str, server: str) -> None:
    print(f"token: {token}")
    print(f"play its matches: .venv/bin/president-bot BOT.py --server {server} --account-token {token}"
          " [--arena] [--max-matches N]")


def _table(accounts: Sequence[pb.Account]) -> None:
    if not accounts:
        print("no accounts")
        return
    width = max(len(a.name) for a in accounts)
    for a in accounts:
        created = datetime.fromtimestamp(a.created_at.ToSeconds(), UTC).strftime("%Y-%m-%d %H:%M")
        flags = ", ".join(f for f, on in (("house", a.house), ("revoked", a.revoked)) if on)
        print(f"{a.name:<{width}}  {created} UTC  {a.owner or '-'}{f'  ({flags})' if flags else ''}")
