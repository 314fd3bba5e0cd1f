"""`pip install` of the SDK: a wheel carrying the expert's search compiled by mypyc and its C playout where a C
compiler is present, the Python search and playout alone where it is not (sdk/setup.py), each saying which;
seeded experts play the same matches on either as on this checkout, since the compiled search and the C playout
play their references' moves."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from president_engine import PRESETS
from wheel_support import ROOT, build_wheel, environment, install, missing_toolchain, run_installed

pytestmark = pytest.mark.xdist_group("engine-builds")

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
PLAYOUTS = 60
"""Playouts of each of the experts' decisions (no clock: a seeded expert repeats its decisions exactly)."""
PLAY = f"""
import hashlib, sys
from president_engine import Rules
from president_sdk import builtin_bot
from president_sdk.bots import ExpertBot
from president_sdk.bots.expert import rollout
from president_sdk.local import play_local
native = rollout._compiled()
print("C playout:", native[0].__module__ if native else None, sys.modules.get("president_sdk.bots.expert._playout"))
print("search:", *(getattr(sys.modules["president_sdk.bots.expert." + name], "__file__", None)
                   for name in ("rollout", "search", "worlds")))
for preset in sys.argv[1:]:
    rules = Rules.preset(preset, deals=1)
    bots = [ExpertBot(seed=3, budget=None, playouts={PLAYOUTS}),
            *(builtin_bot(("hard", "normal", "easy")[p % 3], seed=p) for p in range(1, rules.players))]
    played = play_local(bots, rules, seed=7)
    print(preset, hashlib.sha256(repr(played.match.events).encode()).hexdigest())
"""


def _played_here(*presets: str) -> list[str]:
    """The same matches played by this test's Python (the venv's compiled wheels, or the source)."""
    return run_installed(Path(sys.executable), PLAY, *presets)[2:]


def _search(line: str) -> list[str]:
    """Where rollout.py, search.py and worlds.py were loaded from, by their paths from site-packages."""
    return [path.split("site-packages/")[-1] for path in line.split()[1:]]


def _install(tmp_path: Path, **env: str) -> tuple[Path, str, Path]:
    """The SDK's wheel (its build under `env`) installed with the pure-Python engine's and the protocol's; (its
    Python, the SDK build's output, its wheel)."""
    wheels = tmp_path / "wheels"
    engine, _ = build_wheel("engine", wheels, CC="/nonexistent/cc")
    protocol, _ = build_wheel("protocol", wheels)
    sdk, output = build_wheel("sdk", wheels, **env)
    return install(tmp_path / "venv", [engine, protocol, sdk], locked_dependencies=True), output, sdk


def _notes(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("president-sdk:")]


@pytest.mark.skipif(missing_toolchain() is not None, reason="needs a C compiler and the Python headers")
def test_pip_install_of_the_sdk_compiles_the_experts_search_and_playout(tmp_path: Path) -> None:
    """The compiled search runs here on the pure-Python engine: it is compiled without the engine's types, for
    either build; its moves are the source's."""
    python, output, wheel = _install(tmp_path)
    assert _notes(output) == ["president-sdk: the expert's search compiled by mypyc, its playouts in C (_playout.c)"]
    assert not wheel.name.endswith("-none-any.whl")
    installed = run_installed(python, PLAY, *PRESETS)
    module, loaded = installed[0].split(" ", 3)[2:]
    assert module == "president_sdk.bots.expert._playout" and str(python.parents[1]) in loaded, installed[0]
    assert _search(installed[1]) == [f"president_sdk/bots/expert/{name}{SUFFIX}" for name in ("rollout", "search",
                                                                                               "worlds")]
    assert installed[2:] == _played_here(*PRESETS)
    reference = run_installed(python, PLAY, *PRESETS, PYTHONPATH=str(ROOT / "sdk" / "src"))
    assert reference[0] == "C playout: None None"
    assert [path.split("/sdk/src/")[-1] for path in reference[1].split()[1:]] == [
        f"president_sdk/bots/expert/{name}.py" for name in ("rollout", "search", "worlds")]
    assert reference[2:] == installed[2:]


def test_without_a_compiler_the_sdk_plays_out_in_python_and_says_so(tmp_path: Path) -> None:
    python, output, wheel = _install(tmp_path, CC="/nonexistent/cc")
    assert _notes(output) == ["president-sdk: the expert's search and playouts in Python (no C compiler"
                              " (/nonexistent/cc))"]
    assert wheel.name.endswith("-py3-none-any.whl")
    installed = run_installed(python, PLAY, "daifugo")
    assert installed[0] == "C playout: None None"
    assert _search(installed[1]) == [f"president_sdk/bots/expert/{name}.py" for name in ("rollout", "search", "worlds")]
    assert installed[2:] == _played_here("daifugo")


def test_an_install_of_the_sdk_alone_writes_a_local_matchs_html_replay(tmp_path: Path) -> None:
    """`president-bot --local --replay DIR` where the service is not installed: the replay page comes with the
    protocol's wheel (president_protocol.replay_page), so the one command writes the HTML replay beside the record."""
    wheels = tmp_path / "wheels"
    built = [build_wheel("engine", wheels, CC="/nonexistent/cc")[0], build_wheel("protocol", wheels)[0],
             build_wheel("sdk", wheels, CC="/nonexistent/cc")[0]]
    python = install(tmp_path / "venv", built, locked_dependencies=True)
    assert run_installed(python, "import importlib.util; print(importlib.util.find_spec('president_service'))") \
        == ["None"]
    replays = tmp_path / "replays"
    done = subprocess.run([str(python.parent / "president-bot"), "builtin:easy", "--local", "-q", "--deals", "1",
                           "--replay", str(replays)], env=environment(), capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    page = (replays / "match.html").read_text()
    assert '<script id="replay-data" type="application/json">' in page and "/assets/" not in page
    assert (replays / "match.json").is_file()
