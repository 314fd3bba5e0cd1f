"""The learners' commands for a newcomer: one line naming the fix when learn/ is not installed or the rules do not
fit the policy, help with defaults, progress with the time left."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from president_engine import Rules
from president_harness.child_server import ChildServer
from president_learn.policy_bot import rules_text
from president_learn.train import Progress
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.bot_cli import main as president_bot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "learning"
FIX = "run `make venv` (make run installs only what running needs)"

WITHOUT_LEARN = "import sys; sys.path[:] = [p for p in sys.path if not p.endswith('learn/src')]; "
"""As after `make run`: the interpreter finds no president_learn."""
WITHOUT_NUMPY = "import sys; sys.modules['numpy'] = None; "
"""president_learn is there, numpy is not."""


def python(setup: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", setup + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)


def script(name: str, *args: str) -> str:
    """Code running examples/learning/NAME.py with `args`, as its command line would."""
    path = str(EXAMPLES / f"{name}.py")
    return f"import runpy; sys.argv = [{path!r}, *{list(args)!r}]; runpy.run_path({path!r}, run_name='__main__')"


def bot(*args: str) -> str:
    return f"from president_sdk.bot_cli import main; sys.exit(main({list(args)!r}))"


@pytest.mark.parametrize(("setup", "missing"), [(WITHOUT_LEARN, "president_learn is not installed"),
                                                (WITHOUT_NUMPY, "president_learn needs numpy, which is not installed")])
def test_without_learn_every_command_says_in_one_line_what_installs_it(setup: str, missing: str) -> None:
    for code, prefix in ((script("train", "--out", "never.npz"), "train.py"), (script("evaluate"), "evaluate.py"),
                         (bot("president_learn.policy_bot:TrainedBot", "--local"), "president-bot")):
        done = python(setup, code)
        assert done.returncode != 0 and done.stdout == "", done.stderr
        assert done.stderr == f"{prefix}: {missing}: {FIX}\n"
    assert not (ROOT / "never.npz").exists()


def test_a_misspelt_module_of_an_installed_learn_is_not_called_missing(capsys: pytest.CaptureFixture[str]) -> None:
    assert president_bot(["president_learn.polcy_bot:TrainedBot", "--local"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("president-bot: cannot import president_learn.polcy_bot:") and "make venv" not in err


def test_the_shipped_policy_refuses_other_rules_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """It printed a traceback ending in the policy's whole rules as a dict."""
    assert president_bot(["president_learn.policy_bot:TrainedBot", "--local", "--preset", "norwegian"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "president-bot: TrainedBot (player 0) cannot take its seat: the policy was trained for cardverse with 4"
        " players, and norwegian with 4 players encodes differently (observations of 148 numbers and 1776 actions,"
        " not 144 and 157): train one for it with `.venv/bin/python examples/learning/train.py --preset norwegian"
        " --players 4 --out norwegian-4p.npz` (docs/learning.md)\n")


def test_on_a_server_too_the_refusal_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ChildServer(tmp_path / "server.db") as server, grpc.insecure_channel(server.address) as channel:
        created = pb_grpc.PresidentServiceStub(channel).CreateMatch(
            pb.CreateMatchRequest(preset="norwegian"), metadata=(("authorization", f"Bearer {server.admin_token}"),),
            timeout=30)
        status = president_bot(["president_learn.policy_bot:TrainedBot", "-q", "--server", server.address,
                                "--token", created.seats[0].token])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1, err
    assert err.startswith("president-bot: TrainedBot (player 0) cannot take its seat: the policy was trained for"
                          " cardverse with 4 players, and norwegian with 4 players encodes differently"), err


def test_the_refusal_names_options_off_the_preset_and_the_trainer_for_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert president_bot(["president_learn.policy_bot:TrainedBot", "--local", "--opponents", "easy,easy"]) == 1
    err = capsys.readouterr().err
    assert "cardverse with 3 players encodes differently" in err and "--preset cardverse --players 3" in err
    assert rules_text(Rules.preset("italian", players=4, jokers=2, suit_order="D C H S")) == (
        "italian with 4 players (jokers=2, suit_order=D,C,H,S)")


def test_train_help_shows_every_default_in_one_word_for_an_episode() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "train.py"), "--help"], capture_output=True, text=True,
                          timeout=60, check=True)
    text = " ".join(done.stdout.split())
    for option, default in (("--out", "trained.npz"), ("--preset", "cardverse"), ("--players", "4"),
                            ("--episodes", "8000"), ("--seed", "0"), ("--hidden", "64")):
        assert option in text and f"(default: {default})" in text, option
    assert "--deals" not in text and "episodes (matches) to train on" in text  # --deals meant matches


def test_train_progress_gives_the_total_and_the_time_left() -> None:
    train = _load("train")
    assert train.progress_line(Progress(episodes=300, total=2000, seconds=35.0, reward=0.0, entropy=1.0)) == (
        "episode 300/2000, 35 s, about 3 min left")  # 198 s at this pace
    assert train.progress_line(Progress(episodes=2000, total=2000, seconds=272.0, reward=0.0, entropy=1.0)) == (
        "episode 2000/2000, 5 min")


@pytest.mark.parametrize(("args", "error"), [
    (["--episodes", "0"], "train.py: --episodes must be at least 1"),
    (["--players", "1"], "train.py: players: "),
])
def test_train_refuses_a_mistake_in_one_line(args: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _load("train").main(["--out", "never.npz", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(error) and err.count("\n") == 1, err


@pytest.mark.parametrize(("args", "error"), [
    (["--boards", "0"], "evaluate.py: --boards must be at least 1"),
    (["--opponents", "random,easy"], "evaluate.py: --opponents: the policy plays 4-player tables: give 3 different"),
    (["--opponents", "random,easy,nobody"], "evaluate.py: --opponents: the policy plays 4-player tables"),
    (["--weights", "no-such.npz"], "evaluate.py: no-such.npz: not a policy file"),
])
def test_evaluate_refuses_a_mistake_in_one_line(args: list[str], error: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert _load("evaluate").main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(error) and err.count("\n") == 1, err


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"learning_{name}_commands", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
