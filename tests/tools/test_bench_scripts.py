"""The engine and bot benchmarks run as `make bench` runs them, on workloads small enough for a test.

Their figures are not checked (speed is never asserted in a test); what is
checked is that every table and line they promise is printed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench(script: str, *args: str, source: bool = False) -> subprocess.CompletedProcess[str]:
    """The benchmark script run to its end (`source`: on the pure-Python engine, whose profile names its files)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / p / "src") for p in ("engine", "sdk"))) if source \
        else None
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=env)


def test_engine_bench_prints_games_search_and_profile() -> None:
    done = _bench("engine_bench.py", "--seconds", "0.1", "--runs", "1", "--preset", "norwegian", source=True)
    assert done.returncode == 0, done.stderr
    assert "source (pure Python)" in done.stdout
    tables = 3 if "versus OpenSpiel (interleaved" in done.stdout else 2  # OpenSpiel: the learn extra, when installed
    norwegian = [line for line in done.stdout.splitlines() if line.startswith("norwegian")]
    assert len(norwegian) == tables
    profiled = _bench("engine_bench.py", "--profile", source=True)  # as docs/engine-speed.md shows it
    assert profiled.returncode == 0, profiled.stderr
    for preset in ("cardverse", "italian", "norwegian"):
        assert f"{preset}: 300 games" in profiled.stdout
    assert "legal_actions (match.py:" in profiled.stdout


def test_bots_bench_reports_every_step_and_the_experts_timing() -> None:
    done = _bench("bots_bench.py", "--preset", "italian", "--deals", "10", "--per-match", "1",
                  "--expert-boards", "1", "--expert-playouts", "4")
    assert done.returncode in (0, 1), done.stderr  # 1: a step is not significant on so few boards
    out = done.stdout
    for step in ("random -> easy", "easy -> normal", "normal -> hard", "hard -> expert"):
        assert step in out
    assert "italian: all five levels, 5 players" in out
    assert "hard -> expert, the presets at 4 players pooled" in out
    assert "decisions/s" in out and "ms per decision" in out


def test_expert_clock_bench_prints_both_loads_of_each_preset() -> None:
    done = _bench("expert_clock.py", "--runs", "1", "--decisions", "5", "--budget", "0.01", "--preset", "italian",
                  "--preset", "cardverse", source=True)
    assert done.returncode in (0, 1), done.stderr  # 1: a 99th percentile above the bar (so few, so short decisions)
    out = done.stdout
    assert "source (pure Python)" in out and "budget 10 ms of CPU time" in out
    rows = [line.split()[:2] for line in out.splitlines() if line.startswith(("cardverse", "italian"))]
    assert rows == [["italian", "unloaded"], ["italian", "busy"], ["cardverse", "unloaded"], ["cardverse", "busy"]]


def test_playout_bench_prints_both_playouts_of_each_preset() -> None:
    done = _bench("playout_bench.py", "--runs", "1", "--worlds", "5", "--preset", "italian", "--preset", "daifugo")
    assert done.returncode == 0, done.stderr
    assert "5 worlds a preset, medians of 1 runs" in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith(("italian", "daifugo"))]
    assert [row[0] for row in rows] == ["daifugo", "italian"] and all(row[-1].endswith("x") for row in rows)


def test_expert_worlds_bench_prints_the_reading_of_each_preset_and_the_oracles_lead() -> None:
    done = _bench("expert_worlds.py", "--matches", "2", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] in (["cardverse"], ["daifugo"],
                                                                                     ["italian"], ["norwegian"])]
    assert [row[0] for row in rows] == ["cardverse", "daifugo", "italian", "norwegian"]
    assert all(len(row) == 5 for row in rows)
    done = _bench("expert_worlds.py", "--oracle", "--boards", "2", "--playouts", "4", "--preset", "italian",
                  "--jobs", "1", "--setting", "CONFIDENCE=0.5")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()[1:]
    assert [" ".join(line.split("[")[0].split()[:-1]) for line in lines] == [
        f"italian {name}" for name in ("expert", "expert CONFIDENCE=0.5", "oracle")]  # five players: random too
    assert [("gain over the expert" in line) for line in lines] == [False, True, False]
    refused = _bench("expert_worlds.py", "--oracle", "--setting", "NOPE=1")
    assert refused.returncode == 2 and refused.stderr.splitlines()[-1].endswith(
        "--setting NOPE=1: 'NOPE' is not a numeric constant of president_sdk.bots.expert.search")


