"""Ladders over Sessions: bots connected once for many matches, results independent of the transport, a crashed
Session bot restarted with its matches played on, a bot that cannot start stopping the ladder, slots for a bot
that plays one match at a time, and the ladder's own server restarted under running matches."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from ladder_support import builtin_config, in_process
from president_harness.child_server import ChildServer
from president_harness.cli.president_cli import main
from president_harness.ladder.config import BotSpec, ConfigError, LadderConfig, parse
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.ladder_cli import OWN_SERVER_OPTIONS
from president_harness.ladder.ladder_store import LadderStore
from president_harness.ladder.over_server import OverServer

PYTHON = sys.executable
CRASHING_BOT = '''
"""Plays the easy level's moves; the first time it runs with a file 'crash-once' beside it, it exits after five
decisions (with status 1) and deletes the file."""
import os
from president_sdk import Bot, builtin_bot

class Crashing(Bot):
    made = 0

    def play(self, obs):
        Crashing.made += 1
        if Crashing.made >= 5 and os.path.exists("crash-once"):
            os.remove("crash-once")
            os._exit(1)
        return builtin_bot("easy").play(obs)
'''


def over_server(config: LadderConfig, server: ChildServer) -> OverServer:
    return OverServer(server=server.address, admin_token=server.admin_token, preset=config.preset,
                      rules=config.rules, clock=config.clock, bots={b.name: b for b in config.bots},
                      timeout_s=config.match_timeout_s, base=config.base, runs=config.runs,
                      ladder=f"{config.name}@{config.db}", parallel=config.auto_parallel())


def places(config: LadderConfig) -> list[tuple[int, tuple[tuple[int, ...], ...]]]:
    store = LadderStore(config.db, config.fingerprint())
    try:
        return [(o.index, o.places) for o in store.outcomes()]
    finally:
        store.close()


def normal_as(command: str) -> dict[str, Any]:
    return {"name": "normal", "command": [PYTHON, "-m", "president_sdk.bot_cli", "builtin:normal", "--server",
                                          "{server}", command, "{" + command.removeprefix("--").replace("-", "_")
                                          + "}", "--quiet"]}


def test_results_do_not_depend_on_how_matches_travel(tmp_path: Path) -> None:
    """The same ladder in-process, over the server with built-in levels on Sessions, with one bot a command run
    once per seat and with it a command run once on a Session: the same finishing orders, match by match."""
    levels = [{"builtin": "random"}, {"builtin": "easy"}, {"builtin": "hard"}]
    variants: dict[str, list[dict[str, Any]]] = {
        "inprocess": [*levels, {"builtin": "normal"}], "sessions": [*levels, {"builtin": "normal"}],
        "per-seat": [*levels, normal_as("--token")], "session-command": [*levels, normal_as("--account-token")]}
    results = {}
    for name, bots in variants.items():
        config = parse({"name": name, "players": 4, "matches": 24, "seed": 11, "db": f"{name}/ladder.db",
                        "rules": {"deals": 2}, "bots": bots}, base=tmp_path)
        if name == "inprocess":
            run_ladder(config, in_process(config))
        else:
            with ChildServer(tmp_path / name / "server.db", OWN_SERVER_OPTIONS) as server:
                summary = run_ladder(config, over_server(config, server), server_cpu=server.cpu_seconds)
            assert summary.complete and not summary.misbehaved
            speed = summary.speed
            assert speed is not None and speed.matches == 24 and speed.moves > 24 * 20
            assert speed.server_cpu_s is not None and speed.server_cpu_s > 0
        results[name] = places(config)
    assert len(results["inprocess"]) == 24
    assert results["sessions"] == results["inprocess"]
    assert results["per-seat"] == results["inprocess"]
    assert results["session-command"] == results["inprocess"]
    session_logs = sorted(p.name for p in (tmp_path / "session-command" / "ladder-matches" / "bots").iterdir())
    assert len(session_logs) == 2 and session_logs[0].endswith(".normal.stderr")  # one process for 24 matches
    stdout = (tmp_path / "session-command" / "ladder-matches" / "bots" / session_logs[1]).read_text()
    lines = stdout.splitlines()
    assert sum(line.startswith("match ") for line in lines) == 24 and "24 matches finished" in lines[-1]


def test_a_crashed_session_bot_is_restarted_its_matches_play_on_and_the_crash_is_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "crashing_bot.py").write_text(CRASHING_BOT)
    (tmp_path / "crash-once").touch()
    (tmp_path / "ladder.toml").write_text(f"""
name = "crash"
players = 4
matches = 24
seed = 3
db = "out/ladder.db"
parallel = 4
[rules]
deals = 1
[clock]
move_ms = 400
bank_ms = 0
strikes = 0
[[bots]]
builtin = "easy"
[[bots]]
builtin = "hard"
[[bots]]
builtin = "random"
[[bots]]
name = "crashing"
command = ["{PYTHON}", "-m", "president_sdk.bot_cli", "crashing_bot.py", "--server", "{{server}}",
           "--account-token", "{{account_token}}", "--quiet"]
