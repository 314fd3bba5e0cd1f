"""The organiser's flow of docs/tournaments.md with the real commands: `president serve`, an author's account
and bot (`president-bot`), the house bots (`president house`), a Swiss event with duplicate boards
(`president tournament create`, `start`), a `kill -9` of the server mid-round and the same command again, the
event watched to its end (`status --watch`), its web API, and the final table exported as Markdown, CSV and
JSON; and the command's refusals, each one line."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from process_support import president, stop_with_ctrl_c, wait_for_text
from sandbox_support import FIRST_BOT
from support import free_port

ADMIN = "tournament-admin-93d1"
BIN = Path(sys.executable).parent
LEVELS = "hard,normal,easy,random"




def _start(out: Path, *command: str) -> subprocess.Popen[str]:
    with out.open("a") as sink:
        return subprocess.Popen(list(command), stdout=sink, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN))




def _tournament(server: str, tournament_id: str) -> pb.Tournament:
    with grpc.insecure_channel(server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        return stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id), timeout=10).tournament


def test_an_organiser_runs_a_swiss_event_through_a_kill_and_exports_it(tmp_path: Path) -> None:
    port, http = free_port(), free_port()
    server = f"localhost:{port}"
    serve = (str(BIN / "president"), "serve", "--db", str(tmp_path / "event.db"), "--http-port", str(http),
             "--port", str(port), "--start-grace", "30")
    log = tmp_path / "serve.out"
    processes: list[subprocess.Popen[str]] = []
    try:
        processes.append(_start(log, *serve))
        wait_for_text(log, processes[-1], "web pages on")
        created = president("account", "create", "alice", "--owner", "Alice", "--admin-token", ADMIN,
                            "--server", server)
        token = re.search(r"^token: (\S+)$", created.stdout, re.M).group(1)  # type: ignore[union-attr]
        bot_log = tmp_path / "bot.out"
        processes.append(_start(bot_log, str(BIN / "president-bot"), str(FIRST_BOT), "--account-token", token,
                                "--max-matches", "8", "--server", server))
        house_log = tmp_path / "house.out"
        processes.append(_start(house_log, str(BIN / "president"), "house", LEVELS, "--admin-token", ADMIN,
                                "--server", server))
        wait_for_text(house_log, processes[-1], "Ctrl-C stops")
        made = president("tournament", "create", "spring", "--format", "swiss", "--rounds", "3", "--duplicate",
                         "--entrants", "alice", "--unchecked", "alice", "--builtin", LEVELS, "--admin-token", ADMIN,
                         "--server", server).stdout
        tournament_id = re.match(r"tournament (\S+) created: spring, swiss, 3 rounds at tables of 4, 5 entrants",
                                 made).group(1)  # type: ignore[union-attr]
        time.sleep(1)  # every Session open: no entrant absent
        assert "RUNNING" in president("tournament", "start", tournament_id, "--admin-token", ADMIN,
                                      "--server", server).stdout
        deadline = time.monotonic() + 120
        while not ((t := _tournament(server, tournament_id)).rounds_begun >= 2
                   and any(x.match_ids and not x.finished for x in t.rounds[-1].tables)):
            assert time.monotonic() < deadline, t
            time.sleep(0.05)
        processes[0].kill()  # kill -9, mid-round
        processes[0].wait()
        processes[0] = _start(log, *serve)  # the same command again
        wait_for_text(log, processes[0], "listening on", times=2)
        watched = president("tournament", "status", tournament_id, "--watch", "--server", server).stdout
        assert "FINISHED, 3 of 3 rounds begun" in watched
        final = _tournament(server, tournament_id)
        assert all(len(x.match_ids) == 4 and x.finished and not x.absent for r in final.rounds for x in r.tables)
        assert sorted(s.player for s in final.standings) == sorted(["alice", *(f"house-{lv}"
                                                                             for lv in LEVELS.split(","))])
        assert sum(s.deals for s in final.standings) == 3 * 4 * 4, "each table's four rotations counted once"
        with urllib.request.urlopen(f"http://127.0.0.1:{http}/api/tournaments/{tournament_id}", timeout=10) as got:
            shown = json.load(got)["tournament"]
        assert [s["player"] for s in shown["standings"]] == [s.player for s in final.standings]
        president("tournament", "export", tournament_id, "--as", "md", "--out", str(tmp_path / "spring.md"),
                  "--server", server)
        table = (tmp_path / "spring.md").read_text()
        assert table.startswith("# spring\n") and table.count("\n| ") == 6
        rows = list(csv.DictReader(io.StringIO(president("tournament", "export", tournament_id, "--as", "csv",
                                                         "--server", server).stdout)))
        assert [r["player"] for r in rows] == [s.player for s in final.standings]
        exported = json.loads(president("tournament", "export", tournament_id, "--as", "json",
                                        "--server", server).stdout)
        assert exported["state"] == "TOURNAMENT_STATE_FINISHED" and len(exported["rounds"]) == 3
        listed = president("tournament", "list", "--server", server).stdout
        assert tournament_id in listed and "FINISHED" in listed

        for args, reason in ((("start", tournament_id), "TOURNAMENT_STATE"),
                             (("create", "tiny", "--entrants", "alice", "--builtin", "easy"), "BAD_OPTION"),
                             (("create", "who", "--entrants", "alice,nobody,house-easy,house-hard"),
                              "UNKNOWN_ACCOUNT"),
                             (("status", "nope"), "UNKNOWN_TOURNAMENT")):
            refused = president("tournament", *args, "--admin-token", ADMIN, "--server", server, ok=False)
            assert refused.stdout == "" and len(refused.stderr.splitlines()) == 1, refused.stderr
            assert refused.stderr.startswith(f"president tournament: {reason}: "), refused.stderr
        assert len(president("tournament", "list", "--server", server).stdout.splitlines()) == 1, "nothing was made"
        no_token = president("tournament", "start", tournament_id, "--server", server, ok=False)
        assert "give --admin-token or set PRESIDENT_ADMIN_TOKEN" in no_token.stderr
    finally:
        for process in reversed(processes):
            stop_with_ctrl_c(process)
