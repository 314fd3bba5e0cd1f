"""The ``president-bot`` command: run a bot on a server, or try it locally first.

    president-bot my_bot.py:MyBot --server HOST:PORT --account-token TOKEN --max-matches 8 --arena
    president-bot my_bot.py:MyBot --server HOST:PORT --token SEAT_TOKEN
    president-bot builtin:hard --server HOST:PORT --token SEAT_TOKEN
    president-bot my_bot.py --server HOST:PORT --token DEV_SEAT_TOKEN --again
    president-bot my_bot.py --local --opponents hard,normal,easy --preset cardverse
    president-bot my_bot.py --local --matches 40 --opponents hard normal --replay replays
    president-bot builtin:hard --uecda HOST[:PORT]
    president-bot "uecda:./client" --server HOST:PORT --token SEAT_TOKEN

BOT is ``FILE.py[:Class]``, ``package.module[:Class]``, ``builtin:LEVEL`` or
``uecda:COMMAND``; without ``:Class`` the file's one `Bot` subclass is used.
``uecda:COMMAND`` is a UECda contest client program, started for each match
with ``-h 127.0.0.1 -p PORT`` appended (or ``{host}`` and ``{port}`` in
COMMAND replaced), which plays the seat over the contest's protocol
(president_sdk.uecda.seat.ContestCommand).  With an account
token the bot plays every match its account is seated in, many at once, over
one connection (a new bot for each match), until Ctrl-C; with a seat token
it plays that one seat; with --again, a dev seat's token (make run's seat 0,
``president match create --dev NAME``) plays each next match of that seat
(a new bot for each) until Ctrl-C.  With --uecda it is one client of a UECda contest
server (the computer-Daifugō contest's TCP protocol, port 42485 by default)
until that server's match ends.  Tokens may come from PRESIDENT_ACCOUNT_TOKEN or
PRESIDENT_TOKEN instead (keeps them out of the process list).  Exit status:
0 done (or stopped), 1 the runner gave up (message on stderr) or, with
--strict, the bot had a fault, 2 bad arguments (--uecda: also a server that
cannot be reached), 3 the seat token's match was already over when the bot
connected (nothing played, no result).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.util
import inspect
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path

from president_engine import PRESETS, DealError, MatchRecord, Rules, RulesError
from president_engine.narrate import counted, describe

from president_sdk.bot import Bot
from president_sdk.bots import BUILTIN_BOTS, builtin_bot
from president_sdk.faults import describe_faults
from president_sdk.local import BotError, play_local
from president_sdk.uecda.client import DEFAULT_PORT, ContestConnectError, ContestGame, ContestProtocolError, play_uecda
from president_sdk.uecda.seat import ContestCommand
from president_sdk.uecda.table import MAX_NAME, TableError
from president_sdk.uecda.wire import HandshakeError

TOKEN_ENV = "PRESIDENT_TOKEN"
ACCOUNT_TOKEN_ENV = "PRESIDENT_ACCOUNT_TOKEN"
SERVER_ENV = "PRESIDENT_SERVER"
ALREADY_OVER_STATUS = 3
"""Exit status when the seat's match was over before the bot connected: nothing was played."""
AGAIN_POLL_S = 1.0
"""--again: how often a dev seat between two matches asks for the next one."""
LOCAL_MOVE_TIMEOUT_S = 10.0
"""--local without --move-timeout: the server's default move limit, so a bot meets the same deadline."""


class BotLoadError(ValueError):
    """BOT does not name a bot that can be loaded."""


LEFT_OUT_BY_MAKE_RUN = {"president_learn": "run `make venv` (make run installs only what running needs)"}
"""This repository's packages that `make run` does not install, with what installs them."""


def not_installed(exc: ImportError, needed: str) -> str | None:
    """The fix, in one line, when importing `needed` failed because its package, or one it imports, is missing.

    None for any other import failure (a misspelt module of an installed package, a package of someone else's).
    """
    package = needed.partition(".")[0]
    fix = LEFT_OUT_BY_MAKE_RUN.get(package)
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    if fix is None or not missing or missing.startswith(f"{package}."):
        return None
    if missing == package:
        return f"{package} is not installed: {fix}"
    return f"{package} needs {missing.partition('.')[0]}, which is not installed: {fix}"


