"""``president serve``: run the game server until Ctrl-C or SIGTERM, then drain.

The ``president`` command (president_harness) adds this subcommand with
`add_serve_parser`; ``python -m president_service serve`` runs it alone.  The
admin token comes from --admin-token or the PRESIDENT_ADMIN_TOKEN environment
variable (which keeps it out of the process list).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import math
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from president_service.base.limits import Limits
from president_service.league.arena_settings import ArenaSettings
from president_service.play.clock import ABSENCE_S, ClockError, ClockSettings

# The server itself (grpc_server, the engine) is imported by the command that runs it: the ``president`` command
# registers this parser for every subcommand, and a one-RPC command should not pay for loading the server.

ADMIN_TOKEN_ENV = "PRESIDENT_ADMIN_TOKEN"
_LIMITS = Limits()
_CLOCK = ClockSettings()
_CLOCK_FLAGS = {"move_ms": "move-ms", "bank_ms": "bank-ms", "max_strikes": "strikes"}
_ARENA = ArenaSettings()


def port_number(text: str) -> int:
    """An argparse type for a TCP port (0 asks for a free one): one line, not a traceback, for any other."""
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: a port from 0 to 65535")
    return int(text)


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of seconds above 0, e.g. 60")
    return seconds


def _queue(text: str) -> tuple[str, int]:
    from president_engine import PRESETS

    preset, _, players = text.partition(":")
    if preset not in PRESETS or not players.isdigit() or int(players) < 3:
        raise argparse.ArgumentTypeError(f"{text!r}: write PRESET:PLAYERS, e.g. cardverse:4"
                                         f" (presets: {', '.join(PRESETS)})")
    return preset, int(players)


def add_serve_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` on a command's subparsers."""
    serve = commands.add_parser("serve", help="run the game server")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=port_number, default=50051, help="port; 0 picks a free one (default 50051)")
    serve.add_argument("--unix", type=Path, default=None, metavar="PATH",
                       help="also listen on this Unix socket (no TLS; its file mode says who may connect), e.g. for"
                            " `president host`, whose sandboxed bots reach the server only through it")
    serve.add_argument("--db", required=True, help="SQLite database file (created if missing)")
    serve.add_argument("--admin-token", default=None, help=f"admin token (or set {ADMIN_TOKEN_ENV})")
    serve.add_argument("--http-port", type=port_number, default=None,
                       help="also serve the web pages (match list, live matches, replays) on this port; 0 picks"
                            " a free one (default: no web pages)")
    serve.add_argument("--human-seats", action="store_true",
                       help="anyone on the web pages may play a match against a connected bot (with house bots)")
    serve.add_argument("--tls-cert", type=Path, help="PEM certificate chain; TLS when given with --tls-key")
    serve.add_argument("--tls-key", type=Path, help="PEM private key")
    serve.add_argument("--max-matches", type=int, default=_LIMITS.max_matches)
    serve.add_argument("--max-streams-per-seat", type=int, default=_LIMITS.max_streams_per_seat)
    serve.add_argument("--max-spectators", type=int, default=_LIMITS.max_spectators)
    serve.add_argument("--max-message-bytes", type=int, default=_LIMITS.max_receive_bytes)
    serve.add_argument("--account-matches", type=int, default=_LIMITS.account_matches,
                       help=f"live matches one account may sit in at once (default {_LIMITS.account_matches})")
    serve.add_argument("--account-matches-per-day", type=int, default=_LIMITS.account_matches_per_day,
                       help=f"matches one account may start in 24 hours (default {_LIMITS.account_matches_per_day})")
    serve.add_argument("--move-ms", type=int, default=_CLOCK.move_ms,
                       help="default move time limit in ms (0: no clock)")
    serve.add_argument("--bank-ms", type=int, default=_CLOCK.bank_ms, help="default time bank per seat in ms")
    serve.add_argument("--strikes", type=int, default=_CLOCK.max_strikes,
                       help="default timeouts before the server plays a seat (0: never)")
    serve.add_argument("--start-grace", type=float, default=30.0,
                       help="seconds a match waits for all seats before its clock starts anyway")
    serve.add_argument("--absence-limit", type=_seconds, default=ABSENCE_S, metavar="SECONDS",
                       help="seconds a started match waits on a seat with no client connected (no stream, no call)"
                            " before the server plays its move as for a timeout, with a strike; also without a"
                            f" clock and after a restart (default {ABSENCE_S:g})")
    serve.add_argument("--shutdown-grace", type=float, default=5.0, help="seconds running calls get at shutdown")
    arena = serve.add_argument_group("arena", "matches formed from connected bot accounts, rated with OpenSkill")
    arena.add_argument("--arena", action="store_true", help="form matches from willing accounts (matchmaking)")
    arena.add_argument("--arena-queue", action="append", metavar="PRESET:PLAYERS", type=_queue,
                       help="a queue of the arena, e.g. cardverse:4 (repeatable; default: "
                            + ", ".join(f"{p}:{n}" for p, n in _ARENA.queues) + ")")
    arena.add_argument("--arena-deals", type=int, default=_ARENA.deals, help="deals in an arena match")
    arena.add_argument("--arena-duplicate", action="store_true",
                       help="each table plays every rotation of one deal (as many matches as players)")
    serve.set_defaults(handler=serve_command)


