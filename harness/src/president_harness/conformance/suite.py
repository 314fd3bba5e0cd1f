"""`president conformance`: every case run against a bot program, a line per case."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

import grpc
from president_engine import PRESETS, Rules, RulesError
from president_engine.narrate import counted

from president_harness.conformance.cases import ContractError, Mode, NoSuchDealError, build_cases
from president_harness.conformance.referee import Referee
from president_harness.conformance.table import RunnerLoop
from president_harness.conformance.wire import SuiteServer
from president_harness.interrupts import terminate_as_interrupt
from president_harness.ladder.config import PLACEHOLDERS, BotSpec


@dataclass
class Results:
    passed: int = 0
    failed: int = 0
    skipped: int = 0


def run_suite(command: Sequence[str], *, preset: str | None = None, players: int | None = None) -> Results:
    """Run every case against `command` (placeholders unfilled), printing a line per case."""
    spec = BotSpec(name="bot", command=tuple(command))
    mode = Mode.SESSION if any("{account_token}" in part for part in command) else Mode.PLAY
    cases = build_cases(mode, preset, players)
    suite = SuiteServer()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), handlers=[suite.handler()])
    address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    loop = RunnerLoop()
    results = Results()
    print(f"president conformance: {counted(len(cases), 'case')} over {mode.value}, on {address}", flush=True)
    try:
        with tempfile.TemporaryDirectory(prefix="president-conformance-") as logs:
            for number, case in enumerate(cases, 1):
                try:
                    detail = Referee(case, mode, suite, loop, address, spec, Path(logs), number).run()
                except ContractError as exc:
                    results.failed += 1
                    line = f"FAIL  {case.name}: {exc}"
                except NoSuchDealError as exc:
                    results.skipped += 1
                    line = f"SKIP  {case.name}: {exc}"
                else:
                    results.passed += 1
                    line = f"PASS  {case.name}: {detail}"
                print(line, flush=True)
    finally:
        server.stop(None)
        loop.close()
    skipped = f", {results.skipped} skipped" if results.skipped else ""
    failed = f", {results.failed} failed" if results.failed else ""
    print(f"{results.passed} of {len(cases)} cases passed{skipped}{failed}", flush=True)
    return results


def conformance_command(args: argparse.Namespace) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    problem = _command_problem(command, args.preset, args.players)
    if problem:
        print(f"president conformance: {problem}", file=sys.stderr)
        return 2
    try:
        with terminate_as_interrupt():
            results = run_suite(command, preset=args.preset, players=args.players)
    except KeyboardInterrupt:
        print("\npresident conformance: stopped", flush=True)
        return 130
    return 0 if results.failed == 0 else 1


def _command_problem(command: Sequence[str], preset: str | None, players: int | None) -> str | None:
    """Why the suite cannot run this command with these options, in one line; None when it can."""
    if not command:
        return "give the bot's command after --, e.g. -- ./bot --server {server} --token {token}"
    if preset is not None and preset not in PRESETS:
        return f"--preset {preset}: known presets are {', '.join(PRESETS)}"
    if players is not None:
        try:
            for name in [preset] if preset else PRESETS:
                Rules.preset(name, players=players, deals=2)
        except RulesError as exc:
            return f"--players {players}: {exc}"
    for part in command:
        try:
            part.format(**dict.fromkeys(PLACEHOLDERS, ""))
        except (KeyError, IndexError, ValueError):
            return f"{part!r}: the placeholders are {', '.join('{' + p + '}' for p in PLACEHOLDERS)}"
    play = any("{token}" in part for part in command)
    session = any("{account_token}" in part for part in command)
    if play == session:
        return ("the command needs {token} (a seat, over the Play stream) or {account_token} (an account, over a"
                " Session)" + (", not both" if play else ""))
    if BotSpec(name="bot", command=tuple(command)).program(Path.cwd()) is None:
        return f"cannot find the program {command[0]!r} (not on PATH, nor beside {sys.executable})"
    return None
