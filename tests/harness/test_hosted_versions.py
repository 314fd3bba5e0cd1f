"""The organiser's flow of issue 23, with the real commands: `president arena` (a server with house bots),
three authors' `president submit` (one bot broken), `president builder` building each in the sandbox, and
`president host --versions` running the READY ones in sandboxes, where they pass their check match and are rated
in the arena under their versions' names.  The host has a --work of its own, as on another machine: it fetches each
built folder the builder uploaded, never building one, and does not start one whose archive is not what was
uploaded or that has none.  Skipped without a sandbox here, failed in CI (as the red-team suite)."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import time
from pathlib import Path

import grpc
from event_support import PRESIDENT, start_arena, submit
from president_harness.hosting.builder import pack_built
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from process_support import president, stop_with_ctrl_c, wait_for_text
from sandbox_support import FIRST_BOT, require_sandbox
from support import free_port

ADMIN = "hosting-admin-51c7"


def test_submitted_bots_are_built_hosted_checked_and_rated_by_version(tmp_path: Path) -> None:
    require_sandbox()
    port = free_port()
    server = f"127.0.0.1:{port}"
    arena_out = tmp_path / "arena.out"
    arena = start_arena(tmp_path, port, ADMIN, "arena.db")
    host: subprocess.Popen[str] | None = None
    try:
        versions: dict[str, str] = {}
        tokens: dict[str, str] = {}
        builds = {"ada": "", "bob": "python -m compileall -q .", "cy": "python -c 'import sys; sys.exit(2)'",
                  "dee": "", "eve": ""}
        for name, build in builds.items():
            tokens[name], versions[name] = submit(tmp_path, server, ADMIN, name, FIRST_BOT.read_text(), build)
        work = tmp_path / "work"
        built = president("builder", "--server", server, "--admin-token", ADMIN, "--work", str(work), "--slot", "70",
                          "--once", "--name", "tests").stdout
        assert built.count(": READY after ") == 4 and f"{versions['cy']} (cy: cy's bot): FAILED: the build command" \
            " exited with status 2" in built, built
        with sqlite3.connect(tmp_path / "arena.db", timeout=30) as db:  # dee's built archive swapped for another
            (built_sha, built_bytes), = db.execute("SELECT built_sha256, built_bytes FROM versions WHERE id = ?",
                                                   (versions["dee"],)).fetchall()
            assert built_bytes < 64 * 1024  # one row
            db.execute("UPDATE version_archives SET data = ? WHERE sha256 = ?",
                       (pack_built(work / "built" / versions["ada"]), built_sha))
            db.execute("UPDATE versions SET built_sha256 = '', built_bytes = 0 WHERE id = ?",  # as built before
                       (versions["eve"],))
        host_work = tmp_path / "host-work"  # another machine's: nothing built there
        host_out = tmp_path / "host.out"
        with host_out.open("w") as sink:
            host = subprocess.Popen([str(PRESIDENT), "host", "--server", server, "--versions", "--admin-token", ADMIN,
                                     "--work", str(host_work), "--slot", "71", "--bots", "4", "--poll", "1",
                                     "--log-dir", str(tmp_path / "logs"), "--name", "host-1"],
                                    stdout=sink, stderr=subprocess.STDOUT, text=True)
        with grpc.insecure_channel(server) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            deadline = time.monotonic() + 240
            while True:
                entries = stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4)).entries
                rated = {e.account: e.version_id for e in entries if not e.house}
                if len(rated) >= 2:  # one more would be a version not to start
                    break
                assert time.monotonic() < deadline and host.poll() is None, host_out.read_text() + str(rated)
                time.sleep(1)
        assert rated == {"ada": versions["ada"], "bob": versions["bob"]}
        for name in ("ada", "bob"):
            listed = president("versions", "--server", server, "--account-token", tokens[name]).stdout
            assert re.search(rf"^{versions[name]}  READY \*  .*  \(check match passed\)$", listed, re.M), listed
        assert "FAILED" in president("versions", "--server", server, "--account-token", tokens["cy"]).stdout
        started = host_out.read_text()
        for name in ("ada", "bob"):
            assert f"president host: {name}@{versions[name]}: fetched its built folder (" in started, started
            assert f"president host: {name}@{versions[name]}: run 1 started in its sandbox" in started, started
            assert (host_work / "built" / versions[name] / "bot.py").read_text() == FIRST_BOT.read_text()
        assert "cy@" not in started and "build" not in started.replace("built", ""), started
        assert not (host_work / "logs").exists()  # no build ran here (a build writes its log there)
        assert {p.name for p in (host_work / "built").iterdir()} == {versions["ada"], versions["bob"]}
        assert f"president host: dee@{versions['dee']}: not started: its built archive does not match its" \
            " SHA-256" in started, started
        assert f"president host: eve@{versions['eve']}: not started: the server has no built archive of it" \
            in started, started
        assert f"dee@{versions['dee']}: run" not in started and f"eve@{versions['eve']}: run" not in started, started
        assert f"ada@{versions['ada']}" in wait_for_text(arena_out, arena, f"ada@{versions['ada']}")
        ada = ("--server", server, "--account-token", tokens["ada"])
        deadline = time.monotonic() + 60
        while True:  # its welcome's line is in whichever of its first matches was being played then, once over
            with grpc.insecure_channel(server) as channel:
                stub = pb_grpc.PresidentServiceStub(channel)
                mine = pb.ListMatchesRequest(status=pb.MATCH_STATUS_OVER, player=f"ada@{versions['ada']}")
                total = stub.ListMatches(mine).finished_total
                mine.offset, mine.page_size = max(0, total - 3), 3
                first = [m.match_id for m in stub.ListMatches(mine).matches]
            shown = [(), *(("--match", match_id) for match_id in first)]
            said = "".join(president("bot-output", versions["ada"], *more, *ada).stdout for more in shown)
            if ": account ada: " in said:
                break
            assert time.monotonic() < deadline, said  # the host sends its output at each renewal
            time.sleep(0.5)
        assert said.startswith(f"ada@{versions['ada']} outside its matches: "), said
        assert all(f"\nada@{versions['ada']} during match {match_id}: " in said for match_id in first), said
        assert re.search(r"^\d\d:\d\d:\d\d\.\d{3} INFO president\.session: account ada: ", said, re.M), said
        refused = president("bot-output", versions["ada"], "--server", server, "--account-token", tokens["bob"],
                            ok=False)
        assert refused.returncode == 1 and "UNKNOWN_VERSION" in refused.stderr, refused
    finally:
        if host is not None:
            stop_with_ctrl_c(host)
        stop_with_ctrl_c(arena)
    lines = (tmp_path / "host.out").read_text().splitlines()
    assert lines[-1] == "president host: stopped" and host.returncode == 0, lines
    assert {f"president host: {n}@{versions[n]}: stopped" for n in ("ada", "bob")} <= set(lines), lines
