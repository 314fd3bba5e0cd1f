"""The cost of a server-side tournament (issue 24): a Swiss event of built-in bots against the same matches run as
a ladder over a server.

A measurement, not a test (run by `make bench-tournament`).  Each run starts a fresh server (`ChildServer`, a
child process whose CPU time /proc tells) for each side and measures, over the matches alone (accounts made and
Sessions connected before), the wall time and the server's CPU seconds (user + system):

1. **The tournament**: `--entrants` house accounts (built-in levels random, easy, normal in turn, every one
   on its own Session from one `BuiltinSessions`, `max_matches` 16), a SWISS of `--rounds` rounds at tables of
   4 of 1-deal cardverse matches with duplicate boards (every table plays one deal in its 4 rotations),
   created, started and polled (GetTournament every 0.5 s, as a watcher would) until FINISHED.  Wall time:
   the server's own `started_at` to `ended_at`.
2. **The ladder (the floor)**: the same matches, played by the ladder's own machinery over a server
   (`ServerTable` of harness/src/president_harness/ladder/over_server.py: a Session account per bot from one
   `BuiltinSessions`, CreateMatch with `seat_accounts`, the match's end seen by the bot's client, its summary
   and replay read back), round by round: every table the tournament played (its players in the same seat
   order, the same 4 rotations, the same hands and shuffle seed, read from the tournament's replays), a round's
   matches all at once (as the tournament starts them), the next round once they are all over.  Each match
   also costs the ladder a GetMatch, a GetReplay and its share of `MatchWatch`'s ListMatches polls.
3. **Bare matches (the tighter floor)**: the same matches again with nothing around them: CreateMatch with
   `seat_accounts` and the explicit hands, a round's matches created one after the other from one thread, the
   next round once the bots' clients saw them all end; nothing read back.  Against it, the ratio is what the
   tournament's own machinery (pairing, rows, standings, its watcher's polls) adds.

Built-in bots draw from one seed per match in the ladder and the bare matches (as the ladder gives them), from
one per entrant in the tournament, so a random bot's draws, not the deals, differ between the sides.  The figures
are the medians over `--runs` runs; the ratios (tournament / floor, per match) are those of the medians.  The
tournament's CPU includes its watcher's GetTournament polls (a poll after a match ended recomputes the standings;
the server keeps its last answer otherwise); what one poll costs on the finished event is printed too.

    .venv/bin/python benchmarks/tournament_bench.py                                    # 64 entrants, 7 rounds, 3 runs
    .venv/bin/python benchmarks/tournament_bench.py --entrants 8 --rounds 2 --runs 1   # a quick look
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from president_engine import CardSet, Rules
from president_harness.builtin_sessions import BuiltinSessions
from president_harness.child_server import ChildServer
from president_harness.ladder.config import BotSpec
from president_harness.ladder.over_server import OverServer
from president_harness.ladder.schedule import MatchSpec
from president_protocol.convert import cards_from_proto, cards_to_proto, rules_to_proto
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.session_client import Appetite, FinishedMatch
from president_service.league.tournaments.plan import derive_seed as tournament_seed
from president_service.play.clock import ClockSettings
from president_service.play.messages import clock_message

LEVELS = ("random", "easy", "normal")
PRESET = "cardverse"
PLAYERS = 4
RULES = Rules.preset(PRESET, players=PLAYERS, deals=1)
CLOCK = ClockSettings(move_ms=10_000, bank_ms=0, max_strikes=3)
"""Generous: a built-in level decides in well under a millisecond, so nothing here waits on the clock."""
APPETITE = Appetite(max_matches=16)
SETTLE_S = 2.0
"""Time the Sessions get to connect before the matches (an entrant without its Session would be marked absent;
`--settle`)."""
POLL_S = 0.5
Metadata = tuple[tuple[str, str], ...]
SEED = 24
TIMEOUT_S = 1800.0
PROBES = 50
"""GetTournament calls timed on the finished event."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Side:
    """One side of a run: its matches, wall seconds and server CPU seconds."""

    matches: int
    wall_s: float
    cpu_s: float
    moves: int
    """Actions in the matches' replays."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Board:
    """A table the tournament played: its players in the seat order of its first match, and its deal."""

    round: int
    players: tuple[str, ...]
    seed: int
    hands: tuple[tuple[str, ...], ...]
    bot_seeds: tuple[int, ...]
    """The seed the tournament gave each of `players`' built-in bots."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Tournament:
    side: Side
    boards: list[Board]
    absent: int
    """Entrants marked absent at a table (0 when every Session was connected)."""
    polls: int
    poll_cpu_ms: float
    """Server CPU of one GetTournament of the finished event."""