def test_sandbox_bench_prints_its_figures_beside_their_floors() -> None:
    from president_harness.hosting.sandbox import Sandbox
    if (problem := Sandbox(folder=Path()).check()) is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{problem}; .ci/run installs bubblewrap")
        pytest.skip(problem)
    done = _bench("sandbox_bench.py", "--runs", "1", "--deals", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" (")[0] for line in lines[:3]] == [
        "start per bot process", "memory per hosted bot", "a 1-deal match of four first bots, start to last exit"]
    assert all("sandbox" in line and "plain" in line for line in lines[:3]), lines
    assert lines[3].startswith("each bot's cores while it thought (") and len(lines) == 7, lines
    assert lines[4].startswith("  alone, the default (equal weights, no cap); the seats: "), lines
    assert lines[5].startswith("  beside a jail spinning 8 threads, the default (equal weights, no cap): the spinner"
                               " got "), lines
    assert lines[6].startswith("  beside a jail spinning 8 threads, every jail capped at "), lines
    for line in lines[4:]:
        seats = line.split("; the seats: ")[1].removesuffix(" cores").split(", ")
        assert len(seats) == 4 and all(0 < float(cores) <= (os.cpu_count() or 1) + 0.5 for cores in seats), line


def test_tournament_bench_prints_its_three_sides_and_the_ratios() -> None:
    done = _bench("tournament_bench.py", "--entrants", "8", "--rounds", "2", "--runs", "1", "--settle", "0.5")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" (")[0].split(":")[0] for line in lines] == [
        "machine", "tournament", "ladder", "bare matches", "tournament / ladder per match",
        "tournament / bare matches per match", "GetTournament of the finished event", "absent entrants at the"
        " tournament's tables"]
    sides = lines[1:4]
    assert all("16 matches" in line for line in sides), lines  # 2 rounds of 2 tables, 4 rotations each
    assert all("ms wall" in line and "ms CPU" in line for line in sides), lines
    assert all(re.search(r"wall [\d.]+x, server CPU [\d.]+x \(server CPU a move [\d.]+x\)$", line)
               for line in lines[4:6]), lines


