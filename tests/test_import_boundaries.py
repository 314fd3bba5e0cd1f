"""The house's arrows run one way: each room imports only the rooms below it (README, docs/architecture.md).

    engine  <-  protocol  <-  sdk
                          <-  service
    harness -> sdk, service, protocol, engine
    learn   -> sdk, engine

Every import in every source file counts, including imports inside functions
and under TYPE_CHECKING.  Besides our own rooms, each room may use only the
standard library and the third-party packages named here.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ROOMS: dict[str, tuple[str, set[str]]] = {
    # package: (source folder, what it may import besides the standard library and itself)
    "president_engine": ("engine/src", set()),
    "president_protocol": ("protocol/src", {"president_engine", "google", "grpc", "grpc_status"}),
    "president_sdk": ("sdk/src", {"president_engine", "president_protocol", "google", "grpc", "grpc_status"}),
    "president_service": ("service/src", {"president_engine", "president_protocol", "google", "grpc",
                                          "grpc_health", "grpc_reflection", "grpc_status", "openskill",
                                          "aiohttp", "aiohttp_sse"}),
    "president_harness": ("harness/src", {"president_engine", "president_protocol", "president_sdk",
                                          "president_service", "google", "grpc", "grpc_status", "openskill",
                                          "ray"}),
    "president_learn": ("learn/src", {"president_engine", "president_sdk", "numpy", "gymnasium", "pettingzoo",
                                      "pyspiel"}),
}


def imported_modules(source: str) -> set[str]:
    """The top-level names of every module `source` imports (absolute imports only)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def crossings(package: str, folder: Path, allowed: set[str]) -> list[str]:
    """'file: module' for every import in `folder` that its room may not make."""
    ok = allowed | {package, "__future__"} | set(sys.stdlib_module_names)
    out = []
    for path in sorted(folder.rglob("*.py")):
        for module in sorted(imported_modules(path.read_text(encoding="utf-8")) - ok):
            out.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: imports {module}")
    return out


@pytest.mark.parametrize("package", sorted(ROOMS))
def test_a_room_imports_only_the_rooms_below_it(package: str) -> None:
    folder, allowed = ROOMS[package]
    assert (ROOT / folder / package).is_dir(), f"{folder}/{package} is missing"
    assert crossings(package, ROOT / folder / package, allowed) == []


def test_every_source_file_is_in_a_room() -> None:
    """No Python package outside the six rooms (tests, benchmarks, tools and examples aside)."""
    rooms = {ROOT / folder / package for package, (folder, _) in ROOMS.items()}
    stray = [p for p in ROOT.glob("*/src/*") if p.is_dir() and not p.name.endswith(".egg-info") and p not in rooms]
    assert stray == []


def test_a_crossing_is_caught(tmp_path: Path) -> None:
    """The checker itself: an SDK module importing the server, even lazily, is reported."""
    package = tmp_path / "president_sdk"
    package.mkdir()
    (package / "fine.py").write_text("import json\nfrom president_engine import Match\n")
    (package / "bad.py").write_text("def f():\n    from president_service.play.registry import Registry\n")
    assert crossings("president_sdk", package, ROOMS["president_sdk"][1]) == [
        f"{package / 'bad.py'}: imports president_service"]
