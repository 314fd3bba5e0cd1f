"""``president uecda serve``: UECda contest clients play a match (bridge A: uecda_engine.py, uecda_bridge.py).

    president uecda serve --games 100                 the match played here, on the engine, as a contest server does
    president uecda serve --seat builtin:expert       four contest clients and our expert
    president uecda serve --server HOST:PORT --admin-token T --seat account:NAME   on a server: an account's bot too
    president uecda serve --scenario LOG              the seats and deals of a game log's games again
    president uecda compare LOG OTHER                 the game lines of two logs that differ

It listens on 127.0.0.1:42485 (``--listen``) as a contest server does, takes five clients in accept order
(fewer with ``--seat``: the given seats are the players after them), plays the `daifugo` preset's match with
them, writes the contest's game log (``--log``), and prints each player's points.

Without ``--server`` the match is played in this process on the engine, as the reference server plays its own:
the fastest way, a match of any length, each game's log lines written as the game ends; ``--replay DIR`` writes
its record and HTML replay.  With ``--server HOST:PORT`` the match is created on that
server of ours and each client plays its seat there: the server's live page and replay, its accounts' bots as
players (``--seat account:NAME``), every move on its disk; slower, and each game's log lines are written as
the game ends (from the server's record of the deals over so far, which only its admin token may read).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
from president_service.base.limits import Limits
from president_service.server.serve_cli import port_number

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_metadata, admin_token
from president_harness.rpc_errors import describe_rpc_error

if TYPE_CHECKING:
    from president_engine import Match, Rules

    from president_harness.uecda.uecda_bridge import Arrival, BridgeResult, OtherSeat
    from president_harness.uecda.uecda_log import GameLog, ScenarioDeal

# The bridge, the logs, the engine and the server are imported by the commands that use them: the ``president``
# command builds this parser for every subcommand.

DEFAULT_GAMES = 100


def listen_address(text: str) -> tuple[str, int]:
    """HOST:PORT, or PORT alone on 127.0.0.1 (an argparse type: one line for anything else)."""
    from president_harness.uecda.uecda_bridge import DEFAULT_LISTEN

    host, _, port = text.rpartition(":")
    try:
        return host or DEFAULT_LISTEN[0], port_number(port)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r}: HOST:PORT, e.g. 127.0.0.1:42485") from None


def other_seat(text: str) -> OtherSeat:
    """An argparse type: one line for anything but ``builtin:LEVEL`` or ``account:NAME``."""
    from president_harness.uecda.uecda_bridge import OtherSeat

    try:
        return OtherSeat.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_uecda_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    uecda = commands.add_parser("uecda", help="UECda contest clients on this server (bridge A)")
    actions = uecda.add_subparsers(dest="action", required=True)
    serve = actions.add_parser("serve", help="take five contest clients and play a match with them",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--listen", type=listen_address, default=None,
                       help="where contest clients connect (default 127.0.0.1:42485)")
    serve.add_argument("--games", type=int, default=None, help="games in the match (default 100, or the"
                       " scenario's; the contest plays 100 or 1000)")
    serve.add_argument("--scenario", type=Path, default=None, metavar="LOG",
                       help="a game log (ours or the reference server's): its games' seats and dealt hands are"
                            " played again, so the two logs can be compared (president uecda compare)")
    serve.add_argument("--reseat-every", type=int, default=None,
                       help="reseat the players every N games (default 5, the contest's shipped"
                            " configuration, RULE_SEKIGAE_NUM in the log's header; the reference server's code"
                            " default is 3)")
    serve.add_argument("--seat", type=other_seat, action="append", default=[], metavar="builtin:LEVEL|account:NAME",
                       help="a player that is not a contest client: a built-in level, or an account of the server"
                            " whose bot plays it over its Session (repeat for more; fewer clients are awaited)")
    serve.add_argument("--seed", type=int, default=None, help="the shuffle's seed (default: drawn)")
    serve.add_argument("--log", type=Path, default=None,
                       help="the game log to write (default uecda-YYYYmmddHHMMSS.log)")
    serve.add_argument("--server", help="HOST:PORT of a running server of ours to play the match on, with its web"
                       " pages and accounts (default: the engine, in this process)")
    serve.add_argument("--admin-token", help=f"with --server: its admin token (or set {ADMIN_TOKEN_ENV})")
    serve.add_argument("--max-message-bytes", type=int, default=Limits().max_receive_bytes,
                       help="with --server: the largest message it takes (default %(default)s, a server's default;"
                            " `president serve --max-message-bytes`): a longer scenario is refused before any"
                            " client waits. Without --server a scenario may be of any length")
    serve.add_argument("--replay", type=Path, default=None, metavar="DIR",
                       help="without --server: write the match's record and its HTML replay (every hand face"
                            " up) to DIR")
    serve.set_defaults(handler=uecda_command)
    compare = actions.add_parser("compare", help="the game lines of two game logs that differ",
                                 description="Print each game line (section 7's seven a game) that differs between"
                                             " two logs, the headers aside; exit 1 if any does.")
    compare.add_argument("log", type=Path)
    compare.add_argument("other", type=Path)
    compare.set_defaults(handler=compare_command)


def _read_log(path: Path) -> GameLog:
    """The log at `path`; LogError (one line) for a file that is missing or not a log."""
    from president_harness.uecda.uecda_log import GameLog, LogError

    try:
        return GameLog.parse(path.read_text(errors="replace"))
    except OSError as exc:
        raise LogError(f"{path}: {exc.strerror or exc}") from None
    except LogError as exc:
        raise LogError(f"{path}: {exc}") from None


def _scenario(path: Path) -> tuple[ScenarioDeal, ...]:
    from president_harness.uecda.uecda_log import LogError, scenario_of

    log = _read_log(path)
    try:
        scenario = scenario_of(log)
    except LogError as exc:
        raise LogError(f"{path}: {exc}") from None
    if not scenario:
        raise LogError(f"{path}: no games")
    return scenario


def compare_command(args: argparse.Namespace) -> int:
    from president_engine.narrate import counted

    from president_harness.uecda.uecda_log import LogError, game_differences

    try:
        logs = _read_log(args.log), _read_log(args.other)
    except LogError as exc:
        print(f"president uecda: {exc}", file=sys.stderr)
        return 2
    differences = game_differences(*logs)
    for line in differences:
        print(line)
    games = max(len(log.games) for log in logs)
    print(f"president uecda: {counted(games, 'game')}, {counted(len(differences), 'line')} differ"
          if differences else f"president uecda: {counted(games, 'game')}, the same game lines")
    return 1 if differences else 0


def uecda_command(args: argparse.Namespace) -> int:
    from president_engine import DealError, RulesError
    from president_engine.narrate import counted
    from president_sdk.uecda.table import PLAYERS

    from president_harness.uecda.uecda_bridge import contest_rules, request_bytes
    from president_harness.uecda.uecda_log import LogError, scenario_match

    if len(args.seat) >= PLAYERS:
        print(f"president uecda: --seat: at most {PLAYERS - 1} (the contest is of {PLAYERS} players, at least one"
              " a contest client)", file=sys.stderr)
        return 2
    if not args.server and any(seat.account for seat in args.seat):
        print("president uecda: --seat account:NAME: an account's bot plays over a server's Session; give --server",
              file=sys.stderr)
        return 2
    if args.server and args.replay is not None:
        print("president uecda: --replay is without --server (a server keeps its own replays: president replay"
              " MATCH_ID --server HOST:PORT)", file=sys.stderr)
        return 2
    try:
        scenario = () if args.scenario is None else _scenario(args.scenario)
        games = args.games if args.games is not None else len(scenario) or DEFAULT_GAMES
        rules = (contest_rules(games) if args.reseat_every is None
                 else contest_rules(games, reseat_every=args.reseat_every))
        scenario = scenario[:games]
        match: Match | None = None
        if scenario or not args.server:  # checked before any client waits
            match = scenario_match(rules, scenario, args.seed if args.seed is not None else secrets.randbits(32))
        if args.server:
            needed = request_bytes(rules, others=args.seat, deals=scenario)
            if needed > args.max_message_bytes:
                print(f"president uecda: the match's request with {counted(len(scenario), 'scenario game')} takes up"
                      f" to {needed} bytes, more than the {args.max_message_bytes} that --server takes"
                      " (--max-message-bytes): start that server with a larger --max-message-bytes, play fewer"
                      " games (--games), or play without --server", file=sys.stderr)
                return 2
    except DealError as exc:
        print(f"president uecda: {args.scenario}: not a deal of the contest's rules: {exc}", file=sys.stderr)
        return 2
    except (RulesError, LogError) as exc:
        print(f"president uecda: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="president uecda: %(message)s")
    for chatty in ("president.runner", "president_service"):  # the seats' own start lines
        logging.getLogger(chatty).setLevel(logging.WARNING)
    try:
        return asyncio.run(_serve(args, rules, scenario, None if args.server else match))
    except KeyboardInterrupt:
        print("president uecda: interrupted", file=sys.stderr)
        return 130


async def _serve(args: argparse.Namespace, rules: Rules, scenario: Sequence[ScenarioDeal], match: Match | None
                 ) -> int:
    """The match on `args.server`, or `match` played here on the engine."""
    from president_engine.narrate import counted
    from president_sdk.uecda.table import PLAYERS

    from president_harness.uecda.uecda_bridge import DEFAULT_LISTEN, Listener, contest_names
    from president_harness.uecda.uecda_log import reference_header

    log_path: Path = args.log or Path(time.strftime("uecda-%Y%m%d%H%M%S.log"))
    if args.server and admin_metadata(args.admin_token, "uecda") is None:  # says how to give one
        return 2
    host, port = args.listen or DEFAULT_LISTEN
    async with contextlib.AsyncExitStack() as stack:
        try:
            listener = await stack.enter_async_context(Listener(host, port))
        except OSError as exc:
            print(f"president uecda: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        clients = PLAYERS - len(args.seat)
        print(f"president uecda: waiting for {counted(clients, 'contest client')} on {host}:{listener.port}",
              flush=True)
        seated = await listener.seat_clients(clients)
        started = time.time()
        names = contest_names(seated, args.seat)
        if match is None:
            seed = args.seed if args.seed is not None else secrets.randbits(32)
            result = await _on_server(args, rules, scenario, seated, seed, log_path,
                                      reference_header(names, rules, seed, listener.port, started))
            if result is None:
                return 1
        else:
            result = await _on_engine(args, match, seated, log_path, names, listener.port, started)
        for number, (name, points) in enumerate(zip(result.names, result.totals, strict=True)):
            print(f"player {number} {name}: {counted(points, 'point')}")
        print(f"president uecda: game log in {log_path}", flush=True)
    return 0


async def _on_engine(args: argparse.Namespace, match: Match, seated: list[tuple[Arrival, str]], log_path: Path,
                     names: Sequence[str], port: int, started: float) -> BridgeResult:
    """The match played here; the log written as each game ends, the record to --replay's folder at the end."""
    from president_engine import MatchRecord
    from president_engine.narrate import counted

    from president_harness.uecda.uecda_engine import play_on_engine
    from president_harness.uecda.uecda_log import LogWriter, reference_header

    print(f"president uecda: {counted(match.rules.deals or 0, 'game')}, played here on the engine; the game log"
          f" grows in {log_path} as games end", flush=True)
    with log_path.open("w", encoding="utf-8") as file:
        log = LogWriter(file, reference_header(names, match.rules, match.seed, port, started))
        result = await play_on_engine(seated, match, others=args.seat, on_game=log.game)
        log.end(result.totals)
    if args.replay is not None:
        _write_record(args.replay, MatchRecord.from_match(match).dumps(), result.names)
    return result


