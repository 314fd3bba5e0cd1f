"""An organiser's Swiss event beside the arena, with the real commands: `president serve --arena`, the house bots
(`president house --arena`), three authors' accounts (a working bot and one that raises on every move, both
`president-bot --arena`, and one whose only version FAILED to build, never connected), and a bystander the
arena keeps matching.  `tournament create` refuses the entrants without a ready, checked version in one line,
takes them when named with --unchecked, and warns that most entrants will sit out a round; the start command it
prints runs as printed; the event finishes while the arena keeps playing other matches; the working bot ranks
above both broken ones, which forfeited every deal they played; the standings, status and every export show
the faults, absences, server-played moves and forfeits."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from process_support import president, stop_with_ctrl_c, wait_for_text
from sandbox_support import FIRST_BOT
from support import free_port

ADMIN = "faults-admin-4c7e"
BIN = Path(sys.executable).parent
LEVELS = "hard,normal,easy,random"
RAISING_BOT = """\
from president_sdk import Bot


class RaisingBot(Bot):
    def play(self, obs):
        raise RuntimeError("broken on every move")
"""


def _start(out: Path, *command: str, admin: bool = False) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "PRESIDENT_ADMIN_TOKEN"}
    if admin:
        env["PRESIDENT_ADMIN_TOKEN"] = ADMIN
    with out.open("a") as sink:
        return subprocess.Popen(list(command), stdout=sink, stderr=subprocess.STDOUT, text=True, env=env)


def _token(server: str, name: str) -> str:
    created = president("account", "create", name, "--owner", name.title(), "--admin-token", ADMIN,
                        "--server", server)
    return re.search(r"^token: (\S+)$", created.stdout, re.M).group(1)  # type: ignore[union-attr]


def _failed_version(server: str, token: str) -> None:
    """A version of the account whose build fails, as the builder reports it."""
    with grpc.insecure_channel(server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        manifest = pb.BotManifest(name="cybot", runtime=pb.RUNTIME_PYTHON, build="python -m compileall -q .",
                                  run="president-bot bot.py --arena")
        stub.SubmitBot(iter([pb.SubmitBotRequest(manifest=manifest), pb.SubmitBotRequest(chunk=b"x" * 100)]),
                       metadata=(("authorization", f"Bearer {token}"),), timeout=10)
        admin = (("authorization", f"Bearer {ADMIN}"),)
        leased = stub.LeaseBuild(pb.LeaseBuildRequest(builder="tests"), metadata=admin, timeout=10)
        stub.ReportBuild(pb.ReportBuildRequest(version_id=leased.version.version_id, lease_id=leased.lease_id,
                                               ready=False, reason="SyntaxError: invalid syntax", log="failed\n"),
                         metadata=admin, timeout=10)


def _tournament(server: str, tournament_id: str) -> pb.Tournament:
    with grpc.insecure_channel(server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        return stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id), timeout=10).tournament


def test_broken_bots_forfeit_and_the_event_finishes_beside_the_arena(tmp_path: Path) -> None:
    port = free_port()
    server = f"localhost:{port}"
    db = tmp_path / "event.db"
    log = tmp_path / "serve.out"
    processes: list[subprocess.Popen[str]] = []
    try:
        processes.append(_start(log, str(BIN / "president"), "serve", "--db", str(db), "--port", str(port),
                                "--arena", "--arena-queue", "cardverse:4", "--arena-deals", "1", "--move-ms", "1000",
                                "--bank-ms", "0", "--start-grace", "2", "--absence-limit", "0.3", admin=True))
        wait_for_text(log, processes[-1], "serving on")
        house_log = tmp_path / "house.out"
        processes.append(_start(house_log, str(BIN / "president"), "house", LEVELS, "--arena", "--admin-token",
                                ADMIN, "--server", server))
        wait_for_text(house_log, processes[-1], "Ctrl-C stops")
        tokens = {name: _token(server, name) for name in ("alice", "bob", "carl", "cy")}
        folder = tmp_path / "raising"
        folder.mkdir()
        (folder / "bot.py").write_text(RAISING_BOT)
        for name, bot in (("alice", FIRST_BOT), ("bob", folder / "bot.py"), ("carl", FIRST_BOT)):
            processes.append(_start(tmp_path / f"{name}.out", str(BIN / "president-bot"), str(bot), "--arena",
                                    "--max-matches", "2", "--account-token", tokens[name], "--server", server))
        _failed_version(server, tokens["cy"])

        create = ("tournament", "create", "spring", "--format", "swiss", "--rounds", "3", "--deals", "2",
                  "--move-ms", "1000", "--entrants", "alice,bob,cy", "--builtin", "easy,random",
                  "--admin-token", ADMIN, "--server", server)
        deadline = time.monotonic() + 90
        while True:  # alice passes her check match in the arena; bob never does; cy's build failed
            refused = president(*create, ok=False)
            assert refused.stdout == "" and len(refused.stderr.splitlines()) == 1, refused.stderr
            if "alice" not in refused.stderr:
                break
            assert time.monotonic() < deadline, refused.stderr
            time.sleep(1)
        assert refused.stderr.startswith("president tournament: VERSION_STATE: not ready to be entered: bob: no"
                                         " version, and its own bot has not passed a check match; cy: no READY"
                                         " version (its newest, "), refused.stderr
        assert "is FAILED: SyntaxError: invalid syntax)" in refused.stderr
        assert refused.stderr.endswith("; enter them anyway with --unchecked bob,cy\n"), refused.stderr
        assert president("tournament", "list", "--server", server).stdout == "no tournaments\n", "nothing was made"

        made = president(*create, "--unchecked", "bob,cy")
        tournament_id = re.match(r"tournament (\S+) created: spring, swiss, 3 rounds at tables of 4, 5 entrants",
                                 made.stdout).group(1)  # type: ignore[union-attr]
        assert made.stderr == ("president tournament: warning: 5 entrants at tables of 4: 1 of them sit out each of"
                               " the 3 rounds (3 byes; 3 of the 5 entrants sit out at least once); 4 or 8 entrants"
                               " would leave none out\n"), made.stderr
        start = re.search(r"^start it: (.*)$", made.stdout, re.M).group(1)  # type: ignore[union-attr]
        assert start.endswith(f"--admin-token {ADMIN}"), start
        words = shlex.split(start)
        assert words[0] == ".venv/bin/president"
        started = subprocess.run([str(BIN / "president"), *words[1:]], capture_output=True, text=True, timeout=60,
                                 check=False, env={k: v for k, v in os.environ.items() if k != "PRESIDENT_ADMIN_TOKEN"})
        assert started.returncode == 0 and "RUNNING" in started.stdout, started.stdout + started.stderr

        watched = president("tournament", "status", tournament_id, "--watch", "--server", server, timeout=240).stdout
        assert "FINISHED, 3 of 3 rounds begun" in watched
        final = _tournament(server, tournament_id)
        with closing(sqlite3.connect(db)) as conn:
            beside = conn.execute("SELECT COUNT(*) FROM matches WHERE kind = 'arena' AND created_at BETWEEN ? AND ?"
                                  " AND names LIKE '%\"carl\"%'", (final.started_at.ToSeconds(),
                                                                    final.ended_at.ToSeconds())).fetchone()[0]
        assert beside > 0, "the arena kept playing other matches during the event"

        standing = {s.player: s for s in final.standings}
        alice, bob, cy = standing["alice"], standing["bob"], standing["cy"]
        assert alice.rank < bob.rank and alice.rank < cy.rank, final.standings
        assert alice.deals > 0 and alice.forfeits == alice.faults == alice.server_moves == alice.absences == 0
        assert bob.deals > 0 and bob.faults >= bob.deals and bob.forfeits == bob.deals and bob.absences == 0
        assert cy.deals > 0 and cy.absences == cy.tables and cy.server_moves > 0 and cy.forfeits == cy.deals
        assert bob.points == cy.points == 0, "a forfeit scores last place, and a forfeiting entrant's bye nothing"
        assert final.spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_FORFEIT

        rows = {r["player"]: r for r in csv.DictReader(io.StringIO(president(
            "tournament", "export", tournament_id, "--as", "csv", "--server", server).stdout))}
        for s in (alice, bob, cy):
            assert (rows[s.player]["forfeits"], rows[s.player]["faults"], rows[s.player]["server_moves"],
                    rows[s.player]["absences"]) == (str(s.forfeits), str(s.faults), str(s.server_moves),
                                                    str(s.absences))
        exported = json.loads(president("tournament", "export", tournament_id, "--as", "json",
                                        "--server", server).stdout)
        shown = {s["player"]: s for s in exported["standings"]}
        assert shown["alice"]["faults"] == 0 and shown["bob"]["faults"] == bob.faults
        assert shown["cy"]["absences"] == cy.absences and shown["cy"]["server_moves"] == cy.server_moves
        table = president("tournament", "export", tournament_id, "--as", "md", "--server", server).stdout
        assert "| forfeits | faults | server moves | absences |" in table
        assert f"| {bob.forfeits} | {bob.faults} | 0 | 0 |" in table
        assert "it scores last place" in table
    finally:
        for process in reversed(processes):
            stop_with_ctrl_c(process)
