"""The jail runs the engine's build its host runs (issue 44): a bot plays in the real sandbox on the checkout's
compiled build and on the source."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from president_engine import build
from sandbox_support import require_sandbox

BOT = """
    import json
    import president_engine.match
    import president_sdk.bots.expert.search
    from president_engine import Rules, build
    from president_sdk import builtin_bot, play_local

    played = play_local([builtin_bot(name, seed=1) for name in ("expert", "hard", "normal", "easy")],
                        Rules.preset("cardverse", deals=1), seed=7)
    assert len(played.places) == 1
    print(json.dumps({"describe": build.describe(),
                      "engine": president_engine.match.__file__, "search": president_sdk.bots.expert.search.__file__}))
"""
HOST = """
import json, sys
from pathlib import Path
from president_harness.sandbox import Sandbox
ended = Sandbox(folder=Path(sys.argv[1]), slot=7, wall_s=120).run([sys.executable, "bot.py"], log=Path(sys.argv[2]))
print(json.dumps({"status": ended.status, "reason": ended.reason}))
"""


def host_runs_a_jailed_bot(tmp_path: Path, setting: str | None) -> dict[str, object]:
    """A host process with PRESIDENT_ENGINE_BUILD=`setting` (None: unset, the default) runs BOT in a jail; what
    the bot printed."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755, parents=True)
    (folder / "bot.py").write_text(textwrap.dedent(BOT))
    log = tmp_path / "jail.log"
    env = {k: v for k, v in os.environ.items() if k != build.ENVIRONMENT}
    if setting is not None:
        env[build.ENVIRONMENT] = setting
    host = subprocess.run([sys.executable, "-c", HOST, str(folder), str(log)], env=env, capture_output=True,
                          text=True, timeout=180)
    assert host.returncode == 0, host.stderr
    ended = json.loads(host.stdout)
    said = log.read_text(errors="replace")
    assert ended["status"] == 0, (ended, said)
    result: dict[str, object] = json.loads(said.strip().splitlines()[-1])
    return result


def test_a_jailed_bot_runs_on_the_checkouts_compiled_build(tmp_path: Path) -> None:
    require_sandbox()
    if not build.choose().compiled:
        message = f"no fresh compiled build ({build.choose().why}); make engine-compiled builds one"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    played = host_runs_a_jailed_bot(tmp_path, None)
    assert played["describe"] == "engine: the compiled build", played
    assert str(played["engine"]).endswith(".so") and str(played["search"]).endswith(".so"), played


def test_a_jailed_bot_runs_on_the_source_when_its_host_does(tmp_path: Path) -> None:
    require_sandbox()
    played = host_runs_a_jailed_bot(tmp_path, "source")
    assert str(played["describe"]).startswith("engine: the pure-Python source"), played
    assert str(played["engine"]).endswith("match.py") and str(played["search"]).endswith("search.py"), played