async def _serve(args: argparse.Namespace, admin_token: str) -> None:
    from president_engine import compiled

    from president_service.server.grpc_server import ServerConfig, start

    _tune_gc()
    running = await start(ServerConfig(
        db=args.db, admin_token=admin_token, host=args.host, port=args.port,
        tls_cert=args.tls_cert, tls_key=args.tls_key, unix_socket=args.unix,
        limits=Limits(max_matches=args.max_matches, max_streams_per_seat=args.max_streams_per_seat,
                      max_spectators=args.max_spectators, max_receive_bytes=args.max_message_bytes,
                      account_matches=args.account_matches, account_matches_per_day=args.account_matches_per_day),
        clock=ClockSettings(move_ms=args.move_ms, bank_ms=args.bank_ms, max_strikes=args.strikes),
        start_grace_s=args.start_grace, absence_s=args.absence_limit,
        http_port=args.http_port, http_grace_s=args.shutdown_grace, human_seats=args.human_seats,
        arena=ArenaSettings(enabled=args.arena, queues=tuple(args.arena_queue or _ARENA.queues),
                            deals=args.arena_deals, duplicate=args.arena_duplicate),
    ))
    print(f"president: serving on {args.host}:{running.port}" + (f" and unix:{args.unix}" if args.unix else ""),
          flush=True)
    if running.http_port is not None:
        print(f"president: web pages on http://{args.host}:{running.http_port}/", flush=True)
    print(f"president: {compiled.describe()}", flush=True)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    print("president: draining", flush=True)
    await running.stop(args.shutdown_grace)


def _tune_gc() -> None:
    """Collect the young generation every 20,000 allocations instead of 700.

    Every move allocates a few hundred short-lived objects (protobuf
    messages, events, actions) that plain reference counting frees, so the
    default threshold runs a collection every few moves for nothing, and
    those pauses are what a move waits behind at the 99th percentile
    (`make bench-service`).  Live state is small, so the memory cost is too.
    """
    gc.set_threshold(20_000, 50, 100)


def serve_command(args: argparse.Namespace) -> int:
    """Run the server the parsed ``serve`` arguments describe; returns the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    admin_token = args.admin_token or os.environ.get(ADMIN_TOKEN_ENV, "")
    if not admin_token:
        print(f"president serve: give --admin-token or set {ADMIN_TOKEN_ENV}", file=sys.stderr)
        return 2
    from president_service.server.grpc_server import StartError

    try:
        asyncio.run(_serve(args, admin_token))
    except ClockError as exc:
        print(f"president serve: --{_CLOCK_FLAGS[exc.option]}: {str(exc).removeprefix(exc.option + ': ')}",
              file=sys.stderr)
        return 2
    except StartError as exc:
        print(f"president serve: {exc}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m president_service serve ...``: the server alone."""
    from importlib.metadata import version

    parser = argparse.ArgumentParser(prog="python -m president_service", description="The President game server.")
    parser.add_argument("--version", action="version", version=f"president-service {version('president-service')}")
    add_serve_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))
