"""docs/uecda.md's contest commands as a newcomer types them (free ports instead of 42485 and 8080): ``president
uecda serve`` and five ``president-bot ... --uecda`` clients, the match on the web page, the game log written."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from president_engine import Match
from president_harness.child_server import free_port
from president_harness.uecda.uecda_bridge import contest_rules, request_bytes
from president_harness.uecda.uecda_log import GameLog, replay_log, scenario_of
from president_sdk.bots import builtin_bot
from president_service.base.limits import Limits
from uecda_support import REFERENCE_LOG, EngineServer, engine_contest, engine_log, raw_contest, stubborn_client

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _wait_for(path: Path, pattern: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, path.read_text() if path.exists() else "")  # a log: once its first game ends
        if found:
            return found
        assert proc.poll() is None, path.read_text()
        time.sleep(0.1)
    raise AssertionError(f"{pattern!r} not in {path.read_text()!r}")


ADMIN = "uecda-cli-admin"


@contextlib.contextmanager
def our_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """``president serve`` with its web pages: its gRPC address and its web port."""
    port, http_port = free_port(18470), free_port(18480)
    out = tmp_path / "server.out"
    with out.open("wb") as sink:
        server = subprocess.Popen([str(BIN / "president"), "serve", "--db", str(tmp_path / "s.db"), "--port",
                                   str(port), "--http-port", str(http_port), "--admin-token", ADMIN],
                                  cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    try:
        _wait_for(out, "web pages on", server)
        yield f"127.0.0.1:{port}", http_port
    finally:
        server.terminate()
        server.wait(timeout=30)


def serve(tmp_path: Path, args: Sequence[str], levels: Sequence[str],
          while_playing: Callable[[str], None] | None = None, *, server: str = "") -> tuple[str, list[str]]:
    """``president uecda serve ARGS`` (a free port; on the engine, or on `server`) with a bridge B client of each
    level, connected in order; `while_playing` is given its output once the match has begun.  Its output and
    the clients'."""
    out = tmp_path / "serve.out"
    on = ["--server", server, "--admin-token", ADMIN] if server else []
    with out.open("wb") as sink:
        bridge = subprocess.Popen([str(BIN / "president"), "uecda", "serve", *args, *on, "--listen", "127.0.0.1:0"],
                                  cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    bots: list[subprocess.Popen[bytes]] = []
    try:
        port = _wait_for(out, rf"waiting for {len(levels)} contest clients? on 127\.0\.0\.1:(\d+)", bridge).group(1)
        for level in levels:
            bots.append(subprocess.Popen([str(BIN / "president-bot"), f"builtin:{level}", "--uecda",
                                          f"127.0.0.1:{port}"], cwd=tmp_path, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT))
            time.sleep(0.2)
        if while_playing is not None:
            while_playing(_wait_for(out, r"watch it: .+|played here on the engine", bridge).string)
        outputs = [bot.communicate(timeout=240)[0].decode() for bot in bots]
        assert bridge.wait(timeout=60) == 0, out.read_text()
    finally:
        for proc in [bridge, *bots]:
            if proc.poll() is None:
                proc.kill()
    assert all(bot.returncode == 0 for bot in bots), outputs
    assert not any("Traceback" in output for output in outputs), outputs
    return out.read_text(), outputs


def test_serve_five_clients_on_a_server_its_page_and_a_log(tmp_path: Path) -> None:
    """With --server: the match is that server's, its live page answers while the clients play."""
    with our_server(tmp_path) as (address, http_port):
        def page_answers(text: str) -> None:
            found = re.search(r"watch it: match ([0-9a-f]+) on ", text)
            assert found is not None, text
            with urllib.request.urlopen(f"http://localhost:{http_port}/matches/{found.group(1)}", timeout=10) as reply:
                assert reply.status == 200

        log = tmp_path / "game.log"
        text, outputs = serve(tmp_path, ["--games", "3", "--log", str(log), "--seed", "4"],
                              ("expert", "normal", "easy", "hard", "normal"), page_answers, server=address)
    _check_points_and_log(text, outputs, log)


def test_serve_five_clients_on_the_engine_a_log_and_a_replay(tmp_path: Path) -> None:
    """Without --server: the match is played in the command's process; --replay writes its record and its
    HTML replay."""
    log = tmp_path / "game.log"
    text, outputs = serve(tmp_path, ["--games", "3", "--log", str(log), "--seed", "4", "--replay", "replays"],
                          ("expert", "normal", "easy", "hard", "normal"))
    assert "3 games, played here on the engine" in text
    _check_points_and_log(text, outputs, log)
    assert "replays: 1 match in replays (HTML and JSON)" in text, text
    assert (tmp_path / "replays" / "match.json").stat().st_size > 0
    assert "<html" in (tmp_path / "replays" / "match.html").read_text().lower()


def _check_points_and_log(text: str, outputs: Sequence[str], log: Path) -> None:
    for output in outputs:
        assert re.search(r"^uecda: \w+ was player \d; 3 games; \d+ points", output, re.M), output
    points = [int(p) for p in re.findall(r"^player \d \w+: (\d+) points$", text, re.M)]
    assert len(points) == 5 and sum(points) == 3 * 15
    assert f"game log in {log}" in text
    parsed = GameLog.parse(log.read_text())
    assert len(parsed.games) == 3 and list(parsed.games[-1].points) == points
    assert parsed.header["RULE_SEKIGAE_NUM"] == "5", "the contest's shipped configuration (issue 45)"
    assert parsed.header["TOTAL_POINT"] == " ".join(map(str, points))


def test_a_bridge_stopped_mid_match_leaves_every_finished_game_in_its_log(tmp_path: Path) -> None:
    """Issue 45: the log is written as games end.  The bridge is killed (SIGKILL: nothing of its own runs at its
    end) once three games are in its log; the log holds every game finished then, each replaying on the
    engine, and `uecda compare` reads it."""
    _killed_mid_match(tmp_path, [], r"the game log grows in")


def test_a_bridge_on_a_server_stopped_mid_match_leaves_every_finished_game_in_its_log(tmp_path: Path) -> None:
    """Issue 45: with --server too, each game's lines are written as it ends (from the server's record of the
    finished deals, GetReplay's finished_deals with the admin token), not from the replay at the match's end."""
    with our_server(tmp_path) as (address, _):
        _killed_mid_match(tmp_path, ["--server", address, "--admin-token", ADMIN], r"watch it: match [0-9a-f]+ on ")


def _killed_mid_match(tmp_path: Path, on: list[str], started: str) -> None:
    """A 1,000-game bridge killed once three games are in its log: every game finished then is in it."""
    log = tmp_path / "game.log"
    out = tmp_path / "serve.out"
    with out.open("wb") as sink:
        bridge = subprocess.Popen([str(BIN / "president"), "uecda", "serve", "--games", "1000", "--seed", "6",
                                   "--log", str(log), "--listen", "127.0.0.1:0", *on], cwd=tmp_path, stdout=sink,
                                  stderr=subprocess.STDOUT)
    bots: list[subprocess.Popen[bytes]] = []
    try:
        port = _wait_for(out, r"waiting for 5 contest clients on 127\.0\.0\.1:(\d+)", bridge).group(1)
        for _ in range(5):
            bots.append(subprocess.Popen([str(BIN / "president-bot"), "builtin:easy", "--uecda", f"127.0.0.1:{port}"],
                                         cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(0.2)
        _wait_for(out, started, bridge)
        _wait_for(log, r"%00002%points%", bridge)
        bridge.kill()
        bridge.wait(timeout=30)
    finally:
        for proc in [bridge, *bots]:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
    parsed = GameLog.parse(log.read_text())
    assert 3 <= len(parsed.games) < 1000 and "TOTAL_POINT" not in parsed.header
    assert replay_log(parsed, Match(contest_rules(1000), seed=int(parsed.header["RANDOM_SEED"]))) == []
    same = subprocess.run([str(BIN / "president"), "uecda", "compare", "game.log", "game.log"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert same.returncode == 0
    assert same.stdout == f"president uecda: {len(parsed.games)} games, the same game lines\n"


def test_serve_three_clients_and_two_builtin_seats(tmp_path: Path) -> None:
    """``--seat``: three contest clients are awaited, players 0-2; the built-in levels are players 3 and 4."""
    text, _ = serve(tmp_path, ["--games", "2", "--seat", "builtin:expert", "--seat", "builtin:hard", "--log",
                               "game.log"], ("easy",) * 3)
    names = re.findall(r"^player (\d) (\S+): \d+ points?$", text, re.M)
    assert names[3:] == [("3", "expert"), ("4", "hard")] and len(names) == 5
    log = GameLog.parse((tmp_path / "game.log").read_text())
    assert log.header["palyer_name"].split()[3:] == ["expert", "hard"]
    assert {p for game in log.games for p, _ in game.plays} == set(range(5))


def test_a_log_as_scenario_and_two_logs_compared(tmp_path: Path) -> None:
    """docs/uecda.md's ``--scenario reference.log --log ours.log`` and ``compare ours.log reference.log``: the
    same deals and seats again (under another seed) give the same game lines; a changed line is named."""
    serve(tmp_path, ["--games", "4", "--seed", "8", "--log", "reference.log"], ("easy",) * 5)
    text, _ = serve(tmp_path, ["--scenario", "reference.log", "--log", "ours.log", "--seed", "9"], ("easy",) * 5)
    assert "4 games, played here on the engine" in text
    same = subprocess.run([str(BIN / "president"), "uecda", "compare", "ours.log", "reference.log"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert same.returncode == 0 and same.stdout == "president uecda: 4 games, the same game lines\n"
    reference = (tmp_path / "reference.log").read_text()
    changed = re.sub(r"^%00002%result% (\d)(\d)", r"%00002%result% \2\1", reference, flags=re.M)
    (tmp_path / "changed.log").write_text(changed)
    differ = subprocess.run([str(BIN / "president"), "uecda", "compare", "ours.log", "changed.log"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert differ.returncode == 1 and differ.stdout.splitlines()[0].startswith("game 2 result: ")
    assert differ.stdout.splitlines()[-1] == "president uecda: 4 games, 1 line differ"


def test_a_reference_log_as_scenario_and_our_log_in_its_format(tmp_path: Path) -> None:
    """Issue 45: ``--scenario`` reads a log in the reference server's format (written by hand from section 7),
    and bridge A's own log has the reference's header keys in its order and its game lines byte for byte where
    the reference is deterministic (mibun, seat, palyer_cards with its end space, change_cards)."""
    (tmp_path / "reference.log").write_text(REFERENCE_LOG)
    serve(tmp_path, ["--scenario", "reference.log", "--games", "1", "--log", "ours.log"], ("easy",) * 5)
    ours, reference = (tmp_path / "ours.log").read_text().splitlines(), REFERENCE_LOG.splitlines()
    assert [line.split("%")[2] for line in ours if line.startswith("%-----%")] == [
        line.split("%")[2] for line in reference if line.startswith("%-----%")]
    for key in ("mibun", "seat", "palyer_cards", "change_cards"):
        tag = f"%00000%{key}% "
        assert [line for line in ours if line.startswith(tag)] == [line for line in reference if line.startswith(tag)]
    play = next(line for line in ours if line.startswith("%00000%play% "))
    assert play.startswith("%00000%play%  2D3EE ") and " 2D3EE " in play and not re.search(r"EE\d", play)


def test_a_log_of_another_server_replays_identically(tmp_path: Path) -> None:
    """Issue 45's strongest check (section 7) across two servers: the tests' EngineServer, sending the
    reference server's tables, writes a reference-format log of a match of five easy clients; bridge A
    plays its deals and seats again with five easy clients, and every game line is the same."""
    judge = EngineServer(deals=4, seed=31, reference=True)
    asyncio.run(engine_contest(judge, [builtin_bot("easy") for _ in range(5)]))
    assert judge.repeated_ranks > 0
    (tmp_path / "engine.log").write_text(engine_log(judge))
    assert "EE \n" in (tmp_path / "engine.log").read_text(), "a play line that ends with a space"
    serve(tmp_path, ["--scenario", "engine.log", "--log", "ours.log"], ("easy",) * 5)
    same = subprocess.run([str(BIN / "president"), "uecda", "compare", "ours.log", "engine.log"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert same.returncode == 0 and same.stdout == "president uecda: 4 games, the same game lines\n", same.stdout


def test_bad_arguments_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.log").write_text("not a log\n")
    (tmp_path / "twice.log").write_text("".join(f"%00000%{line}\n" for line in (
        "mibun% 22222", "seat% 01234", "palyer_cards% S3 S3 S5 S6 S7", "change_cards% NULL", "play% 0EE",
        "result% 01234", "points% 5 4 3 2 1")))
    for argv, expected in ((["--listen", "nowhere"], "HOST:PORT"), (["--games", "0"], "deals: at least 1"),
                           (["--seat", "builtin:nobody"], "no built-in bot"),
                           (["--seat", "hard"], "builtin:LEVEL or account:NAME"),
                           (["--seat", "builtin:easy"] * 5, "--seat: at most 4"),
                           (["--seat", "account:alice"], "an account's bot plays over a server's Session"),
                           (["--replay", "r", "--server", "127.0.0.1:9"], "--replay is without --server"),
                           (["--scenario", "missing.log"], "missing.log: No such file"),
                           (["--scenario", "bad.log"], "bad.log: line 1: not %tag%key% value"),
                           (["--scenario", "twice.log"], "twice.log: not a deal of the contest's rules")):
        done = subprocess.run([str(BIN / "president"), "uecda", "serve", *argv], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr
    taken = free_port(18490)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", taken))
        holder.listen()
        done = subprocess.run([str(BIN / "president"), "uecda", "serve", "--listen", f"127.0.0.1:{taken}"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "cannot listen on" in done.stderr and "Traceback" not in done.stderr


STUBBORN_GAMES = frozenset({1, 3, 4})
"""The games in which the stubborn clients (players 0, 2 and 4) loop on a refused table at 3 cards or fewer."""


def _stubborn_clients() -> list[Callable[[int], Any]]:
    """Five contest clients, players 0-4 in this order: the even ones stubborn in `STUBBORN_GAMES`, so that the
    two others go out and the 20-pass rule ends those games with three players holding cards."""
    return [functools.partial(lambda port, number: stubborn_client(
        port, f"c{number}", stubborn_games=STUBBORN_GAMES if number % 2 == 0 else frozenset()), number=number)
        for number in range(5)]


def serve_raw(tmp_path: Path, args: Sequence[str], clients: list[Callable[[int], Any]]) -> tuple[str, list[Any]]:
    """``president uecda serve ARGS`` (its own free ports) with the contest clients `clients` of the tests'
    support, connected in order: its output and the clients' results."""
    out = tmp_path / "serve-raw.out"
    with out.open("wb") as sink:
        server = subprocess.Popen([str(BIN / "president"), "uecda", "serve", *args, "--listen", "127.0.0.1:0"],
                                  cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    try:
        port = int(_wait_for(out, r"waiting for 5 contest clients on 127\.0\.0\.1:(\d+)", server).group(1))

        async def play() -> list[Any]:
            playing = []
            for client in clients:
                playing.append(asyncio.create_task(client(port)))
                await asyncio.sleep(0.1)
            return list(await asyncio.gather(*playing))

        results = asyncio.run(play())
        assert server.wait(timeout=120) == 0, out.read_text()
    finally:
        if server.poll() is None:
            server.kill()
    return out.read_text(), results


def test_a_log_with_20_pass_games_replays_identically_through_every_game(tmp_path: Path) -> None:
    """Issue 45: the games the 20-pass rule ended (UECDA 4.8: the players still holding cards ranked at random)
    are played again with the log's ranks (the scenario carries each game's result), so the games after them,
    whose exchange those ranks decide, are identical too.  The tests' EngineServer, sending the reference
    server's tables, writes the log with clients that loop on a refused malformed joker sequence, as the
    standard client does; bridge A, under another seed, plays its deals with the same clients."""
    judge = EngineServer(deals=6, seed=31, reference=True)
    asyncio.run(raw_contest(judge, _stubborn_clients()))
    assert judge.by_passes == len(STUBBORN_GAMES) and judge.refused >= 20 * len(STUBBORN_GAMES)
    assert all({*judge.places[game][:2]} == {1, 3} for game in STUBBORN_GAMES), "1 and 3 out, the others left"
    (tmp_path / "engine.log").write_text(engine_log(judge))
    text, results = serve_raw(tmp_path, ["--scenario", "engine.log", "--log", "ours.log", "--seed", "32"],
                              _stubborn_clients())
    assert [player for player, _ in results] == list(range(5))
    assert "refused (a pass): malformed" in text, "bridge A logs each refused table"
    same = subprocess.run([str(BIN / "president"), "uecda", "compare", "ours.log", "engine.log"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert same.returncode == 0 and same.stdout == "president uecda: 6 games, the same game lines\n", same.stdout


def thousand_games(tmp_path: Path) -> Path:
    """A reference-format log of 1,000 games (its first game's deal each time): a scenario of 336 KB or so."""
    lines = [line for line in REFERENCE_LOG.splitlines() if line.startswith("%-----%")]
    game = [line for line in REFERENCE_LOG.splitlines() if line.startswith("%00000%")]
    body = [line.replace("%00000%", f"%{number:05d}%") for number in range(1000) for line in game]
    path = tmp_path / "thousand.log"
    path.write_text("\n".join(lines[:-2] + body + lines[-2:]) + "\n")
    return path


def test_a_scenario_longer_than_a_servers_limit_is_refused_before_anyone_waits(tmp_path: Path) -> None:
    """Issue 45: a 1,000-game scenario is a request over a server's default 64 KiB; with --server it is refused
    in one line before the bridge listens, not after five clients are seated."""
    thousand_games(tmp_path)
    done = subprocess.run([str(BIN / "president"), "uecda", "serve", "--scenario", "thousand.log", "--server",
                           "127.0.0.1:9", "--admin-token", "t", "--listen", "127.0.0.1:0"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "waiting for" not in done.stdout
    assert "the match's request with 1000 scenario games takes up to" in done.stderr
    assert "start that server with a larger --max-message-bytes" in done.stderr and done.stderr.count("\n") == 1


def test_without_a_server_a_1000_game_scenario_is_taken(tmp_path: Path) -> None:
    """Issue 45: the match on the engine has no message limit: a 1,000-game scenario (over a server's default
    64 KiB as a request) is checked, and the bridge waits for its clients."""
    scenario = scenario_of(GameLog.parse(thousand_games(tmp_path).read_text()))
    assert request_bytes(contest_rules(1000), deals=scenario) > Limits().max_receive_bytes
    out = tmp_path / "serve.out"
    with out.open("wb") as sink:
        bridge = subprocess.Popen([str(BIN / "president"), "uecda", "serve", "--scenario", "thousand.log",
                                   "--listen", "127.0.0.1:0"], cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    try:
        _wait_for(out, r"waiting for 5 contest clients", bridge)
    finally:
        bridge.kill()
        bridge.wait(timeout=30)