def entrants(count: int) -> dict[str, str]:
    """Account name -> built-in level, the levels in turn."""
    return {f"e{i:02d}-{LEVELS[i % len(LEVELS)]}": LEVELS[i % len(LEVELS)] for i in range(count)}


def _cpu(server: ChildServer) -> float:
    seconds = server.cpu_seconds()
    if seconds is None:
        raise SystemExit("tournament_bench: the server's CPU time cannot be read (/proc/PID/stat)")
    return seconds


def _seconds(stamp: Timestamp) -> float:
    return stamp.ToNanoseconds() / 1e9


def _moves(stub: pb_grpc.PresidentServiceStub, admin: Metadata, match_ids: list[str]) -> int:
    return sum(len(deal.actions) for match_id in match_ids
               for deal in stub.GetReplay(pb.GetReplayRequest(match_id=match_id), metadata=admin).replay.deals)


def _accounts(stub: pb_grpc.PresidentServiceStub, admin: Metadata, players: dict[str, str], *,
              house: bool) -> dict[str, str]:
    """Token -> built-in level of a new account per entrant."""
    return {stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="tournament bench", house=house),
                               metadata=admin).token: level for name, level in players.items()}


def run_tournament(work: Path, players: dict[str, str], rounds: int, *, settle_s: float) -> Tournament:
    with ChildServer(work / "tournament.db") as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        admin = (("authorization", f"Bearer {server.admin_token}"),)
        tokens = _accounts(stub, admin, players, house=True)
        spec = pb.TournamentSpec(name="bench", preset=PRESET, rules=pb.Rules(players=PLAYERS, deals=1),
                                 clock=clock_message(CLOCK), format=pb.TOURNAMENT_FORMAT_SWISS, rounds=rounds,
                                 duplicate=True, entrants=list(players), seed=SEED)
        with BuiltinSessions(server.address, tokens, appetite=APPETITE) as bots:
            time.sleep(settle_s)
            made = stub.CreateTournament(pb.CreateTournamentRequest(spec=spec), metadata=admin).tournament
            tournament_id = made.tournament_id
            cpu_before = _cpu(server)
            deadline = time.monotonic() + TIMEOUT_S
            stub.ControlTournament(pb.ControlTournamentRequest(tournament_id=tournament_id,
                                                               control=pb.TOURNAMENT_CONTROL_START), metadata=admin)
            polls = 0
            while True:
                event = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id)).tournament
                polls += 1
                if event.state == pb.TOURNAMENT_STATE_FINISHED:
                    break
                if bots.error is not None:
                    raise SystemExit(f"tournament_bench: {bots.error}")
                if event.state != pb.TOURNAMENT_STATE_RUNNING or time.monotonic() > deadline:
                    raise SystemExit(f"tournament_bench: the tournament is {pb.TournamentState.Name(event.state)}"
                                     f" after {polls} polls (see {server.log})")
                time.sleep(POLL_S)
            cpu_s = _cpu(server) - cpu_before
            probe_before = _cpu(server)
            for _ in range(PROBES):
                stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id))
            poll_cpu_ms = (_cpu(server) - probe_before) / PROBES * 1000
        boards = []
        for r, round_ in enumerate(event.rounds):
            for t, table in enumerate(round_.tables):
                replay = stub.GetReplay(pb.GetReplayRequest(match_id=table.match_ids[0]), metadata=admin).replay
                hands = tuple(tuple(str(cards_from_proto(hand.cards)) for hand in deal.hands) for deal in replay.deals)
                boards.append(Board(round=r, players=tuple(table.players), seed=replay.seed, hands=hands,
                                    bot_seeds=tuple(tournament_seed(event.spec.seed, r, t, i)
                                                    for i in range(len(table.players)))))
        match_ids = [m for round_ in event.rounds for table in round_.tables for m in table.match_ids]
        absent = sum(len(table.absent) for round_ in event.rounds for table in round_.tables)
        side = Side(matches=len(match_ids), wall_s=_seconds(event.ended_at) - _seconds(event.started_at),
                    cpu_s=cpu_s, moves=_moves(stub, admin, match_ids))
        return Tournament(side=side, boards=boards, absent=absent, polls=polls, poll_cpu_ms=poll_cpu_ms)


