"""A starter kit's bot as a hosted version (issues 23 and 26), with the real commands: the kit built from a clean
copy with its one command, `president submit` of its folder (its manifest, president-bot.toml: runtime "binary"
for Go, "java" for Java), `president builder` checking the bot starts in the sandbox, and `president host
--versions` running it in a sandbox, where it passes its check match and is rated in the arena as
`account@version`.  The Java bot reaches the server through the jail's loopback relay (`Sandbox.loopback`) and
runs within the jail's default limits, the same as every other bot's.

The Go and Java kits are run here: the C++ kit's manifest is the Go kit's, but its build (about 1.5 minutes of one
core) does not fit the CI budget beside tests/cpp's.  Skipped without a sandbox or the kit's toolchain here, failed
in CI (as the other kit and sandbox tests)."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import grpc
import pytest
from kit_support import GO, JAVA, PRESIDENT, Kit
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from process_support import president, stop_with_ctrl_c, wait_for_text
from sandbox_support import require_sandbox
from support import free_port

ADMIN = "hosted-kits-admin-7d21"

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("kit", [pytest.param(kit, marks=kit.skip_unless_ci, id=kit.folder) for kit in (GO, JAVA)])
def test_a_kit_bot_is_submitted_built_hosted_checked_and_rated(kit: Kit, tmp_path: Path,
                                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    require_sandbox()
    folder = kit.build(tmp_path_factory)
    assert (folder / "president-bot.toml").is_file()
    port = free_port()
    server = f"127.0.0.1:{port}"
    arena_out = tmp_path / "arena.out"
    with arena_out.open("w") as sink:
        arena = subprocess.Popen([str(PRESIDENT), "arena", "--port", str(port), "--http-port", str(free_port()),
                                  "--db", str(tmp_path / "arena.db"), "--admin-token", ADMIN, "--queue", "cardverse:4",
                                  "--house", "hard,normal,easy", "--every", "1"],
                                 stdout=sink, stderr=subprocess.STDOUT, text=True)
    host: subprocess.Popen[str] | None = None
    account = f"{kit.folder}kit"
    try:
        wait_for_text(arena_out, arena, "Ctrl-C stops the arena")
        created = president("account", "create", account, "--owner", kit.language, "--server", server,
                            "--admin-token", ADMIN).stdout
        token = re.search(r"^token: (\S+)$", created, re.M).group(1)  # type: ignore[union-attr]
        submitted = president("submit", str(folder), "--server", server, "--account-token", token).stdout
        version = re.match(r"version ([0-9a-f]{16}) ", submitted).group(1)  # type: ignore[union-attr]
        work = tmp_path / "work"
        built = president("builder", "--server", server, "--admin-token", ADMIN, "--work", str(work), "--slot", "72",
                          "--once", "--name", "tests").stdout
        assert f"{version} ({account}: {kit.folder}-bot): READY after " in built, built
        log = president("build-log", version, "--server", server, "--account-token", token).stdout
        assert "account-token" in log and "arena" in log, log  # the bot's options, printed in the jail
        host_out = tmp_path / "host.out"
        with host_out.open("w") as sink:
            host = subprocess.Popen([str(PRESIDENT), "host", "--server", server, "--versions", "--admin-token", ADMIN,
                                     "--work", str(work), "--slot", "73", "--bots", "2", "--poll", "1",
                                     "--log-dir", str(tmp_path / "logs"), "--name", "host-1"],
                                    stdout=sink, stderr=subprocess.STDOUT, text=True)
        with grpc.insecure_channel(server) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            deadline = time.monotonic() + 240
            while True:
                entries = stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4)).entries
                rated = [e for e in entries if e.account == account and e.matches >= 1]
                if rated:
                    break
                assert time.monotonic() < deadline and host.poll() is None, host_out.read_text() + str(entries)
                time.sleep(1)
        assert [e.version_id for e in rated] == [version], rated
        listed = president("versions", "--server", server, "--account-token", token).stdout
        assert re.search(rf"^{version}  READY \*  .*  \(check match passed\)$", listed, re.M), listed
        player = f"{account}@{version}"
        assert f"president host: {player}: run 1 started in its sandbox" in host_out.read_text()
        assert player in wait_for_text(arena_out, arena, player)
    finally:
        if host is not None:
            stop_with_ctrl_c(host)
        stop_with_ctrl_c(arena)
    lines = (tmp_path / "host.out").read_text().splitlines()
    assert lines[-1] == "president host: stopped" and host.returncode == 0, lines
    assert f"president host: {player}: stopped" in lines, lines
