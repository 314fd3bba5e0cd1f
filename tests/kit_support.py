"""What the tests of the starter kits in other languages share (tests/go, tests/java, tests/cpp): a kit is built
from a clean copy with its one command, its own tests run, and its bot put through `president conformance` in both
modes.  Without the kit's toolchain its tests skip with one line, except in CI (env CI set), where a missing one is
a failure: .ci/run installs it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from president_harness.child_server import ChildServer
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk import builtin_bot, run
from support import free_port

ROOT = Path(__file__).resolve().parents[1]
PRESIDENT = Path(sys.executable).parent / "president"


@dataclass(frozen=True)
class Kit:
    """examples/<folder>, in `language`, built with `tools` from `packages` (Debian's); its bot is <folder>-bot."""

    folder: str
    language: str
    packages: str
    tools: tuple[str, ...]
    also_missing: tuple[str, ...] = ()
    """What else the kit needs that this machine lacks (a library, a jar), as its test found."""

    @property
    def source(self) -> Path:
        return ROOT / "examples" / self.folder

    @property
    def missing(self) -> list[str]:
        return [tool for tool in self.tools if shutil.which(tool) is None] + list(self.also_missing)

    def generated_in_git(self, pattern: str) -> list[Path]:
        """The files of the kit's source (outside its build/) that `pattern` matches: code that is generated at build
        time, found where git would keep it."""
        return [p for p in self.source.rglob(pattern) if "build" not in p.relative_to(self.source).parts]

    @property
    def skip_unless_ci(self) -> pytest.MarkDecorator:
        """The test module's `pytestmark`: skip when something is missing, unless in CI (where `build` fails)."""
        return pytest.mark.skipif(bool(self.missing) and not os.environ.get("CI"),
                                  reason=f"{', '.join(self.missing)} not installed: the {self.language} kit needs"
                                         f" {self.packages}")

    def build(self, tmp_path_factory: pytest.TempPathFactory) -> Path:
        """A copy of the kit and protos/ as a fresh clone has them, built by `make -C examples/<folder>`."""
        if self.missing:
            pytest.fail(f"{', '.join(self.missing)} missing in CI: .ci/run installs {self.packages}")
        root = tmp_path_factory.mktemp("clone")
        shutil.copytree(ROOT / "protos", root / "protos")
        kit = root / "examples" / self.folder
        shutil.copytree(self.source, kit, ignore=shutil.ignore_patterns("build", "bot"))
        started = time.monotonic()
        built = make(kit)
        assert built.returncode == 0, built.stdout + built.stderr
        print(f"the {self.language} kit built in {time.monotonic() - started:.1f} s")
        return kit

    def mistakes(self, bad_flag: str) -> pytest.MarkDecorator:
        """The parameters (args, status, message) of the bot's mistakes: no server, no token, and an unknown flag
        (which the bot answers with `<folder>-bot: bad_flag`)."""
        bot = f"{self.folder}-bot"
        return pytest.mark.parametrize(("args", "status", "message"), [
            (["--server", f"127.0.0.1:{free_port()}", "--token", "t"], 1, f"{bot}: error: cannot reach 127.0.0.1:"),
            (["--server", "127.0.0.1:1"], 2, f"{bot}: give --token SEAT_TOKEN or --account-token ACCOUNT_TOKEN"),
            (["--turbo"], 2, f"{bot}: {bad_flag}"),
        ], ids=["no-server", "no-token", "bad-flag"])


GO = Kit("go", "Go", "golang-go golang-google-grpc-dev protoc-gen-go-grpc golang-goprotobuf-dev protobuf-compiler",
         tools=("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"))
JAVA_JARS = ("grpc-netty", "protobuf", "proto-google-common-protos", "guava", "netty-codec-http2", "perfmark-api",
             "gson")
"""One jar of each package the Java kit needs besides the tools' (libgrpc-java, libprotobuf-java, ...)."""
JAVA = Kit("java", "Java",
           "default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java libprotobuf-java"
           " libgoogle-common-protos-java libguava-java libnetty-java libperfmark-java libgoogle-gson-java",
           tools=("java", "javac", "jar", "protoc", "grpc_java_plugin"),
           also_missing=tuple(f"/usr/share/java/{jar}.jar" for jar in JAVA_JARS
                              if not Path(f"/usr/share/java/{jar}.jar").is_file()))
"""The kits tested in more than one file (their own tests, and hosted as versions)."""


def make(kit: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-C", str(kit), *targets], capture_output=True, text=True, timeout=900,
                          check=False)


def assert_own_tests_pass(kit: Path) -> None:
    """`make -C KIT test` passes and says `ok`."""
    tested = make(kit, "test")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(r"^ok\s", tested.stdout, re.M), tested.stdout


both_modes = pytest.mark.parametrize("account", [False, True], ids=["play", "session"])
"""A conformance test's parameter: a Play seat's token, or an account's token for a Session."""


def assert_passes_conformance(bot: Path, account: bool) -> None:
    """`president conformance -- BOT` passes every case, on a Session when `account`, else on a Play seat."""
    token = ("--account-token", "{account_token}") if account else ("--token", "{token}")
    result = subprocess.run([str(PRESIDENT), "conformance", "--", str(bot), "--server", "{server}", *token],
                            capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    cases = re.findall(r"^(PASS|FAIL|SKIP)  ", result.stdout, re.M)
    assert len(cases) >= 17 and set(cases) == {"PASS"}, result.stdout
    assert ("3 matches at once on one Session" in result.stdout) == account


def assert_one_line_mistake(bot: Path, args: list[str], status: int, message: str) -> None:
    """BOT ARGS exits with `status`, prints nothing on stdout and one line starting with `message` on stderr (run
    without the PRESIDENT_* variables, which the bots read as defaults)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PRESIDENT_")}
    result = subprocess.run([str(bot), *args], capture_output=True, text=True, timeout=60, check=False, env=env)
    assert result.returncode == status and result.stdout == "", result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(message), result.stderr


def assert_plays_again(command: list[str], tmp_path: Path, prefix: str) -> str:
    """COMMAND --server S --token DEV_SEAT_TOKEN --again plays the dev seat's match, says it waits for the next,
    plays the next one (created while it waits) with the same command, and at Ctrl-C exits 0 after 2 matches; its
    output.  `prefix` starts each line the bot writes on stdout ("[go-bot")."""
    with ChildServer(tmp_path / "again.db") as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        admin = (("authorization", f"Bearer {server.admin_token}"),)

        def create(seed: int) -> pb.CreateMatchResponse:
            created: pb.CreateMatchResponse = stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=1), seed=seed, dev_seat="kit",
                clock=pb.ClockSettings(move_time_limit_ms=0)), metadata=admin, timeout=30)
            for seat in created.seats[1:]:  # the other seats: built-in bots over the SDK's runner
                threading.Thread(target=run, args=(builtin_bot("easy", seed=seat.player), server.address, seat.token),
                                 daemon=True).start()
            return created

        def over(created: pb.CreateMatchResponse) -> None:
            deadline = time.monotonic() + 120
            while stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id)).match.status != pb.MATCH_STATUS_OVER:
                assert time.monotonic() < deadline, f"match {created.match_id} did not end"
                time.sleep(0.1)

        def said(text: str, times: int = 1) -> str:
            deadline = time.monotonic() + 60
            while (output := out.read_text()).count(text) < times:
                assert bot.poll() is None and time.monotonic() < deadline, output + err.read_text()
                time.sleep(0.1)
            return output

        first = create(1)
        token = first.seats[0].token
        out, err = tmp_path / "bot.out", tmp_path / "bot.err"
        with out.open("w") as stdout, err.open("w") as stderr:
            bot = subprocess.Popen([*command, "--server", server.address, "--token", token, "--again"],
                                   stdout=stdout, stderr=stderr)
        try:
            over(first)
            said("waits for its next match")
            second = create(2)
            assert second.seats[0].token == ""  # the same token plays it: the bot was given no other
            over(second)
            said("waits for its next match", 2)  # after the second match too: it keeps going
            bot.send_signal(signal.SIGINT)
            assert bot.wait(timeout=30) == 0, out.read_text() + err.read_text()
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
        output = out.read_text()
        lines = output.splitlines()
        seated = [line.split("] ", 1)[1] for line in lines if line.startswith(prefix) and "seated in match" in line]
        assert seated == [
            f"seated in match {first.match_id} as player 0 of 4",
            f"seated in match {second.match_id} as player 0 of 4"], output
        assert lines[-1] == f"{prefix}] stopped after 2 matches", output
        assert sum("match over:" in line for line in lines) == 2, output
        assert sum("waits for its next match" in line for line in lines) == 2, output  # once a wait, not each second
        assert err.read_text() == ""
        return output
