"""The C++ kit (examples/cpp) built from a clean copy with its one command, and its bot put through
`president conformance` in both modes.  Without the compiler, the code generators or the gRPC and protobuf
libraries the tests skip with one line, except in CI (env CI set), where a missing one is a failure: .ci/run
installs them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import free_port

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "examples" / "cpp"
PRESIDENT = Path(sys.executable).parent / "president"
TOOLS = ("g++", "make", "pkg-config", "protoc", "grpc_cpp_plugin")
PACKAGES = "g++ make pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"


def _missing() -> list[str]:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if "pkg-config" not in missing and subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"],
                                                      check=False).returncode != 0:
        missing.append("the grpc++ and protobuf libraries")
    return missing


MISSING = _missing()

pytestmark = pytest.mark.skipif(bool(MISSING) and not os.environ.get("CI"),
                                reason=f"{', '.join(MISSING)} not installed: the C++ kit needs {PACKAGES}")


def make(kit: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-C", str(kit), *targets], capture_output=True, text=True, timeout=900,
                          check=False)


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of examples/cpp and protos/ as a fresh clone has them, built by `make -C examples/cpp`."""
    if MISSING:
        pytest.fail(f"{', '.join(MISSING)} missing in CI: .ci/run installs {PACKAGES}")
    root = tmp_path_factory.mktemp("clone")
    shutil.copytree(ROOT / "protos", root / "protos")
    shutil.copytree(KIT, root / "examples" / "cpp", ignore=shutil.ignore_patterns("build", "bot"))
    started = time.monotonic()
    built = make(root / "examples" / "cpp")
    assert built.returncode == 0, built.stdout + built.stderr
    print(f"the C++ kit built in {time.monotonic() - started:.1f} s")
    return root / "examples" / "cpp"


def test_the_code_is_generated_from_the_proto_at_build_time(kit: Path) -> None:
    generated = kit / "build" / "gen" / "president" / "v1"
    assert {p.name for p in generated.iterdir()} == {"president.pb.cc", "president.pb.h", "president.grpc.pb.cc",
                                                      "president.grpc.pb.h"}
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "examples/cpp"], capture_output=True, text=True,
                             check=True).stdout.split()
    assert not [p for p in tracked if ".pb." in p or p.startswith("examples/cpp/build/")], "generated code in git"
    assert not [p for p in KIT.rglob("*.pb.*") if "build" not in p.relative_to(KIT).parts], "generated code in git"
    assert (kit / "bot").is_file()


def test_the_kits_own_tests_pass(kit: Path) -> None:
    tested = make(kit, "test")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(r"^ok\s", tested.stdout, re.M), tested.stdout


@pytest.mark.parametrize("account", [False, True], ids=["play", "session"])
def test_the_cpp_bot_passes_conformance(kit: Path, account: bool) -> None:
    token = ("--account-token", "{account_token}") if account else ("--token", "{token}")
    result = subprocess.run([str(PRESIDENT), "conformance", "--", str(kit / "bot"), "--server", "{server}", *token],
                            capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    cases = re.findall(r"^(PASS|FAIL|SKIP)  ", result.stdout, re.M)
    assert len(cases) >= 17 and set(cases) == {"PASS"}, result.stdout
    assert ("3 matches at once on one Session" in result.stdout) == account


@pytest.mark.parametrize(("args", "status", "message"), [
    (["--server", f"127.0.0.1:{free_port()}", "--token", "t"], 1, "cpp-bot: error: cannot reach 127.0.0.1:"),
    (["--server", "127.0.0.1:1"], 2, "cpp-bot: give --token SEAT_TOKEN or --account-token ACCOUNT_TOKEN"),
    (["--turbo"], 2, "cpp-bot: unknown option --turbo"),
], ids=["no-server", "no-token", "bad-flag"])
def test_the_cpp_bot_explains_a_mistake_in_one_line(kit: Path, args: list[str], status: int, message: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRESIDENT_")}
    result = subprocess.run([str(kit / "bot"), *args], capture_output=True, text=True, timeout=60, check=False,
                            env=env)
    assert result.returncode == status and result.stdout == "", result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(message), result.stderr