def load_bot(spec: str, *, seed: int | None = None) -> Bot:
    """A new bot from ``FILE.py[:Class]``, ``module[:Class]``, ``builtin:LEVEL`` or ``uecda:COMMAND`` (`seed`: a
    built-in's draws)."""
    return bot_factory(spec)(seed)


def bot_factory(spec: str) -> Callable[[int | None], Bot]:
    """What makes a new bot of `spec` for each match (given a built-in's seed); the file is loaded once, here."""
    if spec.startswith("builtin:"):
        level = spec.removeprefix("builtin:")
        try:
            builtin_bot(level)
        except ValueError as exc:
            raise BotLoadError(str(exc)) from None
        return lambda seed: builtin_bot(level, seed=seed)
    if spec.startswith("uecda:"):
        try:
            contest = ContestCommand.parse(spec.removeprefix("uecda:"))
        except ValueError as exc:
            raise BotLoadError(str(exc)) from None
        if contest.program() is None:
            raise BotLoadError(f"uecda: no program {contest.command[0]!r} (a path, or a command on PATH)")
        command = contest.command
        return lambda _seed: ContestCommand(command)
    kind = _bot_class(spec)
    return lambda _seed: kind()


def _bot_class(spec: str) -> type[Bot]:
    where, _, name = spec.partition(":")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise BotLoadError(f"no file {where}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise BotLoadError(f"cannot load {where}")
        module = importlib.util.module_from_spec(module_spec)
        sys.path.insert(0, str(path.parent.resolve()))
        try:
            module_spec.loader.exec_module(module)
        except Exception as exc:  # the bot's own file failed to run
            raise BotLoadError(f"{where}: loading it raised {type(exc).__name__}: {exc}") from None
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise BotLoadError(not_installed(exc, where) or f"cannot import {where}: {exc}") from None
    if name:
        found = getattr(module, name, None)
        if not (inspect.isclass(found) and issubclass(found, Bot)):
            raise BotLoadError(f"{where} has no Bot subclass named {name}")
        return found
    own = [c for c in vars(module).values()
           if inspect.isclass(c) and issubclass(c, Bot) and c.__module__ == module.__name__]
    if len(own) != 1:
        names = ", ".join(c.__name__ for c in own) or "none"
        raise BotLoadError(f"{where} defines {len(own)} Bot subclasses ({names}): say which, as {where}:Class")
    kind: type[Bot] = own[0]
    return kind


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="president-bot", description="Play a President bot.",
                                     epilog="Levels: " + ", ".join(f"builtin:{n}" for n in BUILTIN_BOTS))
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('president-sdk')}")
    parser.add_argument("bot", help="FILE.py[:Class], module[:Class], builtin:LEVEL or uecda:COMMAND")
    parser.add_argument("--server", default=os.environ.get(SERVER_ENV, "localhost:50051"),
                        help=f"HOST:PORT of the server (default localhost:50051 or ${SERVER_ENV})")
    parser.add_argument("--token", default=None, help=f"a seat token: play that one seat (or set {TOKEN_ENV})")
    parser.add_argument("--name", default=None,
                        help="--token: the name the seat shows if it was created without one (an open seat, make"
                             " run's guest seat; default: the bot's name); --uecda: the name in the profile")
    parser.add_argument("--again", action="store_true",
                        help="--token: a dev seat's token (make run's seat 0, `president match create --dev`): play"
                             " each next match of the seat, until Ctrl-C")
    parser.add_argument("--account-token", default=None,
                        help=f"an account token: play every match of the account, many at once, over one connection,"
                             f" until Ctrl-C (or set {ACCOUNT_TOKEN_ENV})")
    parser.add_argument("--max-matches", type=int, default=4,
                        help="--account-token: the most matches the arena gives the bot at once (default 4)")
    parser.add_argument("--arena", action="store_true",
                        help="--account-token: let the server's arena put the bot in rated matches (after each"
                             " one, a line says where it stands on the leaderboard)")
    parser.add_argument("--players", default="",
                        help="--account-token: player counts the bot plays in the arena, e.g. 4 or 4,5 (default any);"
                             " --matches: the table's size (default 4)")
    parser.add_argument("--accept-challenges", action="store_true",
                        help="--account-token: accept every challenge from another account (default: the bot's"
                             " accept_challenge hook, which declines)")
    parser.add_argument("--tls", action="store_true", help="connect with TLS (system root certificates)")
    parser.add_argument("--move-timeout", type=float, default=None,
                        help="seconds the bot may think when the server sets no deadline"
                             f" (--local: default {LOCAL_MOVE_TIMEOUT_S:g})")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when the bot had any fault (raised, too slow, illegal answer)")
    parser.add_argument("--local", action="store_true", help="play a match in-process instead, and print it")
    parser.add_argument("--uecda", default=None, metavar="HOST[:PORT]",
                        help="play as one client of a UECda contest server instead (default port"
                             f" {DEFAULT_PORT}); a line per game, then the totals")
    parser.add_argument("--opponents", nargs="+", default=["hard,normal,easy"], metavar="LEVELS",
                        help="--local: built-in levels of the other seats (default hard,normal,easy); with"
                             " --matches, each level is one opponent: the bot plays copies of it")
    parser.add_argument("--matches", type=int, default=None, metavar="N",
                        help="--local: evaluate instead: N matches against each opponent level on duplicate boards"
                             " (rounded up to whole boards), then mean place and points with 95%% intervals")
    parser.add_argument("--workers", type=int, default=None,
                        help="--matches: processes playing the matches (default one per core)")
    parser.add_argument("--replay", default=None, metavar="DIR",
                        help="--local: write each match's HTML replay (opens in a browser, no server needed), its"
                             " record (JSON) and an index to DIR")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS),
                        help="--local: the rules (default cardverse); --account-token: a preset the bot plays in the"
                             " arena (repeatable; default every preset)")
    parser.add_argument("--deals", type=int, default=3, help="--local: deals in the match (default 3)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seeds builtin:random's draws when the server gives none (a ladder command can pass"
                             " {seed}); with --local also the shuffle (default 0)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="only errors and the result (with an account: one line a match)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        factory = bot_factory(args.bot)
        bot = factory(args.seed)
    except BotLoadError as exc:
        print(f"president-bot: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # the bot's own constructor failed
        print(f"president-bot: {args.bot}: making the bot raised {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if args.local and args.matches is not None:
        return _evaluate(args)
    if args.local:
        return _local(bot, args)
    if args.uecda is not None:
        return _uecda(bot, args)
    from president_sdk.remote import check_name, player_name, run  # grpc is only needed here
    from president_sdk.runner_errors import MatchAlreadyOverError, RunnerError

    account = args.account_token or ("" if args.token else os.environ.get(ACCOUNT_TOKEN_ENV, ""))
    if account:
        if args.again:
            print("president-bot: --again plays a dev seat's --token match after match; an account token plays"
                  " every match of its account already", file=sys.stderr)
            return 2
        return _session(factory, account, args)
    token = args.token or os.environ.get(TOKEN_ENV, "")
    if not token:
        print(f"president-bot: no token: give --account-token TOKEN (or set {ACCOUNT_TOKEN_ENV}) to play an"
              f" account's matches, or --token TOKEN (or set {TOKEN_ENV}) for one seat", file=sys.stderr)
        return 2
    try:
        if args.name is not None:
            check_name(args.name)
    except RunnerError as exc:
        print(f"president-bot: --name: {exc}", file=sys.stderr)
        return 2
    played, waiting = 0, False
    while True:
        names: list[str] = []
        try:
            result = run(bot, args.server, token, tls=args.tls, move_timeout=args.move_timeout, name=args.name,
                         names=names)
        except MatchAlreadyOverError as exc:
            print(f"president-bot: {exc}", file=sys.stderr)
            return ALREADY_OVER_STATUS
        except RunnerError as exc:
            if args.again and exc.reason == "DEV_SEAT_WAITING":
                if not waiting:
                    print(f"president-bot: {exc}", file=sys.stderr, flush=True)
                waiting = True
                with contextlib.suppress(KeyboardInterrupt):
                    time.sleep(AGAIN_POLL_S)
                    continue
                return _interrupted(played)
            print(f"president-bot: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return _interrupted(played) if args.again else _interrupted(None)
        played, waiting = played + 1, False
        totals = ", ".join(f"{player_name(names, p)} {t}" for p, t in enumerate(result.totals))
        print(f"match over: {player_name(names, result.winner)} wins; points {totals};"
              f" {bot.name}: {describe_faults(bot.faults)}", flush=True)
        status = _status(bot, args)
        if not args.again or status:
            return status
        bot = factory(args.seed)


def _interrupted(played: int | None) -> int:
    """Ctrl-C: the end of an --again run (0, with how many matches it played), else a failure."""
    if played is None:
        print("president-bot: interrupted", file=sys.stderr)
        return 1
    print(f"president-bot: stopped after {counted(played, 'match')}", file=sys.stderr)
    return 0


def _status(bot: Bot, args: argparse.Namespace) -> int:
    if bot.faults.total() and args.strict:
        print(f"president-bot: --strict: {bot.name} had {describe_faults(bot.faults)}", file=sys.stderr)
        return 1
    return 0


def _session(factory: Callable[[int | None], Bot], token: str, args: argparse.Namespace) -> int:
    """Play the account's matches until Ctrl-C (or SIGTERM): a line per finished match, then a summary."""
    from president_protocol.v1 import president_pb2 as pb

    from president_sdk.runner_errors import RunnerError
    from president_sdk.session_client import Appetite, FinishedMatch, SessionClient

    try:
        players = tuple(int(n) for n in args.players.replace(",", " ").split())
    except ValueError:
        print(f"president-bot: --players {args.players!r}: write player counts, e.g. 4 or 4,5", file=sys.stderr)
        return 2
    if args.max_matches < 1:
        print("president-bot: --max-matches must be at least 1", file=sys.stderr)
        return 2

    shown: dict[tuple[str, int], int] = {}
    """By arena leaderboard, the rated matches its last standing line counted."""
    looking: set[asyncio.Task[None]] = set()

    async def standing(match: FinishedMatch) -> None:
        found = await client.arena_standing(match.match_id)
        new = found is not None and found.matches > shown.get((found.preset, found.players), 0)
        if found is not None and new:
            shown[found.preset, found.players] = found.matches
        if args.quiet:  # one line a match: the match's, with its standing when it moved
            print(f"{match.describe()}; {found.describe()}" if found is not None and new else match.describe(),
                  flush=True)
        elif found is not None and new:
            print(found.describe(), flush=True)

    def finished(match: FinishedMatch) -> None:
        if not (args.quiet and args.arena):
            print(match.describe(), flush=True)
        if args.arena:  # a rated match moves the account on its leaderboard: say where it stands now
            task = asyncio.get_running_loop().create_task(standing(match))
            looking.add(task)
            task.add_done_callback(looking.discard)

    def notice(message: pb.Notice) -> None:
        if message.reason.startswith("CHECK_"):  # the arena's verdict: news for the bot's author
            print(f"{message.reason}: {message.message}", flush=True)
        else:
            print(f"president-bot: {message.reason}: {message.message}", file=sys.stderr, flush=True)

    client = SessionClient(
        lambda seed: factory(args.seed if seed is None else seed), token, server=args.server, tls=args.tls,
        appetite=Appetite(presets=tuple(args.preset or ()), players=players, max_matches=args.max_matches,
                          arena=args.arena),
        move_timeout=args.move_timeout, accept_challenges=True if args.accept_challenges else None,
        on_finished=finished, on_notice=notice)

    async def play() -> None:
        task = asyncio.current_task()
        assert task is not None
        with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows' loop: Ctrl-C still works
            for stop in (signal.SIGINT, signal.SIGTERM):  # SIGINT too: it may have been inherited ignored
                asyncio.get_running_loop().add_signal_handler(stop, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await client.run()

    try:
        asyncio.run(play())
    except RunnerError as exc:
        print(f"president-bot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    stats = client.stats
    print(f"{client.account or 'session'}: {stats.summary()}", flush=True)
    faulty = sum(m.faults.total() for m in stats.finished)
    if faulty and args.strict:
        print(f"president-bot: --strict: the bot had {counted(faulty, 'fault')}", file=sys.stderr)
        return 1
    return 0


def uecda_address(text: str) -> tuple[str, int]:
    """HOST or HOST:PORT (a bracketed IPv6 host as [::1]:PORT) -> (host, port); ValueError says what is wrong."""
    host, port = text, str(DEFAULT_PORT)
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"{text!r} is not HOST[:PORT]")
            port = rest[1:]
    elif ":" in text:
        host, _, port = text.partition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r} is not HOST[:PORT] with a port 1..65535")
    return host, int(port)


def _uecda(bot: Bot, args: argparse.Namespace) -> int:
    """One contest client until the server's end flag 2: a line per game, then the totals."""
    try:
        host, port = uecda_address(args.uecda)
    except ValueError as exc:
        print(f"president-bot: --uecda: {exc}", file=sys.stderr)
        return 2
    name = bot.name if args.name is None else args.name
    if len(name) > MAX_NAME:
        print(f"president-bot: --name: a contest name has at most {MAX_NAME} characters", file=sys.stderr)
        return 2

    def game_over(game: ContestGame) -> None:
        place, points = game.place_of(bot.player), game.points_of(bot.player) or 0
        shown = "unknown (the 20-pass rule)" if place is None else f"{place} ({counted(points, 'point')})"
        print(f"game {game.number}: place {shown}; finish {' '.join(map(str, game.finish))}", flush=True)

    try:
        result = play_uecda(bot, host, port, name=name, on_game=game_over)
    except ContestConnectError as exc:
        print(f"president-bot: --uecda: {exc}", file=sys.stderr)
        return 2
    except (OSError, TableError, HandshakeError, ContestProtocolError, DealError) as exc:  # it left, or spoke amiss
        print(f"president-bot: --uecda {host}:{port}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("president-bot: interrupted", file=sys.stderr)
        return 1
    places = " ".join("?" if place is None else str(place) for place in result.places)
    surprised = "; tables not as the spec says (each kind said once): " + ", ".join(
        f"{kind} in {counted(games, 'game')}" for kind, games in result.surprises) if result.surprises else ""
    print(f"uecda: {bot.name} was player {result.player}; {counted(len(result.games), 'game')};"
          f" {counted(result.points, 'point')}; places {places}; {describe_faults(bot.faults)}{surprised}")
    return _status(bot, args)


def _local(bot: Bot, args: argparse.Namespace) -> int:
    levels = _levels(args.opponents)
    if args.preset and len(args.preset) > 1:
        print("president-bot: --local plays one preset: give --preset once", file=sys.stderr)
        return 2
    preset = (args.preset or ["cardverse"])[0]
    try:
        opponents = [builtin_bot(name, seed=args.seed) for name in levels]
        rules = Rules.preset(preset, players=len(levels) + 1, deals=args.deals)
    except (ValueError, RulesError) as exc:
        print(f"president-bot: {exc}", file=sys.stderr)
        return 2
    names = [bot.name] + [f"{level}{i}" for i, level in enumerate(levels, 1)]
    try:
        timeout = LOCAL_MOVE_TIMEOUT_S if args.move_timeout is None else args.move_timeout
        result = play_local([bot, *opponents], rules, seed=args.seed or 0, strict=False, move_timeout=timeout)
    except BotError as exc:
        print(f"president-bot: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        for event in result.match.events:
            line = describe(event, names, preset=preset)
            if line is not None:
                print(line)
    if args.replay is not None:
        written = write_replays(Path(args.replay), [(MatchRecord.from_match(result.match).dumps(), "match.json",
                                                      names, {})])
        if written:
            return written
    faults, points = result.faults[0], result.scores[0]
    print(f"{bot.name}: {counted(points, 'point')}; winner {names[result.winner]};"
          f" {describe_faults(faults)}"
          + (" (each replaced by the easy move, see the errors above)" if faults.total() else ""))
    return _status(bot, args)


def _levels(opponents: Sequence[str]) -> list[str]:
    """The levels of --opponents, given with commas, spaces or both."""
    return [name.strip() for given in opponents for name in given.split(",") if name.strip()]


def _evaluate(args: argparse.Namespace) -> int:
    """N matches against each level on duplicate boards, in worker processes; then the table and a verdict."""
    from president_sdk import evaluate

    levels = _levels(args.opponents)
    problem = None
    if args.matches < 1:
        problem = "--matches must be at least 1"
    elif args.preset and len(args.preset) > 1:
        problem = "--local plays one preset: give --preset once"
    elif not levels:
        problem = "--opponents: give at least one level"
    elif args.players and not args.players.isdigit():
        problem = f"--players {args.players!r}: with --matches, one table size, e.g. 4"
    elif args.workers is not None and args.workers < 1:
        problem = "--workers must be at least 1"
    if problem is None:
        try:
            for level in dict.fromkeys(levels):
                builtin_bot(level)
            rules = Rules.preset((args.preset or ["cardverse"])[0], players=int(args.players or 4), deals=args.deals)
        except (ValueError, RulesError) as exc:
            problem = str(exc)
    if problem is not None:
        print(f"president-bot: {problem}", file=sys.stderr)
        return 2
    levels = list(dict.fromkeys(levels))
    timeout = LOCAL_MOVE_TIMEOUT_S if args.move_timeout is None else args.move_timeout
    matches = evaluate.schedule(args.bot, levels, rules, matches=args.matches, seed=args.seed or 0,
                                move_timeout=timeout, record=args.replay is not None)
    workers = min(args.workers or evaluate.default_workers(), len(matches))
    progress = sys.stderr.isatty() and not args.quiet
    results = []
    try:
        for result in evaluate.run(matches, workers=workers):
            results.append(result)
            if progress:
                print(f"\r{len(results)}/{len(matches)} matches ({counted(workers, 'worker')})", end="",
                      file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("\npresident-bot: interrupted", file=sys.stderr)
        return 1
    except Exception as exc:  # the bot's file or constructor failed in a worker, or the bot refused its seat
        print(f"{chr(10) if progress else ''}president-bot: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if progress:
        print(file=sys.stderr)
    name = results[0].names[results[0].match.rotation]
    summaries = [evaluate.summarize(results, level) for level in levels]
    print(evaluate.table(name, summaries), flush=True)
    if args.replay is not None:
        results.sort(key=lambda r: (levels.index(r.match.level), r.match.board, r.match.rotation))
        written = write_replays(Path(args.replay), [
            (r.record, evaluate.record_name(r), r.names,
             {"level": r.match.level, "board": r.match.board + 1, "seat": r.match.rotation, "points": r.points,
              "places": list(r.places)}) for r in results])
        if written:
            return written
    faults = sum(s.faults for s in summaries)
    if faults and args.strict:
        print(f"president-bot: --strict: the bot had {counted(faults, 'fault')}", file=sys.stderr)
        return 1
    return 0


REPLAY_INDEX = "matches.json"
"""The index --replay writes beside the records: each record's file, its HTML replay and the players' names."""
REPLAY_INDEX_FORMAT = "president-local-replays/1"


def write_replays(folder: Path, records: Sequence[tuple[str, str, Sequence[str], dict[str, object]]], *,
                  program: str = "president-bot") -> int:
    """Write each (record JSON, file name, names, facts), its HTML replay and the index to `folder`: 0, or 1 with a
    line on stderr."""
    from president_protocol.replay_page.replay_file import replay_html
    from president_protocol.replay_page.replay_frames import replay_frames

    index = {"format": REPLAY_INDEX_FORMAT,
             "matches": [{"record": file, "html": str(Path(file).with_suffix(".html")), "names": list(names), **facts}
                         for _, file, names, facts in records]}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for text, file, names, _ in records:
            (folder / file).write_text(text + "\n", encoding="utf-8")
            page = replay_html(replay_frames(MatchRecord.loads(text), names, match_id=Path(file).stem))
            (folder / file).with_suffix(".html").write_text(page, encoding="utf-8")
        (folder / REPLAY_INDEX).write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"{program}: --replay: cannot write {folder}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    first = (folder / records[0][1]).with_suffix(".html") if records else folder
    print(f"replays: {counted(len(records), 'match')} in {folder} (HTML and JSON); open {first} in a browser",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