def test_kits_bench_prints_the_go_kits_build_and_round_trip_beside_the_python_sdks() -> None:
    from kit_support import Kit
    go = Kit("go", "Go", "golang-go golang-google-grpc-dev protoc-gen-go-grpc golang-goprotobuf-dev protobuf-compiler",
             tools=("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"))
    if go.missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(go.missing)} missing in CI: .ci/run installs {go.packages}")
        pytest.skip(f"{', '.join(go.missing)} not installed: the Go kit needs {go.packages}")
    done = _bench("kits_bench.py", "--kits", "python,go", "--deals", "1", "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["move round trip", "python", "go"], lines
    assert re.match(r"python: build none; \d+ moves timed, median [\d.]+ ms, p90 [\d.]+ ms per move", lines[1])
    assert re.match(r"go: build [\d.]+ s; \d+ moves timed, median [\d.]+ ms, p90 [\d.]+ ms per move; Python SDK"
                    r" [\d.]+ ms, p90 [\d.]+ ms: [\d.]+x, p90 [\d.]+x$", lines[2]), lines


def test_flood_bench_prints_the_honest_round_trips_memory_and_the_flooders_answers() -> None:
    done = _bench("flood_bench.py", "--runs", "1", "--matches", "4", "--seconds", "1", "--settle", "0.5",
                  "--unary", "2", "--connections", "8")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("one account's flood beside 4 honest matches"), lines
    trips = r"p50 [\d.]+ / [\d.]+ / [\d.]+ ms, p99 [\d.]+ / [\d.]+ / [\d.]+ ms"
    assert re.match(rf"  run 1 \(\d+ s\): honest round trip before / during / after the flood: {trips}; server RSS"
                    r" \d+ / \d+ / \d+ MB$", lines[1]), lines
    answered = lines[2].removeprefix("    flooder: ")
    for answer in ("Session: MatchActs written, never read", "GetMatch: OK", "GetMatch: NOT_FOUND UNKNOWN_MATCH",
                   "Play: open", "Play: RESOURCE_EXHAUSTED TOO_MANY_STREAMS", "Spectate: open",
                   "second Session: welcomed"):
        assert answer in answered, lines[2]
    ends = [a for a in answered.split(", ") if a.startswith("Session: ") and "MatchActs written" not in a]
    assert len(ends) == 1 and "not ended" not in ends[0], lines[2]  # replaced (its status: whatever its write saw)
    assert re.match(rf"  median of 1 runs: honest round trip before / during / after: {trips}; during/before p50"
                    r" [\d.]+x, p99 [\d.]+x$", lines[3]), lines
    assert re.match(r"    server RSS before \d+ MB, during \(largest\) \d+ MB, after \d+ MB$", lines[4]), lines
    assert lines[5].startswith("    flooder answered: "), lines


def test_builtin_workers_bench_prints_one_loop_against_workers() -> None:
    done = _bench("builtin_workers_bench.py", "--runs", "1", "--matches", "1", "--parallel", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("four built-in experts on Sessions, 1 one-deal cardverse matches"), lines
    assert re.match(r"  run 1: one loop [\d.]+ s \([\d.]+ cores\); workers [\d.]+ s \([\d.]+ cores\); [\d.]+x$",
                    lines[1]), lines
    assert re.match(r"  median of 1 runs: one loop [\d.]+ s \([\d.]+ cores\), workers [\d.]+ s \([\d.]+ cores\):"
                    r" [\d.]+x the matches an hour$", lines[2]), lines


def test_uecda_bench_prints_games_a_second_and_the_experts_points() -> None:
    done = _bench("uecda_bench.py", "--runs", "1", "--games", "2", "--server-games", "2", "--expert-games", "2",
                  "--contest-games", "2", "--contest-levels", "hard")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    clients = ["five Python contest clients (bridge B's easy, on the bridge's loop)"]
    if shutil.which("cc"):  # the C clients are compiled where a compiler is
        clients.insert(0, "five C contest clients")
    for kind in clients:
        at = lines.index(f"bridge A on the engine (uecda serve without --server), {kind}, 2 games a run:")
        assert re.match(r"  run 1: [\d.]+ ms a game, \d+ us an action \(\d+ actions a game\); the bridge's process"
                        r" used [\d.]+ ms of CPU a game; load average [\d.]+ \(5 min [\d.]+\) on \d+ cores$",
                        lines[at + 1]), lines
        assert re.match(r"  median of 1 runs: [\d.]+ ms a game, [\d.]+x the reference server's 7 ms a game \(goal: at"
                        r" most 3x, 21 ms\); the process's CPU [\d.]+ ms a game$", lines[at + 2]), lines
    assert [line for line in lines if re.match(r"bridge A on a server of ours \(--server\), five C contest clients,"
                                               r" 2 games: \d+ ms a game, [\d.]+ ms an action", line)] \
        or not shutil.which("cc"), lines
    [expert] = [line for line in lines if line.startswith("the expert against four easy clients")]
    assert re.match(r"the expert against four easy clients, 2 games through bridge A: [\d.]+ points a game \(95%"
                    r" interval [-\d.]+ to [\d.]+; 3.00 is an equal share\); places 1-5: \d+ \d+ \d+ \d+ \d+$",
                    expert), lines
    lines = lines[lines.index(expert) + 1:]
    assert lines[0] == "bridge B against the reference server's tables, 2 games a match:", lines
    assert re.match(r"  builtin:hard: exit 0, 2 of 2 games reported, \d+ s \(\d+ ms a game\); the server sent \d+"
                    r" tables, player 0's \d+ with a repeated rank and \d+ tables with values in cells without"
                    r" meaning; \d+ warning lines$", lines[1]), lines
