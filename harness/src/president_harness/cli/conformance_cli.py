"""``president conformance``: put a bot program through scripted situations on a server of the suite's own.

    president conformance -- president-bot mybot.py --server {server} --token {token}
    president conformance --preset norwegian -- ./bot --server {server} --account-token {account_token}

COMMAND is started once per case, its placeholders filled in as a ladder's
are: given {token} it plays one seat over the Play stream and must exit 0
after MatchOver; given {account_token} it plays its account's matches over a
Session, keeps running after them, and is stopped (SIGTERM) by the suite.
Each case is a real game: seeded random moves are played until the case's
situation arises (an exchange, a request, a revolution...), the bot's seat
is the one to act then, and the suite plays the other seats to the match's
end.  Every act must be legal (the engine's check) and arrive before its
prompt's deadline.  One line per case, then a summary; exit status 0 when
every case passed, 1 when one failed, 2 for bad arguments.
"""

from __future__ import annotations

import argparse

from president_harness.cli.cli_names import PRESET_NAMES, known_in_help


def add_conformance_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("conformance", help="check a bot program in any language against the contract",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, metavar="N", help="only N-player matches (default 3, 4 and 5)")
    known_in_help(parser.add_argument("--preset", metavar="P", help="only preset P (%(known)s; default all)"),
                  PRESET_NAMES)
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND...",
                        help="the bot's command line, with {server} and {token} or {account_token}")
    parser.set_defaults(handler=_conformance)


def _conformance(args: argparse.Namespace) -> int:
    from president_harness.conformance import conformance_command
    return conformance_command(args)
