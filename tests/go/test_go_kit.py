"""The Go kit (examples/go) built from a clean copy with its one command, and its bot put through
`president conformance` in both modes.  Without the Go toolchain the tests skip with one line, except in CI (env
CI set), where a missing toolchain is a failure: .ci/run installs it."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit_support import GO as KIT
from kit_support import (
    assert_one_line_mistake,
    assert_own_tests_pass,
    assert_passes_conformance,
    assert_plays_again,
    both_modes,
)

pytestmark = [KIT.skip_unless_ci, pytest.mark.xdist_group("go-kit")]  # one worker builds the kit once


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return KIT.build(tmp_path_factory)


def test_the_code_is_generated_from_the_proto_at_build_time(kit: Path) -> None:
    generated = kit / "build" / "gopath" / "src" / "presidentpb" / "v1"
    assert {p.name for p in generated.glob("*.go")} == {"president.pb.go", "president_grpc.pb.go"}
    assert not KIT.generated_in_git("*.pb.go"), "generated code in git"
    assert (kit / "bot").is_file()


def test_the_kits_own_tests_pass(kit: Path) -> None:
    assert_own_tests_pass(kit)


@both_modes
def test_the_go_bot_passes_conformance(kit: Path, account: bool) -> None:
    assert_passes_conformance(kit / "bot", account)


@KIT.mistakes("flag provided but not defined: -turbo")
def test_the_go_bot_explains_a_mistake_in_one_line(kit: Path, args: list[str], status: int, message: str) -> None:
    assert_one_line_mistake(kit / "bot", args, status, message)


def test_the_go_bot_plays_a_dev_seats_next_match_with_again(kit: Path, tmp_path: Path) -> None:
    assert_plays_again([str(kit / "bot")], tmp_path, "[go-bot")
