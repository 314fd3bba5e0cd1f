"""The ``president`` command: one entry point for serving, watching and rating.

    president serve --db president.db --admin-token SECRET     the game server
    president demo                                              a server and built-in bots, shown live
    president ladder ladder.toml --expect "mybot > normal"      rate bots; gate CI on a claim
    president match create --server localhost:50051            a match on a running server, with seat tokens
    president replay MATCH_ID --html replay.html                a finished match as a file that plays it back
    president account create mybot --owner me                  a bot account (and its token) on a running server
    president arena                                             a server with the arena on and house bots playing
    president conformance -- ./bot --server {server} --token {token}
                                                                a bot in any language put through the contract's cases
    president host --server unix:PATH --bot mybot/              a bot folder's bot in a sandbox, restarted if it dies
    president new mybot --lang go                               a bot folder from a starter kit (python, node, go, cpp,
                                                                java), its manifest and a conformance script
    president submit mybot/ --server HOST:PORT --account-token T a bot folder stored as a new version of its account
    president versions --server HOST:PORT --account-token T    the account's versions; build-log VERSION: a build's log
    president versions --all --server HOST:PORT --admin-token S every account's versions, checks, faults, last errors
    president builder --server unix:PATH --admin-token SECRET   build submitted versions in a sandbox
    president tournament create NAME --entrants A,B --builtin hard  a tournament on a running server (then start,
                                                                status, export)
    president house hard,normal --server HOST:PORT              built-in levels playing house accounts
    president uecda serve --games 100                           five UECda contest clients play a match here
    president doctor --db run/event.db                          whether this machine can host bots and serve
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from president_service.server.serve_cli import add_serve_parser

from president_harness.cli.account_cli import add_account_parser
from president_harness.cli.arena_cli import add_arena_parser
from president_harness.cli.conformance_cli import add_conformance_parser
from president_harness.cli.doctor import add_doctor_parser
from president_harness.cli.host_cli import add_host_parser
from president_harness.cli.house_cli import add_house_parser
from president_harness.cli.match_cli import add_match_parser
from president_harness.cli.new_cli import add_new_parser
from president_harness.cli.replay_cli import add_replay_parser
from president_harness.cli.submit_cli import add_submit_parsers
from president_harness.cli.tournament_cli import add_tournament_parser
from president_harness.cli.uecda_cli import add_uecda_parser
from president_harness.demo.demo import add_demo_parser
from president_harness.hosting.builder import add_builder_parser
from president_harness.ladder.ladder_cli import add_ladder_parser


class _Version(argparse.Action):
    """``--version``: looks the installed version up only when asked (the look-up costs every command otherwise)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from importlib.metadata import version
        print(f"{parser.prog} {version('president-harness')}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="president", description="The President card game service.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    add_serve_parser(commands)
    add_demo_parser(commands)
    add_ladder_parser(commands)
    add_match_parser(commands)
    add_replay_parser(commands)
    add_account_parser(commands)
    add_arena_parser(commands)
    add_conformance_parser(commands)
    add_host_parser(commands)
    add_new_parser(commands)
    add_submit_parsers(commands)
    add_builder_parser(commands)
    add_tournament_parser(commands)
    add_house_parser(commands)
    add_uecda_parser(commands)
    add_doctor_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
