"""president-bot --local --matches: a bot's strength on duplicate boards in worker processes, and its replays."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from president_engine import MatchRecord, Rules
from president_engine.events import DealEnded
from president_engine.intervals import Interval
from president_sdk import evaluate
from president_sdk.bot_cli import main
from president_sdk.evaluate import EvalMatch, EvalResult, LevelSummary

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


EVALUATE = (".venv/bin/president-bot examples/python/first_bot.py --local --matches 8 --opponents random easy"
            " --workers 2 --replay replays")


def test_a_real_run_on_two_workers_prints_the_table_and_writes_replays(tmp_path: Path) -> None:
    """sdk/README.md's command as written: 8 matches against each of two levels, 2 workers, replays (HTML and JSON)."""
    readme = (ROOT / "sdk" / "README.md").read_text()
    assert EVALUATE in readme
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / ".venv").symlink_to(BIN.parent)
    replays = tmp_path / "replays"
    done = subprocess.run(shlex.split(EVALUATE), cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["against", "boards", "matches"]
    interval = r"(\d+\.\d\d) \[(\d+\.\d\d), (\d+\.\d\d)\]"
    for line, level in zip(lines[1:3], ("random", "easy"), strict=True):
        found = re.fullmatch(rf"{level} +2 +8 +{interval} +{interval} +0", line)
        assert found, line
        mean, low, high = map(float, found.group(1, 2, 3))
        assert 1 <= low <= mean <= high <= 4
    assert lines[3].startswith("FirstBot")
    assert "replays: 16 matches in replays (HTML and JSON); open replays/random-board1-seat0.html in a browser" \
        in done.stderr

    index = json.loads((replays / "matches.json").read_text())
    assert len(index["matches"]) == 16
    boards: dict[tuple[str, int], list[tuple[int, MatchRecord]]] = {}
    for entry in index["matches"]:
        record = MatchRecord.loads((replays / entry["record"]).read_text())
        final = record.replay()  # the record replays, every action checked, to the result the run counted
        seat = entry["seat"]
        assert entry["names"][seat] == "FirstBot"
        assert final.scores[seat] == entry["points"]
        assert [e.places.index(seat) + 1 for e in final.events if isinstance(e, DealEnded)] == entry["places"]
        boards.setdefault((entry["level"], entry["board"]), []).append((seat, record))
    assert len(boards) == 4
    for seated in boards.values():  # duplicate: the bot in every seat of a board, every time dealt the same hands
        assert sorted(s for s, _ in seated) == [0, 1, 2, 3]
        assert len({tuple(d.hands for d in r.deals) for _, r in seated}) == 1

    entry = index["matches"][5]  # the one command wrote each match's HTML replay too
    assert sorted(p.name for p in replays.glob("*.html")) == sorted(e["html"] for e in index["matches"])
    page = (replays / entry["html"]).read_text()
    data = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert data is not None
    frames = json.loads(data.group(1))
    assert frames["names"] == entry["names"]
    record = MatchRecord.loads((replays / entry["record"]).read_text())
    actions = sum(len(deal.actions) for deal in record.deals)
    assert len(frames["frames"]) > actions  # a frame per action, and one per deal as dealt
    assert [int(t) for t in frames["result"]["totals"]] == record.replay().scores


def _result(level: str, board: int, rotation: int, places: tuple[int, ...], points: int) -> EvalResult:
    match = EvalMatch(bot="builtin:easy", level=level, board=board, rotation=rotation, seed=board, record=False,
                      rules=Rules.preset("cardverse", players=4, deals=len(places)), move_timeout=None)
    return EvalResult(match=match, places=places, points=points, faults=0, names=(), record="")


def test_intervals_match_a_hand_computation() -> None:
    """Three boards of four one-deal matches: per board the mean place and the mean points of its matches."""
    boards = [(1, 1, 2, 2), (2, 2, 2, 2), (3, 3, 2, 2)]  # board means 1.5, 2.0, 2.5
    points = {1: 4, 2: 3, 3: 2}  # cardverse, 4 players: 4 points for first down to 1 for last
    results = [_result("hard", b, r, (place,), points[place]) for b, places in enumerate(boards)
               for r, place in enumerate(places)]
    results.append(_result("hard", 3, 0, (4,), 1))  # an incomplete board does not count
    summary = evaluate.summarize(results, "hard")
    assert (summary.boards, summary.matches) == (3, 12)
    # mean 2.0, sample variance 0.25, n = 3 boards of m = 4 deals (N = 12), range [1, 4]:
    # s'^2 = (12 * 0.25 + 3^2 / (4 * 4)) / 13 = 3.5625 / 13; half = t(0.975, 2) * sqrt(s'^2 / 3)
    t_975_2 = 4.302652729749464  # Student's t table
    half = t_975_2 * math.sqrt(3.5625 / 13 / 3)
    assert summary.place.mean == pytest.approx(2.0)
    assert summary.place.low == 1.0  # 2.0 - 1.3004 is cut to the lowest place
    assert summary.place.high == pytest.approx(2.0 + half, abs=1e-6)
    assert summary.place.high == pytest.approx(3.3004, abs=1e-4)
    # points per match: board means 3.5, 3.0, 2.5, range [1, 4] for a one-deal match, 12 matches
    assert summary.points.mean == pytest.approx(3.0)
    assert summary.points.low == pytest.approx(3.0 - half, abs=1e-6)
    assert summary.points.high == 4.0


def _summary(level: str, low: float, high: float) -> LevelSummary:
    shown = Interval(mean=(low + high) / 2, low=low, high=high, n=5)
    return LevelSummary(level=level, players=4, boards=5, matches=20, place=shown, points=shown, faults=0)


def test_the_verdict_says_what_is_clear_and_what_is_not() -> None:
    ahead, behind, unclear = _summary("easy", 1.2, 2.1), _summary("expert", 2.7, 3.4), _summary("hard", 2.0, 3.0)
    assert evaluate.verdict("Mine", [ahead, behind]) == (
        "Mine finishes ahead of easy and finishes behind expert (95% confidence)")
    assert evaluate.verdict("Mine", [unclear]) == (
        "Mine: no clear difference from hard after 5 boards (the interval holds the middle place): play more matches")
    assert evaluate.verdict("Mine", [ahead, unclear]).startswith("Mine finishes ahead of easy (95% confidence); no")
    table = evaluate.table("Mine", [ahead])
    assert table.splitlines()[1].split()[:3] == ["easy", "5", "20"]


@pytest.mark.parametrize(("args", "words"), [
    (["--matches", "0"], "--matches must be at least 1"),
    (["--matches", "4", "--opponents", "grandmaster"], "no built-in bot 'grandmaster'"),
    (["--matches", "4", "--players", "4,5"], "one table size"),
    (["--matches", "4", "--workers", "0"], "--workers must be at least 1"),
])
def test_bad_evaluation_arguments_are_one_line(args: list[str], words: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["builtin:easy", "--local", "--replay", str(tmp_path / "r"), *args]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_in_process_evaluation_with_one_worker(capsys: pytest.CaptureFixture[str]) -> None:
    """--workers 1 plays in this process; a table of 3 counts boards of 3 rotations."""
    assert main(["builtin:easy", "--local", "--matches", "3", "--players", "3", "--opponents", "random",
                 "--workers", "1", "--deals", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:3] == ["random", "1", "3"]


def test_one_local_match_writes_its_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--local --replay without --matches: the one match's record, which replays to the points printed."""
    assert main([str(ROOT / "examples" / "python" / "first_bot.py"), "--local", "-q", "--replay", str(tmp_path)]) == 0
    points = int(re.match(r"FirstBot: (\d+) points?;", capsys.readouterr().out).group(1))  # type: ignore[union-attr]
    [entry] = json.loads((tmp_path / "matches.json").read_text())["matches"]
    assert entry["names"][0] == "FirstBot"
    assert MatchRecord.loads((tmp_path / entry["record"]).read_text()).replay().scores[0] == points


def test_a_bot_that_cannot_load_in_a_worker_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot whose constructor fails only after the first one: the worker's error, in a line, exit 1."""
    bot = tmp_path / "flaky.py"
    bot.write_text("import os\nfrom president_sdk import PASS, Bot\n\nclass Flaky(Bot):\n"
                   "    def __init__(self):\n"
                   "        super().__init__()\n"
                   "        if os.getpid() != int(os.environ['EVAL_PARENT']):\n"
                   "            raise RuntimeError('no model file here')\n"
                   "    def play(self, obs):\n        return PASS\n")
    monkeypatch.setenv("EVAL_PARENT", str(os.getpid()))
    assert main([str(bot), "--local", "--matches", "4", "--opponents", "random", "--workers", "2"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no model file here" in err[0]


def test_a_terminal_sees_the_progress_line() -> None:
    """On a terminal, one line counts the finished matches as they end; piped, nothing but the table."""
    import pty

    command = [str(BIN / "president-bot"), "builtin:easy", "--local", "--matches", "4", "--opponents", "random",
               "--workers", "2", "--deals", "1"]
    main_fd, terminal = pty.openpty()
    with subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal) as proc:
        os.close(terminal)
        shown = b""
        with contextlib.suppress(OSError):  # EIO once the command has ended and closed the terminal
            while chunk := os.read(main_fd, 4096):
                shown += chunk
        assert proc.wait(timeout=300) == 0
    os.close(main_fd)
    text = shown.decode()
    assert "\r1/4 matches (2 workers)" in text and "\r4/4 matches (2 workers)" in text
    piped = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    assert "matches (2 workers)" not in piped.stderr + piped.stdout
