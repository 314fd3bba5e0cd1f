"""An open event as an organiser runs it, docs/hosting.md then docs/tournaments.md, at the same time: `president
arena` (a server with the arena and house bots), three authors' `president submit` (a working bot, one whose build
fails, one that raises on every move), `president builder` and `president host --versions` in the sandbox, then a
Swiss tournament of the three and the house bots, started and watched to its end while the arena keeps playing;
the export says who played and who the server played for.  On the install `make venv` leaves (the compiled
build where it is there)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import grpc
from event_support import PRESIDENT, start_arena, submit
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from process_support import president, stop_with_ctrl_c
from sandbox_support import FIRST_BOT, require_sandbox
from support import free_port

ADMIN = "event-admin-6b0d"
RAISES = '''from president_sdk import Bot


class Raises(Bot):
    def play(self, obs):
        raise RuntimeError("this bot raises on every move")
'''
AUTHORS = {  # name: (bot.py, build command)
    "ada": (FIRST_BOT.read_text(), ""),
    "bob": (FIRST_BOT.read_text(), "python -c 'import sys; sys.exit(3)'"),
    "cy": (RAISES, ""),
}


def _arena_matches(stub: pb_grpc.PresidentServiceStub) -> int:
    """The rated arena matches of the leaderboard's players, added up."""
    board = stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4), timeout=10)
    return sum(entry.matches for entry in board.entries)


def test_an_open_event_runs_a_tournament_beside_the_arena_and_ranks_the_broken_bots_last(tmp_path: Path) -> None:
    require_sandbox()
    port = free_port()
    server = f"127.0.0.1:{port}"
    arena = start_arena(tmp_path, port, ADMIN, "event.db")
    host: subprocess.Popen[str] | None = None
    try:
        versions: dict[str, str] = {}
        tokens: dict[str, str] = {}
        for name, (bot, build) in AUTHORS.items():
            tokens[name], versions[name] = submit(tmp_path, server, ADMIN, name, bot, build)
        work = tmp_path / "builds"
        built = president("builder", "--server", server, "--admin-token", ADMIN, "--work", str(work), "--slot", "90",
                          "--once").stdout
        assert built.count(": READY after ") == 2 and ": FAILED: the build command exited with status 3" in built, \
            built
        host_out = tmp_path / "host.out"
        with host_out.open("w") as sink:
            host = subprocess.Popen([str(PRESIDENT), "host", "--server", server, "--versions", "--admin-token", ADMIN,
                                     "--work", str(work), "--slot", "91", "--bots", "4", "--poll", "1",
                                     "--log-dir", str(tmp_path / "host-logs")],
                                    stdout=sink, stderr=subprocess.STDOUT, text=True)
        with grpc.insecure_channel(server) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            deadline = time.monotonic() + 240
            while "check match passed" not in (listed := president("versions", "--server", server,
                                                                   "--account-token", tokens["ada"]).stdout):
                assert time.monotonic() < deadline and host.poll() is None, host_out.read_text() + listed
                time.sleep(1)
            # every entrant as the organiser writes it; the two broken ones need saying so explicitly
            create = ("tournament", "create", "spring", "--format", "swiss", "--rounds", "2", "--players", "3",
                      "--deals", "2", "--duplicate", "--entrants", "ada,bob,cy", "--builtin", "hard,normal,easy",
                      "--move-ms", "2000", "--server", server, "--admin-token", ADMIN)
            refused = president(*create, ok=False)
            assert refused.stderr.count("\n") == 1 and "bob" in refused.stderr and "cy" in refused.stderr \
                and "ada" not in refused.stderr.split("--unchecked")[0], refused.stderr
            created = president(*create, "--unchecked", "bob,cy").stdout
            tournament_id = re.search(r"^tournament (\S+) created", created, re.M).group(1)  # type: ignore[union-attr]
            start = re.search(r"^start it: \.venv/bin/(president tournament start .*)$", created, re.M)
            assert start is not None, created
            arena_before = _arena_matches(stub)
            president(*start.group(1).split()[1:])  # typed as printed, the admin token with it
            watched = president("tournament", "status", tournament_id, "--watch", "--server", server,
                                timeout=600).stdout
            assert "FINISHED" in watched, watched
            assert _arena_matches(stub) > arena_before, "the arena stopped while the tournament ran"
            exported = json.loads(president("tournament", "export", tournament_id, "--as", "json", "--server",
                                            server).stdout)
        standings = {s["player"].split("@")[0]: s for s in exported["standings"]}
        assert standings["ada"]["rank"] < standings["bob"]["rank"], standings
        assert standings["ada"]["rank"] < standings["cy"]["rank"], standings
        # bob never played (the server moved for it); cy's bot played its SDK's fallback after each raise
        assert standings["bob"]["absences"] > 0 and standings["bob"]["server_moves"] > 0, standings["bob"]
        assert standings["cy"]["faults"] > 0, standings["cy"]
        for broken in ("bob", "cy"):
            assert standings[broken]["forfeits"] == standings[broken]["deals"] > 0, standings[broken]
            assert standings[broken]["points"] == 0, standings[broken]
        assert standings["ada"]["forfeits"] == standings["ada"]["faults"] == standings["ada"]["absences"] == 0, \
            standings["ada"]
        table = president("tournament", "export", tournament_id, "--as", "md", "--server", server).stdout
        assert re.search(r"\|\s*faults\s*\|", table, re.I), table
    finally:
        if host is not None:
            stop_with_ctrl_c(host)
        stop_with_ctrl_c(arena)