def ladder_rounds(boards: list[Board]) -> list[list[MatchSpec]]:
    """The tournament's matches as the ladder's, round by round: each board in its rotations, seated as the
    tournament seats rotation s (the table's last s players first)."""
    out: list[list[MatchSpec]] = []
    index = 0
    for number, board in enumerate(boards):
        while len(out) <= board.round:
            out.append([])
        for s in range(PLAYERS):
            seated = board.players[-s:] + board.players[:-s] if s else board.players
            out[board.round].append(MatchSpec(index=index, board=number, seating=s, bots=seated, seed=board.seed,
                                              hands=board.hands))
            index += 1
    return out


def run_ladder(work: Path, players: dict[str, str], rounds: list[list[MatchSpec]], *,
               settle_s: float) -> tuple[Side, int]:
    """The ladder's wall and CPU over the same matches, and the seats the server took over."""
    with ChildServer(work / "ladder.db") as server:
        bots = {name: BotSpec(name=name, builtin=level) for name, level in players.items()}
        recipe = OverServer(server=server.address, admin_token=server.admin_token, preset=PRESET, rules=RULES,
                            clock=CLOCK, bots=bots,
                            timeout_s=TIMEOUT_S, base=work, runs=work / "ladder-runs", ladder="tournament-bench",
                            parallel=1)
        table = recipe.open()
        try:
            time.sleep(settle_s)
            most = max(len(specs) for specs in rounds)
            outcomes = []
            with ThreadPoolExecutor(max_workers=most, thread_name_prefix="ladder-match") as pool:
                cpu_before = _cpu(server)
                started = time.perf_counter()
                for specs in rounds:
                    outcomes += list(pool.map(table, specs))
                wall_s = time.perf_counter() - started
                cpu_s = _cpu(server) - cpu_before
        finally:
            table.close()
    side = Side(matches=len(outcomes), wall_s=wall_s, cpu_s=cpu_s, moves=sum(o.moves for o in outcomes))
    return side, sum(len(o.taken_over) for o in outcomes)


def run_bare(work: Path, players: dict[str, str], rounds: list[list[MatchSpec]], boards: list[Board], *,
             settle_s: float) -> Side:
    """The same matches with nothing around them: CreateMatch seating the entrants' accounts (as the ladder
    does), each round's matches created at once, the next round once the bots saw them all end.  The bots get
    the tournament's seeds, so these are the tournament's very games."""
    with ChildServer(work / "bare.db") as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        admin = (("authorization", f"Bearer {server.admin_token}"),)
        tokens = _accounts(stub, admin, players, house=False)
        ended: set[str] = set()
        change = threading.Condition()

        def over(match: FinishedMatch) -> None:
            with change:
                ended.add(match.match_id)
                change.notify_all()

        with BuiltinSessions(server.address, tokens, appetite=APPETITE, on_finished=over) as bots:
            time.sleep(settle_s)
            cpu_before = _cpu(server)
            started = time.perf_counter()
            match_ids: list[str] = []
            for specs in rounds:
                made = {stub.CreateMatch(_bare_request(spec, boards[spec.board]), metadata=admin).match_id
                        for spec in specs}
                with change:
                    if not change.wait_for(partial(made.issubset, ended), TIMEOUT_S):
                        raise SystemExit(f"tournament_bench: bare matches not over ({bots.error or server.log})")
                match_ids += made
            wall_s = time.perf_counter() - started
            cpu_s = _cpu(server) - cpu_before
        return Side(matches=len(match_ids), wall_s=wall_s, cpu_s=cpu_s, moves=_moves(stub, admin, match_ids))


def _bare_request(spec: MatchSpec, board: Board) -> pb.CreateMatchRequest:
    seeds = dict(zip(board.players, board.bot_seeds, strict=True))
    return pb.CreateMatchRequest(
        preset=PRESET, rules=rules_to_proto(RULES), seed=spec.seed, clock=clock_message(CLOCK),
        deals=[pb.DealHands(hands=[pb.Hand(cards=cards_to_proto(CardSet(hand))) for hand in deal])
               for deal in spec.hands],
        seat_names=list(spec.bots), seat_accounts=list(spec.bots), bot_seeds=[seeds[name] for name in spec.bots])


