"""A one-RPC ``president`` command loads neither the server nor the engine nor the bots (issue 44: each cost
about 1.2 s of CPU importing them; `make bench-cli` measures the CPU, this keeps the imports from creeping back),
and the option lists that are now read late still show in the help and the errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from president_engine import PRESETS
from president_harness.cli.cli_names import BUILTIN_LEVELS, PRESET_NAMES
from president_harness.cli.president_cli import main
from president_sdk.bots import BUILTIN_BOTS

ONE_RPC = (
    ["account", "list"],
    ["account", "create", "ada", "--owner", "me"],
    ["versions", "--server", "localhost:1"],
    ["build-log", "v1", "--server", "localhost:1"],
    ["bot-output", "v1", "--server", "localhost:1"],
    ["tournament", "status", "t1"],
    ["tournament", "list"],
    ["tournament", "start", "t1"],
    ["tournament", "export", "t1", "--as", "json"],
)
HEAVY = ("president_engine", "president_sdk", "openskill", "ray", "rich", "aiohttp", "numpy", "president_service")
LIGHT_SERVICE = {"president_service", "president_service.server.serve_cli", "president_service.league.arena_settings",
                 "president_service.play.clock", "president_service.base.limits",
                 # their rooms' packages, each a docstring alone
                 "president_service.server", "president_service.league", "president_service.play",
                 "president_service.base"}
"""What `president serve`'s options read (its defaults); the server itself is loaded only to serve."""

_LOADED = """
import json, sys
from president_harness.cli.president_cli import _parser
_parser().parse_args(sys.argv[1:])
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize("argv", ONE_RPC, ids=" ".join)
def test_a_one_rpc_command_loads_no_heavy_module(argv: list[str]) -> None:
    loaded = json.loads(subprocess.run([sys.executable, "-c", _LOADED, *argv], check=True, capture_output=True,
                                       text=True).stdout)
    heavy = [name for name in loaded if name.split(".")[0] in HEAVY and name not in LIGHT_SERVICE]
    assert not heavy, f"president {' '.join(argv)} loads {heavy[:8]}"


def test_the_late_option_lists_are_the_engines_and_the_bots() -> None:
    assert list(PRESET_NAMES) == list(PRESETS) and list(BUILTIN_LEVELS) == list(BUILTIN_BOTS)
    assert "normal" in BUILTIN_LEVELS and "nobody" not in BUILTIN_LEVELS and str(PRESET_NAMES).count(", ") == 3


def test_the_help_and_the_errors_still_list_the_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["house", "--help"])
    assert done.value.code == 0 and ", ".join(BUILTIN_BOTS) in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit) as done:
        main(["tournament", "create", "x", "--preset", "nope"])
    error = capsys.readouterr().err
    assert done.value.code == 2 and "invalid choice: 'nope'" in error and all(p in error for p in PRESETS)
    with pytest.raises(SystemExit) as done:
        main(["arena", "--queue", "nope:4"])
    assert done.value.code == 2 and f"(presets: {', '.join(PRESETS)})" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["conformance", "--help"])
    assert done.value.code == 0 and ", ".join(PRESETS) in " ".join(capsys.readouterr().out.split())
