"""``president tournament``: tournaments on a running server (create, start, pause, resume, cancel, status, export).

    president tournament create spring --format swiss --rounds 5 --entrants alice,bob --builtin hard,normal,easy
    president tournament start ID
    president tournament status ID [--watch]       standings and the current round (--watch: until it is over)
    president tournament export ID --as md         the standings as JSON, CSV or Markdown (--out FILE)
    president tournament list

Entrants are accounts: a bot connected with its account token, an account
whose hosted version plays, or a house bot.  ``--builtin LEVEL`` enters the
house account ``house-LEVEL`` (made if it is missing); ``president house``
plays the house accounts.  An account without a READY, checked version (or
whose own bot has passed no check match) is refused, with why, unless named
in ``--unchecked``.  A deal in which the server played a move for an
entrant's seat, or its client reported one as a fallback, is a forfeit:
last place (``--fault-rule forfeit``, the default) or as played
(``play-on``).  The admin token comes from --admin-token or
PRESIDENT_ADMIN_TOKEN (status, export and list need none).  The format,
pairings, tie-breaks and fault rules: docs/tournaments.md.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime

import grpc
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.admin_token import ADMIN_TOKEN_ENV, Metadata, admin_metadata, admin_token
from president_harness.cli.cli_names import BUILTIN_LEVELS, SORTED_PRESET_NAMES, known_in_help
from president_harness.cli.house_cli import HouseError, house_account, house_name
from president_harness.rpc_errors import describe_rpc_error

FORMATS = {"swiss": pb.TOURNAMENT_FORMAT_SWISS, "round-robin": pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
           "stages": pb.TOURNAMENT_FORMAT_STAGES}
CONTROLS = {"start": pb.TOURNAMENT_CONTROL_START, "pause": pb.TOURNAMENT_CONTROL_PAUSE,
            "resume": pb.TOURNAMENT_CONTROL_RESUME, "cancel": pb.TOURNAMENT_CONTROL_CANCEL}
FAULT_RULES = {"forfeit": pb.TOURNAMENT_FAULT_RULE_FORFEIT, "play-on": pb.TOURNAMENT_FAULT_RULE_PLAY_ON}
EXPORTS = ("json", "csv", "md")
_COLUMNS = ("rank", "player", "points", "tables", "deals", "byes", "mean place", "95% interval", "rating",
            "head to head", "buchholz", "forfeits", "faults", "server moves", "absences")


def add_tournament_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tournament = commands.add_parser("tournament", help="tournaments on a running server: create, start, status,"
                                     " export", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = tournament.add_subparsers(dest="action", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default="localhost:50051", help="HOST:PORT (default localhost:50051)")
    common.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV})")
    create = actions.add_parser("create", parents=[common], help="a new tournament (CREATED until it starts)")
    create.add_argument("name", help="its name, for people")
    create.add_argument("--entrants", default="", help="accounts entered, comma-separated")
    known_in_help(create.add_argument("--builtin", default="",
                                      help="built-in levels entered as house accounts house-LEVEL (%(known)s)"),
                  BUILTIN_LEVELS)
    create.add_argument("--format", choices=sorted(FORMATS), default="swiss", help="default swiss")
    create.add_argument("--rounds", type=int, default=5,
                        help="swiss: rounds; round-robin and stages: times each round robin is played (default 5)")
    create.add_argument("--players", type=int, default=4, help="players at a table, 3 to 6 (default 4)")
    create.add_argument("--preset", choices=SORTED_PRESET_NAMES, metavar="PRESET", default="cardverse",
                        help="%(choices)s (default cardverse)")
    create.add_argument("--deals", type=int, default=None, help="deals of each match (default: the preset's)")
    create.add_argument("--duplicate", action="store_true",
                        help="each table plays one set of hands in every rotation of its seats")
    create.add_argument("--group-size", type=int, default=0, help="stages: entrants per group in the first stage")
    create.add_argument("--advance", type=int, default=0, help="stages: how many of each group go on")
    create.add_argument("--move-ms", type=int, default=None, help="each move's time limit (default: the server's)")
    create.add_argument("--seed", type=int, default=None, help="the pairings' and shuffles' seed (default: drawn)")
    create.add_argument("--unchecked", default="", metavar="ACCOUNTS",
                        help="entrants entered on purpose without a READY, checked version (comma-separated)")
    create.add_argument("--fault-rule", choices=sorted(FAULT_RULES), default="forfeit",
                        help="a deal the server played a move in for an entrant, or its bot faulted in: last place"
                        " (forfeit, the default) or as played (play-on)")
    create.add_argument("--start-in", type=float, default=None, metavar="SECONDS",
                        help="start by itself this many seconds from now (default: when `start` is run)")
    for action, what in (("start", "pin the entrants' versions and play the rounds"),
                         ("pause", "finish the matches being played, start no more"),
                         ("resume", "go on after a pause"), ("cancel", "end it: no new match starts")):
        actions.add_parser(action, parents=[common], help=what).add_argument("tournament_id", metavar="ID")
    status = actions.add_parser("status", parents=[common], help="the standings and the rounds")
    status.add_argument("tournament_id", metavar="ID")
    status.add_argument("--watch", action="store_true", help="print again as it changes, until it is over")
    export = actions.add_parser("export", parents=[common], help="the standings as JSON, CSV or Markdown")
    export.add_argument("tournament_id", metavar="ID")
    export.add_argument("--as", dest="kind", choices=EXPORTS, default="md", help="default md")
    export.add_argument("--out", default="-", help="a file (default: standard output)")
    actions.add_parser("list", parents=[common], help="every tournament")
    tournament.set_defaults(handler=tournament_command)


def tournament_command(args: argparse.Namespace) -> int:
    admin: Metadata = ()
    if args.action in ("create", *CONTROLS):
        if (given := admin_metadata(args.admin_token, "tournament")) is None:
            return 2
        admin = given
    with grpc.insecure_channel(args.server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            if args.action == "create":
                return _create(stub, args, admin, admin_token(args.admin_token))
            if args.action in CONTROLS:
                changed = stub.ControlTournament(pb.ControlTournamentRequest(
                    tournament_id=args.tournament_id, control=CONTROLS[args.action]), metadata=admin, timeout=10)
                print(f"tournament {args.tournament_id}: {_state(changed.tournament.state)}")
                return 0
            if args.action == "list":
                _listing(stub.ListTournaments(pb.ListTournamentsRequest(), timeout=10).tournaments)
                return 0
            if args.action == "export":
                return _export(_get(stub, args.tournament_id), args.kind, args.out)
            return _status(stub, args.tournament_id, watch=args.watch)
        except grpc.RpcError as exc:
            refusal = read_refusal(exc)
            hint = ""
            if args.action == "create" and refusal.reason == "VERSION_STATE" and refusal.metadata.get("accounts"):
                hint = f"; enter them anyway with --unchecked {refusal.metadata['accounts']}"
            message = describe_rpc_error(exc, args.server).removesuffix(
                " (name them in unchecked to enter them anyway)") if hint else describe_rpc_error(exc, args.server)
            print(f"president tournament: {message}{hint}", file=sys.stderr)
            return 1
        except HouseError as exc:
            print(f"president tournament: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130


def _create(stub: pb_grpc.PresidentServiceStub, args: argparse.Namespace, admin: tuple[tuple[str, str], ...],
            token: str) -> int:
    levels = [level.strip() for level in args.builtin.split(",") if level.strip()]
    unknown = [level for level in levels if level not in BUILTIN_LEVELS]
    if unknown:
        print(f"president tournament: --builtin: no built-in level {unknown[0]!r} (known: {BUILTIN_LEVELS})",
              file=sys.stderr)
        return 2
    for level in levels:
        house_account(stub, admin, level, args.server, rotate=False)
    entrants = [name.strip() for name in args.entrants.split(",") if name.strip()] + [house_name(lv) for lv in levels]
    rules = pb.Rules(players=args.players)
    if args.deals is not None:
        rules.deals = args.deals
    spec = pb.TournamentSpec(name=args.name, preset=args.preset, rules=rules, format=FORMATS[args.format],
                             rounds=args.rounds, group_size=args.group_size, advance=args.advance,
                             duplicate=args.duplicate, entrants=entrants, fault_rule=FAULT_RULES[args.fault_rule],
                             unchecked=[name.strip() for name in args.unchecked.split(",") if name.strip()])
    if args.move_ms is not None:
        spec.clock.CopyFrom(pb.ClockSettings(move_time_limit_ms=args.move_ms, time_bank_ms=0,
                                             strikes_before_takeover=3))
    if args.seed is not None:
        spec.seed = args.seed
    if args.start_in is not None:
        spec.start_at.FromNanoseconds(int((time.time() + args.start_in) * 1e9))
    made = stub.CreateTournament(pb.CreateTournamentRequest(spec=spec), metadata=admin, timeout=10).tournament
    print(f"tournament {made.tournament_id} created: {made.spec.name}, {args.format}, {made.round_count} rounds at"
          f" tables of {args.players}, {len(entrants)} entrants{' (duplicate boards)' if args.duplicate else ''}")
    if (warning := bye_warning(made)) is not None:
        print(f"president tournament: warning: {warning}", file=sys.stderr)
    if args.start_in is None:
        print(f"start it: .venv/bin/president tournament start {made.tournament_id} --server {args.server}"
              f" --admin-token {token}")
    if levels:
        print(f"play the house bots: .venv/bin/president house {','.join(levels)} --server {args.server}"
              f" --admin-token {token}")
    return 0


def bye_warning(t: pb.Tournament) -> str | None:
    """One line when most entrants will sit out a round (a bye), with the numbers; None otherwise (and for
    stages, whose groups change from stage to stage)."""
    entrants, players = len(t.entrants), t.spec.rules.players
    out = entrants % players
    if t.spec.format == pb.TOURNAMENT_FORMAT_STAGES or not out:
        return None
    byes = out * t.round_count
    sitting = min(entrants, byes)
    if 2 * sitting <= entrants:
        return None
    fewer, more = entrants - out, entrants - out + players
    better = " or ".join(str(n) for n in (fewer, more) if n >= players)
    return (f"{entrants} entrants at tables of {players}: {out} of them sit out each of the {t.round_count} rounds"
            f" ({byes} byes; {sitting} of the {entrants} entrants sit out at least once); {better} entrants would"
            " leave none out")


def _get(stub: pb_grpc.PresidentServiceStub, tournament_id: str) -> pb.Tournament:
    return stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id), timeout=10).tournament


def _status(stub: pb_grpc.PresidentServiceStub, tournament_id: str, *, watch: bool) -> int:
    shown = b""
    waiting = False
    while True:
        try:
            tournament = _get(stub, tournament_id)
        except grpc.RpcError as exc:
            if not (watch and shown and exc.code() == grpc.StatusCode.UNAVAILABLE):
                raise
            if not waiting:
                print("the server is not answering (restarting?); waiting for it", flush=True)
            waiting = True
            time.sleep(2)
            continue
        waiting = False
        now = tournament.SerializeToString(deterministic=True)
        if now != shown:
            shown = now
            print(_summary(tournament))
            print(markdown(tournament), flush=True)
        if not watch or tournament.state in (pb.TOURNAMENT_STATE_FINISHED, pb.TOURNAMENT_STATE_CANCELLED):
            return 0
        time.sleep(2)


def _summary(t: pb.Tournament) -> str:
    live = ""
    if t.rounds:
        current = t.rounds[-1]
        done = sum(table.finished for table in current.tables)
        live = f"; round {current.number}: {done} of {len(current.tables)} tables finished"
        absent = sorted({name for table in current.tables for name in table.absent})
        if absent:
            live += f" (absent: {', '.join(absent)})"
        for i, table in enumerate(current.tables, 1):
            if table.waiting:
                live += f"\n  table {i} waits: {table.waiting}"
    return (f"{t.spec.name} ({t.tournament_id}): {_state(t.state)}, {t.rounds_begun} of {t.round_count} rounds"
            f" begun{live}")


def _state(state: pb.TournamentState.ValueType) -> str:
    return pb.TournamentState.Name(state).removeprefix("TOURNAMENT_STATE_")


def _row(s: pb.TournamentStanding) -> list[str]:
    from president_service.league.arena_ratings import PROVISIONAL_MARK, provisional  # the server's modules load on use

    return [str(s.rank), s.player, f"{s.points:g}", str(s.tables), str(s.deals), str(s.byes),
            f"{s.mean_place:.2f}" if s.tables else "-",
            f"[{s.mean_place_low:.2f}, {s.mean_place_high:.2f}]" if s.tables else "-",
            f"{s.ordinal:.1f}{PROVISIONAL_MARK if provisional(s.sigma) else ''}",
            f"{s.head_to_head:g}", f"{s.buchholz:g}", str(s.forfeits), str(s.faults),
            str(s.server_moves), str(s.absences)]


def _rule(t: pb.Tournament) -> str:
    """The fault rule in force, in a line under the table."""
    if t.spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_FORFEIT:
        return ("A forfeit is a deal in which the server played a move for the entrant's seat (its clock, its"
                " absence, the autopilot) or its bot faulted (a fallback its client reported): it scores last place.")
    return "Fault rule: play on (a deal counts as it was played, the server's moves included)."


def markdown(t: pb.Tournament) -> str:
    """The standings as a Markdown table."""
    lines = [f"| {' | '.join(_COLUMNS)} |", f"|{'|'.join('---' for _ in _COLUMNS)}|"]
    lines += [f"| {' | '.join(_row(s))} |" for s in t.standings]
    return "\n".join([*lines, "", *standings_notes(t)])


def standings_notes(t: pb.Tournament) -> list[str]:
    """What orders the standings and what the rating column is, under the table."""
    from president_service.league.arena_ratings import PROVISIONAL_MARK, PROVISIONAL_SIGMA, provisional

    notes = ["Ranked by points, then head to head, then buchholz (the tournament's tie-break order). Rating:"
             " OpenSkill's mu - 3 sigma over the tournament's deals, as on the ladder's and the arena's tables."]
    if any(provisional(s.sigma) for s in t.standings if s.tables):
        notes.append(f"{PROVISIONAL_MARK} provisional: sigma above {PROVISIONAL_SIGMA:g} (few deals), so the rating"
                     " is mostly its uncertainty.")
    return notes


def _export(t: pb.Tournament, kind: str, out: str) -> int:
    if kind == "json":
        from google.protobuf.json_format import MessageToDict

        text = json.dumps(MessageToDict(t, preserving_proto_field_name=True, always_print_fields_with_no_presence=True),
                          indent=2) + "\n"
    elif kind == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["rank", "player", "points", "tables", "deals", "byes", "mean_place", "mean_place_low",
                         "mean_place_high", "mu", "sigma", "rating", "head_to_head", "buchholz", "forfeits", "faults",
                         "server_moves", "absences"])
        for s in t.standings:
            writer.writerow([s.rank, s.player, f"{s.points:g}", s.tables, s.deals, s.byes, f"{s.mean_place:.4f}",
                             f"{s.mean_place_low:.4f}", f"{s.mean_place_high:.4f}", f"{s.mu:.4f}", f"{s.sigma:.4f}",
                             f"{s.ordinal:.4f}", f"{s.head_to_head:g}", f"{s.buchholz:g}", s.forfeits, s.faults,
                             s.server_moves, s.absences])
        text = buffer.getvalue()
    else:
        text = f"# {t.spec.name}\n\n{_summary(t)}\n\n{markdown(t)}\n\n{_rule(t)}\n"
    if out == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(out, "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as exc:
            print(f"president tournament: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"wrote {out}")
    return 0


def _listing(tournaments: Sequence[pb.Tournament]) -> None:
    if not tournaments:
        print("no tournaments")
        return
    for t in tournaments:
        created = datetime.fromtimestamp(t.created_at.ToSeconds(), UTC).strftime("%Y-%m-%d %H:%M")
        print(f"{t.tournament_id}  {_state(t.state):<9}  {created} UTC  {t.rounds_begun}/{t.round_count} rounds"
              f"  {len(t.entrants)} entrants  {t.spec.name}")