""")
    assert main(["ladder", str(tmp_path / "ladder.toml"), "--strict"]) == 4
    captured = capsys.readouterr()
    assert "crashing misbehaved" in captured.err
    data = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert data["complete"] and data["counted"] == 24
    faults = {f["name"]: f for f in data["faults"]}
    assert faults["crashing"]["crashes"] == 1 and faults["easy"]["crashes"] == 0
    assert not (tmp_path / "crash-once").exists()
    stderr = next((tmp_path / "out" / "ladder-matches" / "bots").glob("*.crashing.stderr")).read_text()
    assert "Traceback" not in stderr


def test_a_session_bot_that_cannot_start_stops_the_ladder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ladder.toml").write_text(f"""
name = "broken"
players = 3
matches = 6
db = "ladder.db"
[[bots]]
builtin = "easy"
[[bots]]
builtin = "hard"
[[bots]]
name = "broken"
command = ["{PYTHON}", "-c", "import sys; print('no luck', file=sys.stderr); sys.exit(3)", "{{account_token}}"]
""")
    started = time.monotonic()
    assert main(["ladder", str(tmp_path / "ladder.toml")]) == 3
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("president ladder: broken exited 3 times within 5 s of starting")
    assert "status 3: no luck" in err and err.endswith("Run the ladder again to resume.")
    assert time.monotonic() - started < 60


def test_a_bot_that_plays_one_match_at_a_time_gets_a_process_per_slot(tmp_path: Path) -> None:
    one_at_a_time = {**normal_as("--account-token"), "concurrent": False}
    config = parse({"name": "slots", "players": 4, "matches": 24, "seed": 5, "db": "ladder.db", "parallel": 3,
                    "bots": [{"builtin": "random"}, {"builtin": "easy"}, {"builtin": "hard"}, one_at_a_time]},
                   base=tmp_path)
    with ChildServer(tmp_path / "server.db", OWN_SERVER_OPTIONS) as server:
        summary = run_ladder(config, over_server(config, server))
    assert summary.complete
    outputs = sorted((tmp_path / "ladder-matches" / "bots").glob("*.stdout"))
    assert len(outputs) == 3
    finished = [line for path in outputs for line in path.read_text().splitlines() if line.startswith("match ")]
    assert len(finished) == 24


def test_session_placeholders_are_checked() -> None:
    def bots(command: list[str], **more: Any) -> list[dict[str, Any]]:
        return [{"name": "x", "command": command, **more}, {"builtin": "easy"}, {"builtin": "hard"}]

    with pytest.raises(ConfigError, match=r"\{seed\} is one match's") as error:
        parse({"players": 3, "matches": 3, "bots": bots(["b", "{account_token}", "{seed}"])}, base=Path("."))
    assert error.value.key == "bots[0].command"
    with pytest.raises(ConfigError, match="only for a command given") as error:
        parse({"players": 3, "matches": 3, "bots": bots(["b", "{token}"], concurrent=False)}, base=Path("."))
    assert error.value.key == "bots[0].concurrent"
    with pytest.raises(ConfigError, match="auto") as error:
        parse({"players": 3, "matches": 3, "parallel": "lots", "bots": bots(["b", "{token}"])}, base=Path("."))
    config = parse({"players": 3, "matches": 3, "bots": bots(["b", "{account_token}"])}, base=Path("."))
    assert config.parallel is None and config.auto_parallel() >= 8 and config.bots[0].session
    per_seat = parse({"players": 3, "matches": 3, "bots": bots(["b", "{token}"])}, base=Path("."))
    assert per_seat.auto_parallel() == (__import__("os").cpu_count() or 1) and not per_seat.bots[0].session
    assert BotSpec(name="e", builtin="easy").session


def test_the_ladders_server_restarted_under_running_matches_lets_them_finish(tmp_path: Path) -> None:
    config = replace(builtin_config(tmp_path, matches=48, parallel=8), match_timeout_s=120)
    with ChildServer(tmp_path / "server.db", OWN_SERVER_OPTIONS) as server:
        outcome: list[Any] = []

        def play() -> None:
            outcome.append(run_ladder(config, over_server(config, server), watchdog=server.keep_alive))

        runner = threading.Thread(target=play, daemon=True)
        runner.start()
        while not any(config.runs.glob("match-*/record.json")):
            time.sleep(0.05)
        assert server._proc is not None
        server._proc.kill()
        runner.join(240)
        assert server.restarts == 1
    summary = outcome[0]
    assert summary.complete and summary.counted == 48 and not summary.failed, (summary.counted, summary.failed)
    assert places(config) == places_in_process(tmp_path, config)


def places_in_process(tmp_path: Path, config: LadderConfig) -> list[tuple[int, tuple[tuple[int, ...], ...]]]:
    fresh = replace(config, db=tmp_path / "again" / "ladder.db")
    run_ladder(fresh, in_process(fresh))
    return places(fresh)
