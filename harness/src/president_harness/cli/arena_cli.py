"""``president arena``: a server with the arena on, house bots seated, and the leaderboard printed as it changes.

    president arena                                        # localhost:50051, cardverse:4, four house bots
    president arena --queue cardverse:4 --queue norwegian:5 --duplicate --db run/arena.db

It starts ``president serve --arena`` (a child process with its own db and
its web pages, where the leaderboard is shown too), makes a house account for
each built-in level and plays them all from one asyncio client over Sessions
(the server core never runs bot code, so house bots are clients like any
other), makes an account for a newcomer and prints the command that joins the
arena with it, then prints a queue's leaderboard whenever its order changes
(or an account joins it), at most once every few seconds (``--every``),
until Ctrl-C.  House bots never play a table without a newcomer: the
leaderboard moves once someone joins.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.server.serve_cli import port_number

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_token
from president_harness.child_server import ChildServer, ServerError, free_port
from president_harness.cli.cli_names import BUILTIN_LEVELS, PRESET_NAMES
from president_harness.cli.house_cli import HouseError, account_token, house_name
from president_harness.interrupts import terminate_as_interrupt

if TYPE_CHECKING:
    from president_sdk.session_client import FinishedMatch

HOUSE_LEVELS = ("hard", "normal", "easy", "random")
Queue = tuple[str, int]


class ArenaError(RuntimeError):
    """The arena could not be set up (its server, its accounts)."""


def _queue(text: str) -> Queue:
    preset, _, players = text.partition(":")
    if preset not in PRESET_NAMES or not players.isdigit() or int(players) < 3:
        raise argparse.ArgumentTypeError(f"{text!r}: write PRESET:PLAYERS, e.g. cardverse:4"
                                         f" (presets: {PRESET_NAMES})")
    return preset, int(players)


def add_arena_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    arena = commands.add_parser("arena", help="a server with the arena on, house bots playing, the leaderboard live",
                                description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    arena.add_argument("--port", type=port_number, default=50051, help="port (default 50051; a free one if taken)")
    arena.add_argument("--http-port", type=port_number, default=8080,
                       help="port of the web pages, the leaderboard among them (default 8080; a free one if taken)")
    arena.add_argument("--db", type=Path, default=Path("run/arena.db"), help="SQLite file (default run/arena.db)")
    arena.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV}; default: a new"
                                             " one, printed)")
    arena.add_argument("--queue", action="append", type=_queue, metavar="PRESET:PLAYERS",
                       help="a queue of the arena (repeatable; default cardverse:4)")
    arena.add_argument("--deals", type=int, default=1, help="deals in an arena match (default 1)")
    arena.add_argument("--duplicate", action="store_true",
                       help="each table plays every rotation of one deal (as many matches as players)")
    arena.add_argument("--house", default=",".join(HOUSE_LEVELS),
                       help=f"built-in levels seated as house bots (default {','.join(HOUSE_LEVELS)})")
    arena.add_argument("--house-matches", type=int, default=20, help="matches each house bot plays at once")
    arena.add_argument("--newcomer", default="newcomer", help="the account made for a newcomer (default newcomer)")
    arena.add_argument("--every", type=float, default=5.0,
                       help="the fewest seconds between two looks at the leaderboard (default 5)")
    arena.set_defaults(handler=arena_command)


def arena_command(args: argparse.Namespace) -> int:
    queues: list[Queue] = args.queue or [("cardverse", 4)]
    levels = [level.strip() for level in args.house.split(",") if level.strip()]
    unknown = [level for level in levels if level not in BUILTIN_LEVELS]
    if unknown or len(levels) < max(players for _, players in queues) - 1:
        print(f"president arena: --house: {len(levels)} built-in levels ({BUILTIN_LEVELS}) cannot fill"
              f" a table beside a newcomer in {', '.join(f'{p}:{n}' for p, n in queues)}" if not unknown
              else f"president arena: --house: no built-in level {unknown[0]!r} (known: {BUILTIN_LEVELS})",
              file=sys.stderr)
        return 2
    if not args.every > 0:
        print("president arena: --every: give a number of seconds above 0", file=sys.stderr)
        return 2
    admin = admin_token(args.admin_token) or secrets.token_hex(18)
    port = free_port(args.port)
    if port != args.port and args.port:
        print(f"president arena: port {args.port} is taken; using port {port} instead", flush=True)
    http_port = free_port(args.http_port)
    if http_port != args.http_port and args.http_port:
        print(f"president arena: port {args.http_port} is taken; the web pages use port {http_port} instead",
              flush=True)
    options = ["--arena", "--arena-deals", str(args.deals), *(["--arena-duplicate"] if args.duplicate else []),
               "--http-port", str(http_port), "--human-seats"]
    for preset, players in queues:
        options += ["--arena-queue", f"{preset}:{players}"]
    try:
        with terminate_as_interrupt(), ChildServer(args.db, options, port=port, admin_token=admin) as server:
            _run(server, admin, queues, levels, args)
    except (ServerError, ArenaError) as exc:
        print(f"president arena: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\npresident arena: stopped", flush=True)
    return 0


def _run(server: ChildServer, admin: str, queues: Sequence[Queue], levels: Sequence[str],
         args: argparse.Namespace) -> None:
    from president_sdk.session_client import Appetite

    from president_harness.builtin_sessions import BuiltinSessions

    address = server.address
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        house = {_account(stub, admin, house_name(level), house=True, server=address): level for level in levels}
        newcomer = _account(stub, admin, args.newcomer, house=False, server=address)
        print(f"president arena: serving on {address} (database {args.db}); queues"
              f" {', '.join(f'{p}:{n}' for p, n in queues)}; house bots"
              f" {', '.join(house_name(level) for level in levels)}", flush=True)
        print(f"president arena: web pages on {server.web} (the leaderboard, live matches, replays)", flush=True)
        print(f"""
