"""``president host``: run a bot folder's bot in a sandbox, connected to a server, and start it again when it dies.

    president host --server unix:/run/president/server.sock --account-token TOKEN --bot mybot/
    president host --server localhost:50051 --bot mybot/ --run "president-bot bot.py --arena" --slot 2

Submitted code is hostile until proven otherwise. It runs only in the sandbox, with equal resources for every
bot (`president_harness.sandbox`): its only way out is a Unix socket relayed to the server, which plays its
account's matches over the account's Session.  The bot runs as ``president-bot FILE`` (FILE: the folder's
bot.py, or its one Python file), or as --run says, with the account token in PRESIDENT_ACCOUNT_TOKEN and the
server in PRESIDENT_SERVER.  Each start and each end is one line here, with why it ended; its output goes to
LOG_DIR/NAME.log (the run before it to NAME.previous.log), capped.  Where a sandbox cannot start, the host
refuses with one line saying why, unless --no-sandbox is given, which every start then says again.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import shlex
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from president_harness.interrupts import terminate_as_interrupt
from president_harness.sandbox import (
    MB,
    Jailed,
    Sandbox,
    SandboxError,
    relay_to,
    seconds_limit,
    slot_number,
    stage,
    whole_limit,
)

ACCOUNT_TOKEN_ENV = "PRESIDENT_ACCOUNT_TOKEN"
FIRST_DELAY_S = 1.0
LAST_DELAY_S = 60.0
"""Restarts wait FIRST_DELAY_S, twice as long after each quick death, at most LAST_DELAY_S."""
STEADY_S = 60.0
"""A run that lasted this long was not a crash loop: the next restart waits FIRST_DELAY_S again."""
_DEFAULTS = Sandbox(folder=Path())


def add_host_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    host = commands.add_parser("host", help="run a bot folder's bot in a sandbox, connected to a server",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    host.add_argument("--server", required=True, help="the server: unix:PATH (see `president serve --unix`) or"
                                                      " HOST:PORT")
    host.add_argument("--account-token", help=f"the bot's account token (or set {ACCOUNT_TOKEN_ENV})")
    host.add_argument("--bot", required=True, type=Path, metavar="DIR", help="the bot's folder")
    host.add_argument("--run", help="its command, run in the folder (default: president-bot FILE, FILE the"
                                    " folder's bot.py or its one .py file)")
    host.add_argument("--log-dir", type=Path, default=Path("host-logs"),
                      help="where each bot's output goes, as NAME.log (default host-logs)")
    host.add_argument("--slot", type=slot_number, default=0,
                      help="which sandbox of this machine: its user id is 100000 + SLOT; give each host its own"
                           " (default 0)")
    host.add_argument("--memory-mb", type=whole_limit, default=_DEFAULTS.memory_bytes // MB,
                      help=f"address space of each process (default {_DEFAULTS.memory_bytes // MB})")
    host.add_argument("--cpu-seconds", type=whole_limit, default=_DEFAULTS.cpu_s,
                      help=f"CPU seconds of each process, then it is killed (default {_DEFAULTS.cpu_s})")
    host.add_argument("--processes", type=whole_limit, default=_DEFAULTS.processes,
                      help=f"processes and threads at once (default {_DEFAULTS.processes})")
    host.add_argument("--wall-clock", type=seconds_limit, default=None, metavar="SECONDS",
                      help="kill each run after this long (default: no limit)")
    host.add_argument("--no-sandbox", action="store_true",
                      help="run the bot as a plain child process with this user's rights (only for code you trust)")
    host.set_defaults(handler=host_command)


def _say(line: str) -> None:
    print(f"president host: {line}", flush=True)


def host_command(args: argparse.Namespace) -> int:
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
    sandbox = Sandbox(folder=folder, slot=args.slot, memory_bytes=args.memory_mb * MB, cpu_s=args.cpu_seconds,
                      processes=args.processes, wall_s=args.wall_clock)
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
        _supervise(sandbox, argv, folder.resolve().name, args.log_dir, socket=socket, env=env,
                   jailed=not args.no_sandbox)
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


def _supervise(sandbox: Sandbox, argv: list[str], name: str, log_dir: Path, *, socket: Path | None,
               env: dict[str, str], jailed: bool) -> None:
    """Run the bot again and again until Ctrl-C or SIGTERM, a line for each start and end."""
    log, previous = log_dir / f"{name}.log", log_dir / f"{name}.previous.log"
    how = (f"in its sandbox (uid {sandbox.uid}; {sandbox.memory_bytes // MB} MB and {sandbox.cpu_s} CPU s a"
           f" process, {sandbox.processes} processes)" if jailed else
           "WITHOUT A SANDBOX (--no-sandbox): it can read, write and reach whatever this user can")
    delay = FIRST_DELAY_S
    running: Jailed | None = None
    try:
        for run in itertools.count(1):
            if log.exists():
                log.replace(previous)
            running = sandbox.start(argv, log=log, socket=socket, env=env, jailed=jailed)
            started = time.monotonic()
            _say(f"{name}: run {run} started {how}")
            ended = running.wait()
            running = None
            lasted = time.monotonic() - started
            if lasted >= STEADY_S:
                delay = FIRST_DELAY_S
            cut = (f", its output cut at {sandbox.output_bytes // 1024} KB of {ended.output_bytes // 1024} KB"
                   if ended.output_bytes > sandbox.output_bytes else "")
            _say(f"{name}: run {run} {ended.reason} after {lasted:.1f} s{cut} (log {log});"
                 f" starting again in {delay:g} s")
            time.sleep(delay)
            delay = min(2 * delay, LAST_DELAY_S)
    except KeyboardInterrupt:
        if running is not None:
            running.stop()
            running.wait()
        _say(f"{name}: stopped")
