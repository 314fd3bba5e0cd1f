"""The Java kit (examples/java) built from a clean copy with its one command, and its bot put through
`president conformance` in both modes.  Without the JDK, protoc's gRPC plugin or Debian's gRPC jars the tests skip
with one line, except in CI (env CI set), where a missing one is a failure: .ci/run installs them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kit_support import JAVA as KIT
from kit_support import (
    assert_one_line_mistake,
    assert_own_tests_pass,
    assert_passes_conformance,
    assert_plays_again,
    both_modes,
)

pytestmark = [KIT.skip_unless_ci, pytest.mark.xdist_group("java-kit")]  # one worker builds the kit once


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return KIT.build(tmp_path_factory)


def test_the_code_is_generated_from_the_proto_at_build_time(kit: Path) -> None:
    generated = kit / "build" / "gen" / "president" / "v1"
    assert {p.name for p in generated.glob("*.java")} == {"President.java", "PresidentServiceGrpc.java"}
    assert not KIT.generated_in_git("President*.java"), "generated code in git"
    assert os.access(kit / "bot", os.X_OK)


def test_the_kits_own_tests_pass(kit: Path) -> None:
    assert_own_tests_pass(kit)


@both_modes
def test_the_java_bot_passes_conformance(kit: Path, account: bool) -> None:
    assert_passes_conformance(kit / "bot", account)


@KIT.mistakes("unknown option --turbo")
def test_the_java_bot_explains_a_mistake_in_one_line(kit: Path, args: list[str], status: int, message: str) -> None:
    assert_one_line_mistake(kit / "bot", args, status, message)


def test_the_java_bot_plays_a_dev_seats_next_match_with_again(kit: Path, tmp_path: Path) -> None:
    assert_plays_again([str(kit / "bot")], tmp_path, "[java-bot")