def _write_record(folder: Path, record: str, names: Sequence[str]) -> None:
    """The match's record, its HTML replay and their index in `folder` (as ``president-bot --replay``)."""
    from president_sdk.bot_cli import write_replays

    write_replays(folder, [(record, "match.json", names, {})], program="president uecda")


async def _on_server(args: argparse.Namespace, rules: Rules, scenario: Sequence[ScenarioDeal],
                     seated: list[tuple[Arrival, str]], seed: int, log_path: Path, header: dict[str, str]
                     ) -> BridgeResult | None:
    """The match created on --server and played there, the log written as each game ends (from the server's
    record of the deals over so far); None (with a line) when the server refuses."""
    from president_engine.narrate import counted

    from president_harness.uecda.uecda_bridge import play_match
    from president_harness.uecda.uecda_log import LoggedGame, LogWriter

    address, token = args.server, admin_token(args.admin_token)
    created: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def announce(done: asyncio.Future[str]) -> None:
        print(f"president uecda: {counted(rules.deals or 0, 'game')}; watch it: match {done.result()} on {address};"
              f" the game log grows in {log_path} as games end", flush=True)

    created.add_done_callback(announce)
    with contextlib.ExitStack() as stack:
        writers: list[LogWriter] = []

        def on_game(game: LoggedGame) -> None:
            if not writers:  # the file once a game has ended: nothing is written for a match the server refused
                writers.append(LogWriter(stack.enter_context(log_path.open("w", encoding="utf-8")), header))
            writers[0].game(game)

        try:
            result = await play_match(seated, address, token, rules, others=args.seat,
                                      deals=scenario, seed=seed, created=created, on_game=on_game)
        except grpc.RpcError as exc:
            print(f"president uecda: {describe_rpc_error(exc, address)}", file=sys.stderr)
            return None
        if writers:
            writers[0].end(result.totals)
    return result
