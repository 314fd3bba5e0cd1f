"""``president demo``: the README's `make run` — a real server, built-in bots over gRPC, shown live.

It starts the server on localhost with its SQLite file and its web pages,
creates a match of the four built-in levels, connects each bot over gRPC
with its seat token (the SDK's runner, one thread per bot, as separate
processes would), and prints the match as a spectator sees it: public
events only, as they happen, with the address of the page that shows it.
The bots think for `--pace` seconds a move so a person can follow.  Then it
keeps serving until Ctrl-C: a match waits with three built-in bots and a
seat for your own bot, with the command that puts it there; when that match
ends, the next one opens for the same token (a dev seat, `dev_seats`: one
command with --again plays match after match; revoked when the demo stops).
Every match's seed is printed, so it can be played again, and its replay's address when it ends.  The database is kept
from run to run: the demo's own matches an earlier run left unfinished are
played out when it starts (`demo_leftovers`), and every match stays listed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import secrets
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, cast

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.server.serve_cli import port_number

from president_harness.child_server import free_port

if TYPE_CHECKING:
    from president_sdk.bot import Bot

# The server, the engine and the bots are imported where the demo uses them: the ``president`` command builds
# this parser for every subcommand.

DEMO_LEVELS = ("hard", "normal", "easy", "random")
GUEST_LEVELS = ("hard", "normal", "easy")
DEV_SEAT = "dev"
"""The demo's dev seat: seat 0 of every match with a seat for the reader's bot, one token for all of them."""


def add_demo_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser("demo", help="serve on localhost and show a live match of built-in bots")
    demo.add_argument("--port", type=port_number, default=50051, help="port (default 50051; a free one if taken)")
    demo.add_argument("--http-port", type=port_number, default=8080,
                      help="port of the web pages (default 8080; a free one if taken)")
    demo.add_argument("--db", default="president-demo.db", help="SQLite database file")
    demo.add_argument("--preset", default="cardverse", help="rules preset (default cardverse)")
    demo.add_argument("--deals", type=int, default=3, help="deals in the match (default 3)")
    demo.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    demo.add_argument("--pace", type=float, default=0.15, help="seconds each bot thinks per move (default 0.15)")
    demo.add_argument("--dev", default=DEV_SEAT, metavar="NAME",
                      help=f"the dev seat (seat 0) whose one token plays every match (default {DEV_SEAT})")
    demo.add_argument("--once", action="store_true", help="stop after the first match instead of serving on")
    demo.set_defaults(handler=demo_command)


def demo_command(args: argparse.Namespace) -> int:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_demo(args))
    return 0


async def _demo(args: argparse.Namespace) -> None:
    from president_engine import compiled
    from president_engine.narrate import counted
    from president_service.play.clock import ClockSettings
    from president_service.server.grpc_server import ServerConfig, StartError, start

    from president_harness.demo.demo_leftovers import play_out_leftovers

    admin = secrets.token_hex(16)
    port = free_port(args.port)
    if port != args.port:
        print(f"president: port {args.port} is taken (another server?); using port {port} instead", flush=True)
    http_port = free_port(args.http_port)
    if http_port != args.http_port:
        print(f"president: port {args.http_port} is taken; the web pages use port {http_port} instead", flush=True)
    try:
        server = await start(ServerConfig(db=args.db, admin_token=admin, port=port, http_port=http_port,
                                          clock=ClockSettings(move_ms=0, bank_ms=0, max_strikes=0)))
    except StartError as exc:
        print(f"president demo: {exc}", file=sys.stderr)
        return
    address = f"localhost:{server.port}"
    web = f"http://localhost:{server.http_port}"
    print(f"president: serving on {address} (database {args.db})", flush=True)
    print(f"president: web pages on {web}/ (live matches, replays)", flush=True)
    print(f"president: {compiled.describe()}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    server.registry.dev_seats.revoke(args.dev)  # an earlier run's, if it was killed before revoking it
    try:
        for match_id in await play_out_leftovers(server.registry, DEMO_LEVELS, GUEST_LEVELS):
            print(f"match {match_id}: left unfinished by an earlier run; played out now by the demo's bots;"
                  f" its replay: {web}/matches/{match_id}/replay", flush=True)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            auth = (("authorization", f"Bearer {admin}"),)
            seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
            created = await stub.CreateMatch(pb.CreateMatchRequest(
                preset=args.preset, rules=pb.Rules(deals=args.deals), seed=seed,
                clock=pb.ClockSettings(move_time_limit_ms=5000, time_bank_ms=10000, strikes_before_takeover=3),
                seat_names=list(DEMO_LEVELS)), metadata=auth)
            print(f"match {created.match_id}: {args.preset}, {counted(args.deals, 'deal')},"
                  f" seed {seed};"
                  f" bots {', '.join(DEMO_LEVELS)} connecting over gRPC", flush=True)
            print(f"watch it in a browser: {web}/matches/{created.match_id}\n", flush=True)
            for level, seat in zip(DEMO_LEVELS, created.seats, strict=True):
                _start_bot(level, address, seat.token, args.pace)
            await _watch(stub, created.match_id, created.rules, stop, args.preset, web)
            token = ""
            while not (args.once or stop.is_set()):
                token = await _guest_match(stub, auth, address, web, args, stop, token)
    finally:
        logging.getLogger("president.runner").setLevel(logging.ERROR)  # our bots lose the server on purpose
        server.registry.dev_seats.revoke(args.dev)
        await server.stop(1.0)
        print("president: stopped", flush=True)


async def _guest_match(stub: pb_grpc.PresidentServiceAsyncStub, auth: tuple[tuple[str, str], ...], address: str,
                       web: str, args: argparse.Namespace, stop: asyncio.Event, token: str) -> str:
    """One match with the dev seat for the reader's bot, shown as it is played; the next one is made when it ends.

    `token`: the dev seat's, given by its first match (later ones give none); returns it."""
    names = ["", *GUEST_LEVELS]  # seat 0 without a name: the bot that takes it names itself (Hello.name)
    seed = secrets.randbelow(2**31)
    # Seat 0 is the dev seat, open (its token claims it on first use; JoinMatch may not): the match waits for the
    # reader's bot, not started, so the server's absence limit does not play it out meanwhile.
    created = await stub.CreateMatch(pb.CreateMatchRequest(
        preset=args.preset, rules=pb.Rules(deals=args.deals), seed=seed, seat_names=names,
        clock=pb.ClockSettings(), open_seats=True, reserved_seats=range(1, len(names)), dev_seat=args.dev),
        metadata=auth)
    for level, seat in zip(GUEST_LEVELS, created.seats[1:], strict=True):
        _start_bot(level, address, seat.token, args.pace)
    token = created.seats[0].token or token
    print(f"""
The server keeps running on {address}. Match {created.match_id} ({args.preset}, seed {seed}) waits for
your bot in seat 0 against {', '.join(GUEST_LEVELS)} (no clock: take your time). In another terminal:

  .venv/bin/president-bot examples/python/first_bot.py --server {address} --token {token} --again

or any other bot: `president-bot builtin:hard ...`, `node examples/node/bot.js --server {address} --token ...`,
`examples/go/bot --server {address} --token ...`, java/ or cpp/ for go/ (see "Write your first bot" in the README).
Seat 0 shows your bot's name (`--name NAME` picks another).
The match is shown here as it is played, and in a browser at {web}/matches/{created.match_id}; when it
ends, its replay's address is printed and the next match opens for the same token (--again plays it).
Ctrl-C stops the server.
""", flush=True)
    await _watch(stub, created.match_id, created.rules, stop, args.preset, web)
    return token


