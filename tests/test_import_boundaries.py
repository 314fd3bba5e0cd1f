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


def imported_modules(source: str, depth: int = 1) -> set[str]:
    """The first `depth` dotted names of every module `source` imports (absolute imports only)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(".".join(alias.name.split(".")[:depth]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(".".join(node.module.split(".")[:depth]))
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


HARNESS = ROOT / "harness" / "src" / "president_harness"


def cli_importers(package: Path) -> list[str]:
    """Every harness file outside `cli/` (and `__main__.py`, which runs it) that imports `president_harness.cli`."""
    return [f"{path.relative_to(package)}" for path in sorted(package.rglob("*.py"))
            if path.parent != package / "cli" and path != package / "__main__.py"
            and "president_harness.cli" in imported_modules(path.read_text(encoding="utf-8"), depth=2)]


def test_the_cli_is_the_top_of_the_harness() -> None:
    """The commands import the harness's other rooms (hosting, uecda, demo, ladder, conformance), never back."""
    assert cli_importers(HARNESS) == []


def test_an_import_of_the_cli_from_below_is_caught(tmp_path: Path) -> None:
    package = tmp_path / "president_harness"
    (package / "cli").mkdir(parents=True)
    (package / "hosting").mkdir()
    (package / "cli" / "tool_cli.py").write_text("from president_harness.hosting.thing import x\n")
    (package / "hosting" / "thing.py").write_text("def f():\n    import president_harness.cli.tool_cli\n")
    assert cli_importers(package) == ["hosting/thing.py"]


SERVICE_ROOMS: dict[str, set[str]] = {
    # a room of president_service: the rooms it may import besides itself (each room only those below it)
    "base": set(),
    "play": {"base"},
    "hosting": {"base", "play"},
    "league": {"base", "play", "hosting"},
    "rpc": {"base", "play", "hosting", "league"},
    "web": {"base", "play", "hosting", "league", "rpc"},
    "server": {"base", "play", "hosting", "league", "rpc", "web"},
}
SERVICE = ROOT / "service/src/president_service"


def service_imports(source: str) -> set[str]:
    """The dotted names of every president_service module or package `source` imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("president_service."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (module := node.module or ""):
            found.update(f"{module}.{alias.name}" for alias in node.names if module.startswith("president_service"))
    return found


def service_crossings(folder: Path) -> list[str]:
    """'file: module' for every import by a room of `folder` (a president_service) of a room not below it."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        room = path.relative_to(folder).parts[0]
        if room not in SERVICE_ROOMS:
            continue
        for module in sorted(service_imports(path.read_text(encoding="utf-8"))):
            target = module.split(".")[1]
            if target != room and target not in SERVICE_ROOMS[room]:
                out.append(f"{path.relative_to(folder)}: imports {module}")
    return out


def service_circles(folder: Path) -> list[list[str]]:
    """Every import circle among the modules of `folder` (a president_service), TYPE_CHECKING imports too."""
    modules = {".".join(path.relative_to(folder.parent).with_suffix("").parts).removesuffix(".__init__"): path
               for path in folder.rglob("*.py")}
    graph = {name: sorted(m for m in service_imports(path.read_text(encoding="utf-8")) | {
                 m.rsplit(".", 1)[0] for m in service_imports(path.read_text(encoding="utf-8"))}
             if m in modules and m != name and not name.startswith(m + ".") and not m.startswith(name + "."))
             for name, path in modules.items()}
    circles: list[list[str]] = []
    done: set[str] = set()

    def walk(name: str, trail: list[str]) -> None:
        if name in trail:
            circles.append(trail[trail.index(name):])
            return
        if name in done:
            return
        for module in graph[name]:
            walk(module, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        walk(name, [])
    return circles


def test_every_service_module_is_in_a_room() -> None:
    """president_service's root holds its package files alone; every module sits in one of its rooms."""
    assert sorted(p.name for p in SERVICE.glob("*.py")) == ["__init__.py", "__main__.py"]
    assert sorted(p.name for p in SERVICE.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(SERVICE_ROOMS)


def test_a_service_room_imports_only_the_rooms_below_it() -> None:
    assert service_crossings(SERVICE) == []


def test_no_service_module_imports_itself_in_a_circle() -> None:
    assert service_circles(SERVICE) == []


def test_a_service_crossing_and_a_circle_are_caught(tmp_path: Path) -> None:
    """The checkers themselves: play importing the league (even lazily), and two modules importing each other."""
    package = tmp_path / "president_service"
    (package / "play").mkdir(parents=True)
    (package / "play" / "fine.py").write_text("from president_service.base.errors import Reason\n")
    (package / "play" / "bad.py").write_text("def f():\n    from president_service.league.arena import Arena\n")
    assert service_crossings(package) == ["play/bad.py: imports president_service.league.arena.Arena"]
    (package / "play" / "a.py").write_text("from president_service.play.b import x\n")
    (package / "play" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                           "    from president_service.play import a\n")
    assert service_circles(package) == [["president_service.play.a", "president_service.play.b"]]
