"""The jail runs the engine's build its host runs (issue 44): a bot plays in the real sandbox on the venv's compiled
wheels (`make venv`) and on the source (engine/src and sdk/src first on the host's PYTHONPATH)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from president_engine.compiled import is_compiled
from sandbox_support import require_sandbox

ROOT = Path(__file__).resolve().parents[2]

BOT = """
    import json
    import president_engine.match
    import president_sdk.bots.expert.search
    from president_engine import Rules, compiled
    from president_sdk import builtin_bot, play_local

    played = play_local([builtin_bot(name, seed=1) for name in ("expert", "hard", "normal", "easy")],
                        Rules.preset("cardverse", deals=1), seed=7)
    assert len(played.places) == 1
    print(json.dumps({"describe": compiled.describe(),
                      "engine": president_engine.match.__file__, "search": president_sdk.bots.expert.search.__file__}))
"""
HOST = """
import json, sys
from pathlib import Path
from president_harness.hosting.sandbox import Sandbox
ended = Sandbox(folder=Path(sys.argv[1]), slot=7, wall_s=120).run([sys.executable, "bot.py"], log=Path(sys.argv[2]))
print(json.dumps({"status": ended.status, "reason": ended.reason}))
"""


def host_runs_a_jailed_bot(tmp_path: Path, source: bool) -> dict[str, object]:
    """A host process (on the checkout's source first on PYTHONPATH when `source`, else on the venv's default
    install) runs BOT in a jail; what the bot printed."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755, parents=True)
    (folder / "bot.py").write_text(textwrap.dedent(BOT))
    log = tmp_path / "jail.log"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if source:
        env["PYTHONPATH"] = os.pathsep.join(str(ROOT / p / "src") for p in ("engine", "sdk"))
    host = subprocess.run([sys.executable, "-c", HOST, str(folder), str(log)], env=env, capture_output=True,
                          text=True, timeout=180)
    assert host.returncode == 0, host.stderr
    ended = json.loads(host.stdout)
    said = log.read_text(errors="replace")
    assert ended["status"] == 0, (ended, said)
    result: dict[str, object] = json.loads(said.strip().splitlines()[-1])
    return result


def test_a_jailed_bot_runs_on_the_venvs_compiled_wheels(tmp_path: Path) -> None:
    require_sandbox()
    if not is_compiled():
        message = "no compiled wheels in the venv; make venv installs them where a C compiler is"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    played = host_runs_a_jailed_bot(tmp_path, source=False)
    assert played["describe"] == "engine: the compiled build", played
    assert str(played["engine"]).endswith(".so") and str(played["search"]).endswith(".so"), played
    assert str(played["engine"]).startswith(sys.prefix), played


def test_a_jailed_bot_runs_on_the_source_when_its_host_does(tmp_path: Path) -> None:
    require_sandbox()
    played = host_runs_a_jailed_bot(tmp_path, source=True)
    assert played["describe"] == f"engine: the pure-Python source ({ROOT / 'engine/src/president_engine'})", played
    assert played["engine"] == str(ROOT / "engine/src/president_engine/match.py"), played
    assert played["search"] == str(ROOT / "sdk/src/president_sdk/bots/expert/search.py"), played
