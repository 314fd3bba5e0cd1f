"""`president arena` in a subprocess: its web page, a leaderboard printed only when its order changes, a bot's own
standing line in `president-bot`'s terminal, and a stop on the first signal even with SIGINT ignored."""

from __future__ import annotations

import itertools
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from president_harness.child_server import ChildServer, ServerError
from process_support import stop_with_ctrl_c

BOT_LINE = re.compile(r"arena cardverse:4: rank (\d+) of (\d+), rating (-?\d+\.\d\d), mean place (\d\.\d\d)"
                      r" \[(\d\.\d\d), (\d\.\d\d)\] after (\d+) match(es)?( \(provisional\))?$")


class Output:
    """A child's stdout, line by line as it comes, each with the time it was read."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.seen: list[tuple[float, str]] = []
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.seen.append((time.monotonic(), line.rstrip("\n")))
            self._lines.put(line)

    def until(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._lines.get(timeout=0.2)
            except queue.Empty:
                assert self.proc.poll() is None, self.text() + (self.proc.stderr.read() if self.proc.stderr else "")
                continue
            found = re.search(pattern, line)
            if found:
                return found
        raise AssertionError(f"no {pattern!r} in:\n{self.text()}")

    def text(self) -> str:
        return "\n".join(line for _, line in self.seen)


def _boards(output: Output) -> list[tuple[float, list[str]]]:
    """Each leaderboard printed: when, and its accounts in order."""
    boards: list[tuple[float, list[str]]] = []
    for at, line in output.seen:
        if line.startswith("leaderboard cardverse:4:"):
            boards.append((at, []))
        elif boards and (row := re.match(r"^\s+\d+\s+(\S+)\s+rating", line)):
            boards[-1][1].append(row.group(1))
    return boards


def test_the_arena_serves_its_leaderboard_on_the_web_prints_it_on_new_orders_and_tells_the_bot_its_rank(
        tmp_path: Path) -> None:
    every = 1.0
    arena = subprocess.Popen([sys.executable, "-m", "president_harness", "arena", "--port", "0", "--http-port", "0",
                              "--db", str(tmp_path / "arena.db"), "--every", str(every)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    bot: subprocess.Popen[str] | None = None
    try:
        out = Output(arena)
        web = out.until(r"web pages on (http://\S+/) \(the leaderboard", 60).group(1)
        joined = out.until(r"--server (\S+) --account-token (\S+) --arena", 30)
        with urllib.request.urlopen(web, timeout=10) as page:
            assert page.status == 200 and "text/html" in page.headers["Content-Type"]
        bot = subprocess.Popen([sys.executable, "-m", "president_sdk.bot_cli", "builtin:normal", "--server",
                                joined.group(1), "--account-token", joined.group(2), "--arena", "--max-matches", "2",
                                "-q"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        mine = Output(bot)
        lines = [mine.until(BOT_LINE.pattern, 120) for _ in range(3)]
        counts = [int(line.group(7)) for line in lines]
        assert counts == sorted(set(counts)) and counts[0] >= 1  # one line per rated match, as it is counted
        # -q: one line a match, its standing on it (not a second line)
        assert all(line.startswith(("match ", "CHECK_")) for _, line in mine.seen), mine.text()
        for line in lines:
            rank, of, low, mean, high = int(line.group(1)), int(line.group(2)), *map(float, line.group(5, 4, 6))
            assert 1 <= rank <= of and 1 <= low < high <= 4 and low <= mean <= high
        with urllib.request.urlopen(web + "api/leaderboards", timeout=10) as answer:
            entries = json.load(answer)["leaderboards"][0]["entries"]
        ratings = [entry.get("ordinal", 0.0) for entry in entries]
        assert ratings == sorted(ratings, reverse=True) and "newcomer" in {e["account"] for e in entries}
        _play_against(web, "newcomer")
        time.sleep(2 * every)  # a few more looks at the leaderboard
    finally:
        if bot is not None:
            stop_with_ctrl_c(bot)
        stop_with_ctrl_c(arena)
    boards = _boards(out)
    assert boards and all(order for _, order in boards)
    for (before, shown), (after, then) in itertools.pairwise(boards):
        assert then != shown  # a leaderboard is printed again only when its order changed
        assert after - before >= 0.8 * every  # and at most every --every seconds
    assert arena.returncode == 0 and "newcomer" in boards[-1][1]


def _play_against(web: str, account: str) -> None:
    """The arena's web pages let a person start a match against `account` (its server runs --human-seats): the
    person's seat is at a table with the bot and two house bots."""
    with urllib.request.urlopen(web + "api/leaderboards", timeout=10) as answer:
        listed = json.load(answer)
    board = listed["leaderboards"][0]
    assert listed["human_seats"]
    asked = urllib.request.Request(web + "api/play-against", method="POST", data=json.dumps(
        {"account": account, "preset": board["preset"], "players": board["players"]}).encode())
    with urllib.request.urlopen(asked, timeout=10) as answer:
        made = json.load(answer)
    seat = urllib.request.Request(web + "api/seat", headers={"Authorization": f"Bearer {made['token']}"})
    with urllib.request.urlopen(seat, timeout=10) as answer:
        view = json.load(answer)
    assert view["match_id"] == made["match_id"] and view["names"][view["player"]] == "you"
    assert account in view["names"] and sum(n.startswith("house-") for n in view["names"]) == board["players"] - 2


def test_an_arena_with_sigint_ignored_stops_on_the_first_ctrl_c_and_restarts_nothing(tmp_path: Path) -> None:
    """As `trap '' INT; president arena` leaves it: the terminal's Ctrl-C reaches the arena's whole process group,
    the server stops on it, and the arena must stop too rather than start the server again."""
    arena = subprocess.Popen(["sh", "-c", 'trap "" INT; exec "$@"', "sh", sys.executable, "-m", "president_harness",
                              "arena", "--port", "0", "--http-port", "0", "--db", str(tmp_path / "arena.db")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                             start_new_session=True)
    try:
        Output(arena).until(r"Ctrl-C stops the arena", 60)
        time.sleep(1)  # its house bots connected: the arena as it runs, not half made
        os.killpg(arena.pid, signal.SIGINT)
        arena.wait(20)
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait()
    assert arena.stderr is not None
    err = arena.stderr.read()
    assert arena.returncode == 0 and "starting it again" not in err and "Traceback" not in err, err


def test_a_server_stopped_by_a_signal_is_not_started_again(tmp_path: Path) -> None:
    with ChildServer(tmp_path / "server.db") as server:
        assert server._proc is not None
        server._proc.send_signal(signal.SIGTERM)
        server._proc.wait(20)
        with pytest.raises(ServerError, match="was stopped") as stopped:
            server.keep_alive()
        assert server.restarts == 0 and "ladder" not in str(stopped.value)
