"""``president host``: run bots in sandboxes, connected to a server, and start each again when it dies.

    president host --server unix:/run/president/server.sock --account-token TOKEN --bot mybot/
    president host --server localhost:50051 --bot mybot/ --run "president-bot bot.py --arena" --slot 2
    president host --server unix:run/president.sock --versions --admin-token SECRET --work run/builds/ --bots 8

With --versions the host runs submitted versions: the server leases it each account's current READY version
(up to --bots at once), with a token of the version's own; the host runs each from its built folder
WORK/built/VERSION (the builder's, on the builder's machine; elsewhere fetched from the server, as the builder
uploaded it) with its manifest's run command, one sandbox slot each (--slot, --slot + 1, ...), renews its
leases every --poll seconds, and stops a version the server no longer leases to it (retired, replaced by a newer
version, its account revoked).

Submitted code is hostile until proven otherwise. It runs only in the sandbox, with equal resources for every
bot (`president_harness.hosting.sandbox`): its only way out is a Unix socket relayed to the server, which plays its
account's matches over the account's Session.  The bot runs as ``president-bot FILE`` (FILE: the folder's
bot.py, or its one Python file), or as --run says, with the account token in PRESIDENT_ACCOUNT_TOKEN and the
server in PRESIDENT_SERVER.  Each start and each end is one line here, with why it ended; its output goes to
LOG_DIR/NAME.log (the run before it to NAME.previous.log), capped.  Where a sandbox cannot start, the host
refuses with one line saying why, unless --no-sandbox is given, which every start then says again.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import shlex
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_metadata
from president_harness.hosting.hosting import ACCOUNT_TOKEN_ENV, Hosting, Keeper, say
from president_harness.hosting.sandbox import (
    MB,
    Sandbox,
    SandboxError,
    seconds_limit,
    slot_number,
    stage,
    whole_limit,
)
from president_harness.hosting.socket_relay import relay_to
from president_harness.interrupts import terminate_as_interrupt
from president_harness.rpc_errors import describe_rpc_error, error_reason

POLL_S = 10.0
"""How often a --versions host renews its leases (a lease lasts a minute on the server)."""
FATAL = ("NOT_ADMIN", "MISSING_TOKEN", "BAD_TOKEN")
_DEFAULTS = Sandbox(folder=Path())
JAIL_MEMORY_MB = 512
"""Each hosted bot's memory, all its processes together (a hosted Python bot holds about 30 MB, a Java one about
100 MB)."""


def add_host_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    host = commands.add_parser("host", help="run a bot folder's bot in a sandbox, connected to a server",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    host.add_argument("--server", required=True, help="the server: unix:PATH (see `president serve --unix`) or"
                                                      " HOST:PORT")
    host.add_argument("--account-token", help=f"the bot's account token (or set {ACCOUNT_TOKEN_ENV})")
    which = host.add_mutually_exclusive_group(required=True)
    which.add_argument("--bot", type=Path, metavar="DIR", help="the bot's folder")
    which.add_argument("--versions", action="store_true", help="run the submitted versions the server leases to"
                                                               " this host (with --admin-token)")
    host.add_argument("--admin-token", help=f"with --versions: the server's admin token (or set {ADMIN_TOKEN_ENV})")
    host.add_argument("--work", type=Path, default=Path("run/builds"),
                      help="with --versions: where built folders are, as WORK/built/VERSION: the builder's --work on"
                           " its machine; elsewhere they are fetched from the server into it (default run/builds)")
    host.add_argument("--bots", type=whole_limit, default=8, help="with --versions: versions run at once (default 8)")
    host.add_argument("--name", default=os.uname().nodename, help="with --versions: this host's name")
    host.add_argument("--poll", type=seconds_limit, default=POLL_S, metavar="SECONDS",
                      help=f"with --versions: how often leases are renewed and new ones asked for (default {POLL_S:g})")
    host.add_argument("--run", help="its command, run in the folder (default: president-bot FILE, FILE the"
                                    " folder's bot.py or its one .py file)")
    host.add_argument("--log-dir", type=Path, default=Path("run/host-logs"),
                      help="where each bot's output goes, as NAME.log (default run/host-logs)")
    host.add_argument("--slot", type=slot_number, default=0,
                      help="which sandbox of this machine: its user id is 100000 + SLOT; give each host its own"
                           " (default 0)")
    host.add_argument("--memory-mb", type=whole_limit, default=_DEFAULTS.memory_bytes // MB,
                      help=f"address space of each process (default {_DEFAULTS.memory_bytes // MB})")
    host.add_argument("--jail-memory-mb", type=whole_limit, default=JAIL_MEMORY_MB,
                      help="memory of each bot's processes together (held by the kernel where the host can make"
                           " cgroups, else measured every 0.1 s): past it the bot is killed (default"
                           f" {JAIL_MEMORY_MB})")
    host.add_argument("--cpu-seconds", type=whole_limit, default=_DEFAULTS.cpu_s,
                      help=f"CPU seconds of each process, then it is killed (default {_DEFAULTS.cpu_s})")
    host.add_argument("--processes", type=whole_limit, default=_DEFAULTS.processes,
                      help=f"processes and threads at once (default {_DEFAULTS.processes})")
    host.add_argument("--cpu-cores", type=_cores, default=None, metavar="CORES",
                      help="a cap on each bot's CPU, in cores on average, all its processes and threads"
                           " together, even on an idle machine (default: no cap; the bots that compete for the CPU"
                           " get equal shares of it, and one alone gets the idle machine's cores)")
    host.add_argument("--wall-clock", type=seconds_limit, default=None, metavar="SECONDS",
                      help="kill each run after this long (default: no limit)")
    host.add_argument("--no-sandbox", action="store_true",
                      help="run the bot as a plain child process with this user's rights (only for code you trust)")
    host.set_defaults(handler=host_command)


def host_command(args: argparse.Namespace) -> int:
    if args.versions:
        return _host_versions(args)
    token = args.account_token or os.environ.get(ACCOUNT_TOKEN_ENV, "")
    if not token:
        print(f"president host: give --account-token or set {ACCOUNT_TOKEN_ENV}", file=sys.stderr)
        return 2
    folder: Path = args.bot
    try:
        argv = shlex.split(args.run) if args.run else ["president-bot", _bot_file(folder)]
    except ValueError as exc:
        print(f"president host: {exc}", file=sys.stderr)
        return 2
    sandbox = _sandbox(args, folder, args.cpu_cores)
    if not args.no_sandbox and (problem := sandbox.check()) is not None:
        print(f"president host: {problem}; not running {folder} (--no-sandbox would run it with this user's rights)",
              file=sys.stderr)
        return 1
    args.log_dir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        try:
            if args.no_sandbox:
                socket, env = None, {ACCOUNT_TOKEN_ENV: token, "PRESIDENT_SERVER": args.server}
            else:
                snapshot = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="president-host-")))
                sandbox = dataclasses.replace(sandbox, folder=stage(folder, snapshot))
                socket, env = stack.enter_context(relay_to(args.server, sandbox.uid)), {ACCOUNT_TOKEN_ENV: token}
        except (ValueError, OSError, SandboxError) as exc:
            print(f"president host: {exc}", file=sys.stderr)
            return 1
        stack.enter_context(terminate_as_interrupt())
        keeper = Keeper(sandbox, argv, folder.resolve().name, args.log_dir, socket=socket, env=env,
                        jailed=not args.no_sandbox)
        keeper.start()
        try:
            keeper.ended.wait()
        except KeyboardInterrupt:
            keeper.stop()
            keeper.ended.wait()
    return 0


def _cores(text: str) -> float:
    try:
        cores = float(text)
    except ValueError:
        cores = math.nan
    if not (math.isfinite(cores) and 0.01 <= cores <= 4096):
        raise argparse.ArgumentTypeError(f"{text!r}: a number of cores, from 0.01")
    return cores


def _sandbox(args: argparse.Namespace, folder: Path, cores: float | None) -> Sandbox:
    return Sandbox(folder=folder, slot=args.slot, memory_bytes=args.memory_mb * MB, cpu_s=args.cpu_seconds,
                   processes=args.processes, wall_s=args.wall_clock, cpu_cores=cores,
                   jail_memory_bytes=args.jail_memory_mb * MB)


def _host_versions(args: argparse.Namespace) -> int:
    if (admin := admin_metadata(args.admin_token, "host")) is None:
        return 2
    sandbox = _sandbox(args, Path(), args.cpu_cores)
    if not args.no_sandbox and (problem := sandbox.check()) is not None:
        print(f"president host: {problem}; not running any version (--no-sandbox would run them with this user's"
              " rights)", file=sys.stderr)
        return 1
    args.log_dir.mkdir(parents=True, exist_ok=True)
    hosting = Hosting(server=args.server, name=args.name[:64], work=args.work, log_dir=args.log_dir, sandbox=sandbox,
                      capacity=args.bots, jailed=not args.no_sandbox)
    say(f"hosting up to {args.bots} versions for {args.server} as {args.name[:64]!r}")
    with grpc.insecure_channel(args.server) as channel, terminate_as_interrupt():
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            while True:
                try:
                    hosting.renew(stub, admin)
                except grpc.RpcError as exc:
                    say(describe_rpc_error(exc, args.server))
                    if error_reason(exc) in FATAL:
                        return 1
                time.sleep(args.poll)
        except KeyboardInterrupt:
            hosting.stop_all()
            say("stopped")
    return 0


def _bot_file(folder: Path) -> str:
    """The folder's bot.py, or its one Python file."""
    if not folder.is_dir():
        raise ValueError(f"--bot {folder}: no such folder")
    if (folder / "bot.py").is_file():
        return "bot.py"
    found = sorted(path.name for path in folder.glob("*.py"))
    if len(found) != 1:
        raise ValueError(f"--bot {folder}: no bot.py and {len(found)} other .py files: say which with --run")
    return found[0]
