"""The Java kit (examples/java) built from a clean copy with its one command, and its bot put through
`president conformance` in both modes.  Without the JDK, protoc's gRPC plugin or Debian's gRPC jars the tests skip
with one line, except in CI (env CI set), where a missing one is a failure: .ci/run installs them."""

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
KIT = ROOT / "examples" / "java"
PRESIDENT = Path(sys.executable).parent / "president"
TOOLS = ("java", "javac", "jar", "protoc", "grpc_java_plugin")
JARS = ("grpc-netty", "protobuf", "proto-google-common-protos", "guava", "netty-codec-http2", "perfmark-api", "gson")
"""One jar of each package the kit needs besides the tools' (libgrpc-java, libprotobuf-java, ...)."""
MISSING = [tool for tool in TOOLS if shutil.which(tool) is None] + [
    f"/usr/share/java/{jar}.jar" for jar in JARS if not Path(f"/usr/share/java/{jar}.jar").is_file()]
PACKAGES = ("default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java libprotobuf-java"
            " libgoogle-common-protos-java libguava-java libnetty-java libperfmark-java libgoogle-gson-java")

pytestmark = pytest.mark.skipif(bool(MISSING) and not os.environ.get("CI"),
                                reason=f"{', '.join(MISSING)} not installed: the Java kit needs {PACKAGES}")


def make(kit: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-C", str(kit), *targets], capture_output=True, text=True, timeout=900,
                          check=False)


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of examples/java and protos/ as a fresh clone has them, built by `make -C examples/java`."""
    if MISSING:
        pytest.fail(f"{', '.join(MISSING)} missing in CI: .ci/run installs {PACKAGES}")
    root = tmp_path_factory.mktemp("clone")
    shutil.copytree(ROOT / "protos", root / "protos")
    shutil.copytree(KIT, root / "examples" / "java", ignore=shutil.ignore_patterns("build", "bot"))
    started = time.monotonic()
    built = make(root / "examples" / "java")
    assert built.returncode == 0, built.stdout + built.stderr
    print(f"the Java kit built in {time.monotonic() - started:.1f} s")
    return root / "examples" / "java"


def test_the_code_is_generated_from_the_proto_at_build_time(kit: Path) -> None:
    generated = kit / "build" / "gen" / "president" / "v1"
    assert {p.name for p in generated.glob("*.java")} == {"President.java", "PresidentServiceGrpc.java"}
    assert not [p for p in KIT.rglob("President*.java") if "build" not in p.relative_to(KIT).parts], \
        "generated code in git"
    assert os.access(kit / "bot", os.X_OK)


def test_the_kits_own_tests_pass(kit: Path) -> None:
    tested = make(kit, "test")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(r"^ok\s", tested.stdout, re.M), tested.stdout


@pytest.mark.parametrize("account", [False, True], ids=["play", "session"])
def test_the_java_bot_passes_conformance(kit: Path, account: bool) -> None:
    token = ("--account-token", "{account_token}") if account else ("--token", "{token}")
    result = subprocess.run([str(PRESIDENT), "conformance", "--", str(kit / "bot"), "--server", "{server}", *token],
                            capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    cases = re.findall(r"^(PASS|FAIL|SKIP)  ", result.stdout, re.M)
    assert len(cases) >= 17 and set(cases) == {"PASS"}, result.stdout
    assert ("3 matches at once on one Session" in result.stdout) == account


@pytest.mark.parametrize(("args", "status", "message"), [
    (["--server", f"127.0.0.1:{free_port()}", "--token", "t"], 1, "java-bot: error: cannot reach 127.0.0.1:"),
    (["--server", "127.0.0.1:1"], 2, "java-bot: give --token SEAT_TOKEN or --account-token ACCOUNT_TOKEN"),
    (["--turbo"], 2, "java-bot: unknown option --turbo"),
], ids=["no-server", "no-token", "bad-flag"])
def test_the_java_bot_explains_a_mistake_in_one_line(kit: Path, args: list[str], status: int, message: str) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("PRESIDENT_")}
    result = subprocess.run([str(kit / "bot"), *args], capture_output=True, text=True, timeout=60, check=False,
                            env=env)
    assert result.returncode == status and result.stdout == "", result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(message), result.stderr
