"""The C++ kit (examples/cpp) built from a clean copy with its one command, and its bot put through
`president conformance` in both modes.  Without the compiler, the code generators or the gRPC and protobuf
libraries the tests skip with one line, except in CI (env CI set), where a missing one is a failure: .ci/run
installs them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from kit_support import (
    ROOT,
    Kit,
    assert_one_line_mistake,
    assert_own_tests_pass,
    assert_passes_conformance,
    assert_plays_again,
    both_modes,
)

LIBRARIES = shutil.which("pkg-config") is None or subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"],
                                                                 check=False).returncode == 0
"""Whether pkg-config finds the libraries (or is itself missing, which is said instead)."""
KIT = Kit("cpp", "C++", "g++ make pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc",
          tools=("g++", "make", "pkg-config", "protoc", "grpc_cpp_plugin"),
          also_missing=() if LIBRARIES else ("the grpc++ and protobuf libraries",))

pytestmark = [KIT.skip_unless_ci, pytest.mark.xdist_group("cpp-kit")]  # one worker builds the kit once


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return KIT.build(tmp_path_factory)


def test_the_code_is_generated_from_the_proto_at_build_time(kit: Path) -> None:
    generated = kit / "build" / "gen" / "president" / "v1"
    assert {p.name for p in generated.iterdir()} == {"president.pb.cc", "president.pb.h", "president.grpc.pb.cc",
                                                      "president.grpc.pb.h"}
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "examples/cpp"], capture_output=True, text=True,
                             check=True).stdout.split()
    assert not [p for p in tracked if ".pb." in p or p.startswith("examples/cpp/build/")], "generated code in git"
    assert not KIT.generated_in_git("*.pb.*"), "generated code in git"
    assert (kit / "bot").is_file()


def test_the_kits_own_tests_pass(kit: Path) -> None:
    assert_own_tests_pass(kit)


@both_modes
def test_the_cpp_bot_passes_conformance(kit: Path, account: bool) -> None:
    assert_passes_conformance(kit / "bot", account)


@KIT.mistakes("unknown option --turbo")
def test_the_cpp_bot_explains_a_mistake_in_one_line(kit: Path, args: list[str], status: int, message: str) -> None:
    assert_one_line_mistake(kit / "bot", args, status, message)


def test_the_cpp_bot_plays_a_dev_seats_next_match_with_again(kit: Path, tmp_path: Path) -> None:
    assert_plays_again([str(kit / "bot")], tmp_path, "[cpp-bot")
