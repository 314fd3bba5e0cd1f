"""`president conformance` against real bot programs: the Python SDK's first bot and the Node bot pass every case
in both modes; bots that break the contract on purpose fail with a line that says how."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from president_engine import PRESETS
from support import node_packages

ROOT = Path(__file__).resolve().parents[2]
PRESIDENT = Path(sys.executable).parent / "president"
FIRST_BOT = ("president-bot", "examples/python/first_bot.py:FirstBot", "--server", "{server}", "--quiet")
PLAY = ("--token", "{token}")
SESSION = ("--account-token", "{account_token}")
NODE = shutil.which("node")

BROKEN_BOT = '''
"""A Play-stream bot that breaks the contract on purpose: --illegal plays a joker it does not hold; without, it
plays the first legal action and exits when its stream fails instead of resuming."""
import argparse
import queue
import sys

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

parser = argparse.ArgumentParser()
parser.add_argument("--server")
parser.add_argument("--token")
parser.add_argument("--illegal", action="store_true")
args = parser.parse_args()
joker = pb.Action(play=pb.PlayAction(cards=[pb.Card(rank=pb.RANK_JOKER)]))
outbox = queue.Queue()
outbox.put(pb.PlayRequest(hello=pb.Hello()))
with grpc.insecure_channel(args.server) as channel:
    stream = pb_grpc.PresidentServiceStub(channel).Play(
        iter(outbox.get, None), metadata=(("authorization", f"Bearer {args.token}"),))
    try:
        for message in stream:
            if message.HasField("prompt"):
                action = joker if args.illegal else message.prompt.legal_actions[0]
                outbox.put(pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id, action=action)))
    except grpc.RpcError as exc:
        print(f"broken-bot: the stream failed: {exc.code().name}", file=sys.stderr)
        sys.exit(1)
    finally:
        outbox.put(None)
'''


def conformance(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PRESIDENT), "conformance", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, check=False)


def case_lines(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Each case's line by its name: 'PASS ...' or 'FAIL ...'."""
    found = re.findall(r"^(PASS|FAIL|SKIP)  ([^:]+): (.*)$", result.stdout, re.M)
    return {name: f"{verdict} {detail}" for verdict, name, detail in found}


def assert_every_case_passed(result: subprocess.CompletedProcess[str], *, session: bool) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    lines = case_lines(result)
    assert lines and all(line.startswith("PASS") for line in lines.values()), result.stdout
    assert re.search(rf"^{len(lines)} of {len(lines)} cases passed$", result.stdout, re.M), result.stdout
    for preset in PRESETS:
        for players in (3, 4, 5):
            assert f"{preset}, {players} players" in lines, result.stdout
    for name in ("a give-back in the exchange", "a Norwegian request", "wild cards with a declared rank",
                 "after a revolution", "a prompt with a 1.5 s deadline", "a rejected act and the retry",
                 "a dropped connection and the resume", "a refused token"):
        assert any(case.startswith(name) for case in lines), f"no case {name!r}:\n{result.stdout}"
    assert any(case.startswith("3 matches at once") for case in lines) == session, result.stdout
    end = "kept running after MatchOver" if session else "exited 0 after MatchOver"
    assert lines["cardverse, 4 players"].endswith(end)


@pytest.mark.slow
def test_the_python_first_bot_passes_over_the_play_stream() -> None:
    assert_every_case_passed(conformance("--", *FIRST_BOT, *PLAY), session=False)


@pytest.mark.slow
def test_the_python_first_bot_passes_over_a_session() -> None:
    assert_every_case_passed(conformance("--", *FIRST_BOT, *SESSION), session=True)


@pytest.fixture
def broken_bot(tmp_path: Path) -> Path:
    path = tmp_path / "broken_bot.py"
    path.write_text(BROKEN_BOT, encoding="utf-8")
    return path


def test_a_bot_that_answers_illegal_actions_fails_every_case_it_plays(broken_bot: Path) -> None:
    result = conformance("--preset", "cardverse", "--players", "4", "--", sys.executable, str(broken_bot),
                         "--server", "{server}", "--token", "{token}", "--illegal")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = case_lines(result)
    assert re.fullmatch(r"FAIL match c1-m1 \(player \d\): an illegal act for turn \d+: JK \(CARDS_NOT_HELD: .*\)",
                        lines["cardverse, 4 players"]), result.stdout
    assert [name for name, line in lines.items() if line.startswith("PASS")] == ["a refused token"], result.stdout
    assert re.search(rf"^1 of {len(lines)} cases passed, {len(lines) - 1} failed$", result.stdout, re.M)


def test_a_bot_that_never_reconnects_fails_the_resume_case(broken_bot: Path) -> None:
    result = conformance("--preset", "cardverse", "--players", "4", "--", sys.executable, str(broken_bot),
                         "--server", "{server}", "--token", "{token}")
    assert result.returncode == 1, result.stdout + result.stderr
    failed = {name: line for name, line in case_lines(result).items() if line.startswith("FAIL")}
    expected = "FAIL exited 1 instead of reconnecting: broken-bot: the stream failed: UNAVAILABLE"
    assert failed == {"a dropped connection and the resume": expected}, result.stdout


@pytest.mark.parametrize(("command", "message"), [
    (["president-bot", "x.py", "--server", "{server}"], "the command needs {token}"),
    (["./nowhere", "--token", "{token}"], "cannot find the program './nowhere'"),
    (["president-bot", "--token", "{tokn}"], "'{tokn}': the placeholders are"),
])
def test_a_command_the_suite_cannot_run_is_refused_in_one_line(command: list[str], message: str) -> None:
    result = conformance("--", *command)
    assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"president conformance: {message}")


@pytest.fixture(scope="module")
def node_bot() -> Path:
    """examples/node/bot.js with its npm packages (as tests/node installs them)."""
    if NODE is None:
        pytest.skip("node is not installed: the Node example bot needs Node 18+")
    return node_packages()


@pytest.mark.slow
@pytest.mark.parametrize("session", [False, True], ids=["play", "session"])
def test_the_node_bot_passes(node_bot: Path, session: bool) -> None:
    result = conformance("--", str(NODE), str(node_bot), "--server", "{server}", *(SESSION if session else PLAY))
    assert_every_case_passed(result, session=session)