def _start_bot(level: str, address: str, token: str, pace: float) -> None:
    from president_sdk.bots import builtin_bot
    from president_sdk.remote import run
    from president_sdk.runner_errors import RunnerError

    bot = _paced(builtin_bot(level), pace)

    def play() -> None:
        try:
            run(bot, address, token)
        except RunnerError as exc:
            print(f"[{level}] {exc}", flush=True)

    threading.Thread(target=play, name=f"bot-{level}", daemon=True).start()


def _paced(bot: Bot, pace: float) -> Bot:
    """The same bot, thinking `pace` seconds before each play so that a person can follow."""
    from president_engine import Action, Observation
    from president_sdk.bot import Bot

    base = type(bot)

    def play(self: Bot, obs: Observation) -> Action:
        time.sleep(pace)
        return base.play(self, obs)

    return cast(Bot, type(base.__name__, (base,), {"play": play})())


async def _watch(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str, rules: pb.Rules, stop: asyncio.Event,
                 preset: str, web: str) -> None:
    """Print the match as a spectator sees it until it is over (or Ctrl-C), then the address of its replay."""
    from president_protocol import convert

    from president_harness.demo.table_status import TableStatus

    players = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match.players
    table = TableStatus(convert.rules_from_proto(rules), [p.name for p in players], preset=preset)
    stream = stub.Spectate(pb.SpectateRequest(match_id=match_id, from_seq=1))

    async def show() -> None:
        nonlocal players
        async for message in stream:
            kind = message.WhichOneof("kind")
            if kind == "match_over":
                print(f"\nits replay: {web}/matches/{match_id}/replay", flush=True)
                return
            if kind == "event":
                if not all(p.connected for p in players):  # until then a seat may still take its bot's name
                    players = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match.players
                    for old, new in zip(table.names, (p.name for p in players), strict=True):
                        if old != new:
                            print(f"   ** {new} took the seat of {old}", flush=True)
                    table.names = [p.name for p in players]
                for line in table.lines(message.event):
                    print(line, flush=True)

    showing = asyncio.create_task(show())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({showing, stopping}, return_when=asyncio.FIRST_COMPLETED)
    for task in (showing, stopping):
        task.cancel()
    stream.cancel()