def _median(sides: list[Side]) -> Side:
    return Side(matches=int(statistics.median(s.matches for s in sides)),
                wall_s=statistics.median(s.wall_s for s in sides), cpu_s=statistics.median(s.cpu_s for s in sides),
                moves=int(statistics.median(s.moves for s in sides)))


def _line(name: str, side: Side) -> str:
    return (f"{name}: {side.matches} matches ({side.moves} moves), wall {side.wall_s:.2f} s, server CPU"
            f" {side.cpu_s:.2f} s; per match {side.wall_s / side.matches * 1000:.1f} ms wall,"
            f" {side.cpu_s / side.matches * 1000:.1f} ms CPU ({side.cpu_s / side.moves * 1e6:.0f} us CPU a move)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entrants", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=SETTLE_S, metavar="SECONDS",
                        help=f"time the bots' Sessions get to connect before each side (default {SETTLE_S:g})")
    args = parser.parse_args()
    if args.entrants < PLAYERS or args.rounds < 1 or args.runs < 1:
        parser.error(f"at least {PLAYERS} entrants, 1 round and 1 run")
    players = entrants(args.entrants)
    print(f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}; settings:"
          f" {args.entrants} entrants (built-in {', '.join(LEVELS)} in turn), Swiss of {args.rounds} rounds at"
          f" tables of {PLAYERS}, {PRESET} 1 deal a match, duplicate boards ({PLAYERS} rotations a table), clock"
          f" {CLOCK.move_ms} ms a move; medians of {args.runs} runs", flush=True)
    tournaments: list[Side] = []
    ladders: list[Side] = []
    bares: list[Side] = []
    absent = taken_over = polls = differ = 0
    poll_ms: list[float] = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="tournament-bench-") as folder:
            work = Path(folder)
            played = run_tournament(work, players, args.rounds, settle_s=args.settle)
            same = ladder_rounds(played.boards)
            ladder, taken = run_ladder(work, players, same, settle_s=args.settle)
            bare = run_bare(work, players, same, played.boards, settle_s=args.settle)
        if ladder.matches != played.side.matches:
            raise SystemExit(f"tournament_bench: the ladder played {ladder.matches} matches, the tournament"
                             f" {played.side.matches}")
        tournaments.append(played.side)
        ladders.append(ladder)
        bares.append(bare)
        differ += bare.moves != played.side.moves
        absent, taken_over, polls = absent + played.absent, taken_over + taken, polls + played.polls
        poll_ms.append(played.poll_cpu_ms)
        print(f"  run {run + 1}: tournament {played.side.wall_s:.2f} s wall, {played.side.cpu_s:.2f} s CPU;"
              f" ladder {ladder.wall_s:.2f} s wall, {ladder.cpu_s:.2f} s CPU; bare {bare.wall_s:.2f} s wall,"
              f" {bare.cpu_s:.2f} s CPU", file=sys.stderr, flush=True)
    tournament, ladder, bare = _median(tournaments), _median(ladders), _median(bares)
    print(_line("tournament (server-side Swiss)", tournament))
    print(_line("ladder (the same matches by ServerTable, round by round)", ladder))
    print(_line("bare matches (the same matches by CreateMatch, round by round, nothing read back)", bare))
    for name, floor in (("ladder", ladder), ("bare matches", bare)):
        wall = (tournament.wall_s / tournament.matches) / (floor.wall_s / floor.matches)
        cpu = (tournament.cpu_s / tournament.matches) / (floor.cpu_s / floor.matches)
        per_move = (tournament.cpu_s / tournament.moves) / (floor.cpu_s / floor.moves)
        print(f"tournament / {name} per match: wall {wall:.2f}x, server CPU {cpu:.2f}x (server CPU a move"
              f" {per_move:.2f}x)")
    print(f"GetTournament of the finished event: {statistics.median(poll_ms):.1f} ms of server CPU each ({PROBES}"
          f" calls in a row, median of the runs; the tournament's CPU includes {polls / args.runs:.0f} polls a run,"
          f" one every {POLL_S:g} s)")
    print(f"absent entrants at the tournament's tables: {absent}; seats the server took over in the ladder:"
          f" {taken_over} (over {args.runs} runs; both 0 when every bot played its own seats); runs whose bare"
          f" matches did not make the tournament's moves exactly: {differ}")


if __name__ == "__main__":
    main()
