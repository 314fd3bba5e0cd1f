"""The jail runs the engine's build its host runs, on `pip install` of the distributions too (issue 44): the wheels
of the engine (its modules compiled by mypyc), protocol, SDK, service and harness installed into
a new virtual environment, whose harness jails a bot that plays a match on the wheel's compiled modules."""

from __future__ import annotations

import json
import sysconfig
import textwrap
from pathlib import Path

import pytest
from sandbox_support import require_sandbox
from wheel_support import build_wheel, install, missing_toolchain, run_installed

pytestmark = pytest.mark.xdist_group("engine-builds")

DISTRIBUTIONS = ("engine", "protocol", "sdk", "service", "harness")
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
BOT = """
    import json, sys
    import president_sdk.bots.expert.search
    from president_engine import Rules, compiled
    from president_sdk import builtin_bot, play_local

    played = play_local([builtin_bot(name, seed=1) for name in ("expert", "hard", "normal", "easy")],
                        Rules.preset("cardverse", deals=1), seed=7)
    assert len(played.places) == 1
    print(json.dumps({"describe": compiled.describe(), "search": president_sdk.bots.expert.search.__file__,
                      "engine": {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())
                                 if name.startswith("president_engine.")}}))
"""
HOST = """
import json, sys
from pathlib import Path
from president_engine import compiled
from president_harness.hosting.sandbox import Sandbox
ended = Sandbox(folder=Path(sys.argv[1]), slot=8, wall_s=120).run([sys.executable, "bot.py"], log=Path(sys.argv[2]))
print(json.dumps({"status": ended.status, "reason": ended.reason, "host": compiled.describe()}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The five distributions' wheels, each built once as pip builds it here (the engine's and the SDK's compiled),
    installed with their dependencies into a new virtual environment; its Python."""
    require_sandbox()
    missing = missing_toolchain()
    if missing is not None:
        pytest.skip(f"needs a C compiler and the Python headers ({missing}): the wheels' compiled builds")
    work = tmp_path_factory.mktemp("wheels")
    wheels = [build_wheel(project, work / "wheels")[0] for project in DISTRIBUTIONS]
    return install(work / "venv", wheels, dependencies_of="president-harness")


def test_a_jailed_bot_runs_on_the_installed_wheels_compiled_build(installed: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    (folder / "bot.py").write_text(textwrap.dedent(BOT))
    log = tmp_path / "jail.log"
    ended = json.loads(run_installed(installed, HOST, str(folder), str(log))[-1])
    said = log.read_text(errors="replace")
    assert ended["status"] == 0, (ended, said)
    assert ended["host"] == "engine: the compiled build", ended
    played = json.loads(said.strip().splitlines()[-1])
    assert played["describe"] == "engine: the compiled build", played
    [site] = (installed.parents[1] / "lib").glob("python*/site-packages")
    compiled = site / "president_engine"
    engine: dict[str, str | None] = played["engine"]
    assert "president_engine.match" in engine, engine
    for name, loaded in engine.items():  # every module the wheel compiled was loaded from its .so
        so = site.joinpath(*name.split(".")).with_suffix(SUFFIX)
        if so.exists():
            assert loaded == str(so), (name, loaded, so)
    assert engine["president_engine.match"] == str(compiled / f"match{SUFFIX}"), engine
    assert played["search"] == str(site / "president_sdk" / "bots" / "expert" / f"search{SUFFIX}"), played
