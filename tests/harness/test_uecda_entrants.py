"""A UECda contest client as an entrant (issue 25): an account whose bot is ``president-bot "uecda:COMMAND"``
plays the arena's Daifugō queue and a Daifugō tournament against the house bots, with the real commands; the
client program is bridge B."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from process_support import president, stop_with_ctrl_c, wait_for_text
from support import free_port

ADMIN = "uecda-entrants-admin"
BIN = Path(sys.executable).parent
LEVELS = "hard,normal,easy,random"
CLIENT = f"uecda:{BIN / 'president-bot'} builtin:easy --uecda {{host}}:{{port}} --name contest-easy"


def _start(out: Path, *command: str) -> subprocess.Popen[str]:
    with out.open("a") as sink:
        return subprocess.Popen(list(command), stdout=sink, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN))


def test_a_contest_client_passes_its_check_and_plays_rated_arena_matches(tmp_path: Path) -> None:
    port = free_port()
    server = f"localhost:{port}"
    log = tmp_path / "serve.out"
    processes = [_start(log, str(BIN / "president"), "serve", "--db", str(tmp_path / "a.db"), "--port", str(port),
                        "--http-port", str(free_port()), "--arena", "--arena-queue", "daifugo:5", "--arena-deals",
                        "2")]
    try:
        wait_for_text(log, processes[0], "web pages on")
        created = president("account", "create", "contest", "--owner", "a contest team", "--admin-token", ADMIN,
                            "--server", server)
        token = re.search(r"^token: (\S+)$", created.stdout, re.M).group(1)  # type: ignore[union-attr]
        processes.append(_start(tmp_path / "house.out", str(BIN / "president"), "house", LEVELS, "--arena",
                                "--admin-token", ADMIN, "--server", server))
        bot_log = tmp_path / "bot.out"
        processes.append(_start(bot_log, str(BIN / "president-bot"), CLIENT, "--account-token", token, "--arena",
                                "--server", server))
        wait_for_text(bot_log, processes[-1], "CHECK_PASSED", timeout=120)
        wait_for_text(bot_log, processes[-1], "arena daifugo:5: rank", timeout=120)
        assert "Traceback" not in bot_log.read_text()
    finally:
        for process in reversed(processes):
            stop_with_ctrl_c(process)


def test_a_contest_client_plays_a_daifugo_tournament(tmp_path: Path) -> None:
    port = free_port()
    server = f"localhost:{port}"
    log = tmp_path / "serve.out"
    processes = [_start(log, str(BIN / "president"), "serve", "--db", str(tmp_path / "t.db"), "--port", str(port),
                        "--http-port", str(free_port()))]
    try:
        wait_for_text(log, processes[0], "web pages on")
        created = president("account", "create", "contest", "--owner", "a contest team", "--admin-token", ADMIN,
                            "--server", server)
        token = re.search(r"^token: (\S+)$", created.stdout, re.M).group(1)  # type: ignore[union-attr]
        bot_log = tmp_path / "bot.out"
        processes.append(_start(bot_log, str(BIN / "president-bot"), CLIENT, "--account-token", token,
                                "--server", server))
        house_log = tmp_path / "house.out"
        processes.append(_start(house_log, str(BIN / "president"), "house", LEVELS, "--admin-token", ADMIN,
                                "--server", server))
        wait_for_text(house_log, processes[-1], "Ctrl-C stops")
        made = president("tournament", "create", "contest-cup", "--format", "round-robin", "--players", "5",
                         "--preset", "daifugo", "--deals", "3", "--entrants", "contest", "--unchecked", "contest",
                         "--builtin", LEVELS, "--admin-token", ADMIN, "--server", server).stdout
        tournament_id = made.split()[1]
        time.sleep(1)  # every Session open: no entrant absent
        president("tournament", "start", tournament_id, "--admin-token", ADMIN, "--server", server)
        watched = president("tournament", "status", tournament_id, "--watch", "--server", server).stdout
        assert "FINISHED" in watched, watched
        with grpc.insecure_channel(server) as channel:
            final = pb_grpc.PresidentServiceStub(channel).GetTournament(
                pb.GetTournamentRequest(tournament_id=tournament_id), timeout=10).tournament
        standing = {s.player: s for s in final.standings}
        assert set(standing) == {"contest", *(f"house-{level}" for level in LEVELS.split(","))}
        assert standing["contest"].deals > 0 and all(not t.absent for r in final.rounds for t in r.tables)
        assert "Traceback" not in bot_log.read_text()
    finally:
        for process in reversed(processes):
            stop_with_ctrl_c(process)