Join the arena with your bot (account {args.newcomer}); it first plays a check match against the house bots:

  .venv/bin/president-bot examples/python/first_bot.py --server {address} --account-token {newcomer} --arena

More accounts: .venv/bin/president account create NAME --owner YOU --server {address} --admin-token {admin}
Ctrl-C stops the arena.
""", flush=True)
        changed = threading.Event()

        def finished(match: FinishedMatch) -> None:
            changed.set()

        appetite = Appetite(presets=tuple(sorted({p for p, _ in queues})),
                            players=tuple(sorted({n for _, n in queues})), max_matches=args.house_matches, arena=True)
        shown: dict[Queue, list[str]] = {}
        looked = -args.every
        with BuiltinSessions(address, house, appetite=appetite, on_finished=finished) as bots:
            while True:
                changed.wait(args.every)
                time.sleep(max(0.0, looked + args.every - time.monotonic()))  # looks stay --every apart
                changed.clear()
                if bots.error is not None:
                    raise ArenaError(bots.error)
                server.keep_alive()
                looked = time.monotonic()
                for board in queues:
                    with contextlib.suppress(grpc.RpcError):  # the server restarting: next time
                        _show(stub, board, shown)


def _account(stub: pb_grpc.PresidentServiceStub, admin: str, name: str, *, house: bool, server: str) -> str:
    """The token of account `name`: made now, or a new one for the account the arena's db already has."""
    try:
        return account_token(stub, (("authorization", f"Bearer {admin}"),), name, server, house=house,
                             owner="president arena")
    except HouseError as exc:
        raise ArenaError(str(exc)) from None


def _show(stub: pb_grpc.PresidentServiceStub, board: Queue, shown: dict[Queue, list[str]]) -> None:
    """Print the queue's leaderboard if its order changed since it was last printed (a new account changes it):
    a table that moves only in its figures is not worth a screenful each match."""
    preset, players = board
    entries = stub.GetLeaderboard(pb.GetLeaderboardRequest(preset=preset, players=players), timeout=10).entries
    order = [f"{e.account}@{e.version_id}" if e.version_id else e.account for e in entries]
    if not entries or shown.get(board) == order:
        return
    shown[board] = order
    width = max(len(player) for player in order)
    print(f"leaderboard {preset}:{players}: by rating (OpenSkill's conservative mu - 3 sigma)", flush=True)
    for rank, (e, player) in enumerate(zip(entries, order, strict=True), 1):
        notes = ", ".join(n for n, on in (("house", e.house), ("provisional", e.provisional)) if on)
        print(f"  {rank:>2}  {player:<{width}}  rating {e.ordinal:6.2f}  mean place {e.mean_place:.2f}"
              f" [{e.mean_place_low:.2f}, {e.mean_place_high:.2f}]  {e.matches} match{'es' if e.matches != 1 else ''}"
              f"{f'  ({notes})' if notes else ''}", flush=True)
