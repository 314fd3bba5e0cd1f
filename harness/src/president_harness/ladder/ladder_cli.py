"""``president ladder ladder.toml``: run (or resume) a ladder, print the table, write the reports, gate CI.

Exit status: 0 when every ``--expect`` claim holds, 1 when one does not,
2 for a bad ladder file or argument, 3 when matches failed every attempt or
are missing (the ladder is incomplete; run it again to resume), 4 with
``--strict`` when a bot misbehaved (an error, a time-out, an illegal answer,
a crash, a seat taken over), 130 when interrupted (Ctrl-C or SIGTERM: its
server and bots are stopped either way).
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_token
from president_harness.child_server import ChildServer, ServerError
from president_harness.interrupts import terminate_as_interrupt

if TYPE_CHECKING:
    from president_harness.ladder.config import LadderConfig

OWN_SERVER_OPTIONS = ("--account-matches", "100000", "--account-matches-per-day", "1000000000", "--max-matches",
                      "100000")
"""The ladder's own server plays only the ladder: its accounts may play as many matches as the ladder has."""
EXIT_CLAIM, EXIT_USAGE, EXIT_INCOMPLETE, EXIT_MISBEHAVED, EXIT_INTERRUPTED = 1, 2, 3, 4, 130


def add_ladder_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``ladder`` on the ``president`` command's subparsers."""
    ladder: argparse.ArgumentParser = subparsers.add_parser(
        "ladder", help="rate bots over many matches; gate CI on claims like 'mybot > normal'",
        description="Run or resume a ladder (see docs/ladder.md).")
    ladder.add_argument("config", type=Path, help="the ladder file (TOML)")
    ladder.add_argument("--server", help="use this game server (HOST:PORT) instead of starting one")
    ladder.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV})")
    ladder.add_argument("--db", type=Path, help="the ladder db (default: the file's `db`)")
    ladder.add_argument("--parallel", type=int, help="matches at once (default: the file's `parallel`, \"auto\")")
    ladder.add_argument("--ray", metavar="ADDRESS",
                        help="play matches as Ray tasks: 'auto' joins a running cluster, 'local' starts one")
    ladder.add_argument("--expect", action="append", default=[], metavar="CLAIM",
                        help="'A > B': fail unless A finishes ahead of B with 95%% confidence (repeatable)")
    ladder.add_argument("--strict", action="store_true",
                        help="fail (exit 4) when any bot misbehaved: errors, time-outs, illegal answers, crashes")
    ladder.add_argument("--junit", type=Path, help="write a JUnit XML report here")
    ladder.add_argument("--json", type=Path, help="write the JSON report here (default: beside the db)")
    ladder.add_argument("--markdown", type=Path, help="write the Markdown report here (default: beside the db)")
    ladder.set_defaults(handler=ladder_command)
    return ladder


# The ladder itself (its driver, backends, reports: the engine, the bots, openskill, Ray) is imported by the
# command that runs it: the ``president`` command builds this parser for every subcommand.


def ladder_command(args: argparse.Namespace) -> int:
    """Run the ladder the parsed arguments describe; returns the exit status."""
    from president_harness.ladder.backends import LadderStopError
    from president_harness.ladder.config import ConfigError
    from president_harness.ladder.driver import pending, retire_changed_bots, run_ladder
    from president_harness.ladder.gate import ClaimError, check_feasible, parse_claim
    from president_harness.ladder.ladder_store import LadderMismatchError
    from president_harness.ladder.over_server import OverServer
    from president_harness.ladder.report import json_text, junit, markdown, terminal

    try:
        config = _config(args)
        claims = [parse_claim(text, [b.name for b in config.bots]) for text in args.expect]
        for claim in claims:
            check_feasible(config, claim)
        config.check_commands()
        changed = retire_changed_bots(config)
        todo, total = pending(config)
    except (ConfigError, ClaimError, LadderMismatchError) as exc:
        print(f"president ladder: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.ray and todo:
        try:
            import ray  # noqa: F401  (optional: the harness's `ray` extra)
        except ImportError:
            print("president ladder: --ray needs Ray, which `make run` does not install: run `make venv`"
                  " (or pip install 'president-harness[ray]')", file=sys.stderr)
            return EXIT_USAGE
    for name, dropped in changed.items():
        print(f"president ladder: {name} changed since the last run (its files, command or version):"
              f" a new entrant, its {dropped} earlier matches are played again", file=sys.stderr)
    try:
        with terminate_as_interrupt(), ExitStack() as stack:
            server, token = args.server, admin_token(args.admin_token)
            watchdog = server_cpu = None
            if todo and server is None:
                own = stack.enter_context(ChildServer(config.db.with_name(config.db.name + ".server.sqlite"),
                                                      OWN_SERVER_OPTIONS))
                server, token, watchdog, server_cpu = own.address, own.admin_token, own.keep_alive, own.cpu_seconds
            elif todo and not token:
                print(f"president ladder: --server needs --admin-token or {ADMIN_TOKEN_ENV}", file=sys.stderr)
                return EXIT_USAGE
            over_server = OverServer(server=server or "", admin_token=token, preset=config.preset,
                                     rules=config.rules, clock=config.clock, bots={b.name: b for b in config.bots},
                                     timeout_s=config.match_timeout_s, base=config.base, runs=config.runs,
                                     ladder=f"{config.name}@{config.db.resolve()}", parallel=config.auto_parallel())
            summary = run_ladder(config, over_server, claims=claims, ray=args.ray, progress=sys.stderr,
                                 watchdog=watchdog, server_cpu=server_cpu)
    except ServerError as exc:
        print(f"president ladder: {exc}. Run the ladder again to resume.", file=sys.stderr)
        return EXIT_INCOMPLETE
    except LadderStopError as exc:
        print(f"president ladder: {exc}. Run the ladder again to resume.", file=sys.stderr)
        return EXIT_INCOMPLETE
    except KeyboardInterrupt:
        done = total - len(pending(config)[0])
        print(f"\npresident ladder: interrupted with {done}/{total} matches counted; run again to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    print(terminal(summary), end="")
    base = config.db.with_suffix("")
    written = [args.json or base.with_name(base.name + ".json"), args.markdown or base.with_name(base.name + ".md")]
    written[0].write_text(json_text(summary), encoding="utf-8")
    written[1].write_text(markdown(summary), encoding="utf-8")
    if args.junit is not None:
        args.junit.write_text(junit(summary, strict=args.strict), encoding="utf-8")
        written.append(args.junit)
    runs = f"; each match's record and logs: {os.path.normpath(summary.runs)}/" if summary.runs is not None else ""
    print(f"Reports: {', '.join(os.path.normpath(path) for path in written)}{runs}")
    if not summary.complete:
        return EXIT_INCOMPLETE
    if not summary.passed:
        return EXIT_CLAIM
    if args.strict and summary.misbehaved:
        names = ", ".join(f.name for f in summary.misbehaved)
        print(f"president ladder: --strict: {names} misbehaved (see Faults above)", file=sys.stderr)
        return EXIT_MISBEHAVED
    return 0


def _config(args: argparse.Namespace) -> LadderConfig:
    from president_harness.ladder.config import ConfigError, load

    config = load(args.config)
    changes: dict[str, Any] = {}
    if args.db is not None:
        changes["db"] = args.db
    if args.parallel is not None:
        if args.parallel < 1:
            raise ConfigError("--parallel", "must be at least 1")
        changes["parallel"] = args.parallel
    return replace(config, **changes) if changes else config
