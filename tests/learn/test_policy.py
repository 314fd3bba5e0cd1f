"""The numpy policy, its training loop, and the shipped trained bot served through the SDK."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from president_engine import Rules
from president_engine.action_space import action_space
from president_engine.observation_tensor import observation_size
from president_learn.policy import Policy, PolicyFileError
from president_learn.policy_bot import TRAINED_WEIGHTS, PolicyBot, PolicyMismatchError, TrainedBot, trained_policy
from president_learn.train import TrainConfig, train
from president_sdk import BotError, builtin_bot, play_local

RULES = Rules.preset("cardverse")


def small_policy(rules: Rules = RULES, seed: int = 0) -> Policy:
    rng = np.random.default_rng(seed)
    policy = Policy.initial(rules, inputs=observation_size(rules), actions=action_space(rules).size, hidden=8, rng=rng)
    for value in policy.params.values():
        value += rng.normal(0.0, 0.3, value.shape)  # away from the near-uniform start, so every term matters
    return policy


def test_gradients_match_finite_differences() -> None:
    policy = small_policy()
    rng = np.random.default_rng(1)
    n, size = 5, policy.actions
    x = rng.random((n, policy.inputs))
    masks = (rng.random((n, size)) < 0.3).astype(np.int8)
    chosen = np.array([int(rng.choice(np.flatnonzero(row))) for row in masks])
    advantages, returns = rng.normal(size=n), rng.normal(size=n)
    weights = {"value_weight": 0.5, "entropy_weight": 0.1}

    def loss() -> float:
        f = policy.forward(x, masks)
        picked = f.probs[np.arange(n), chosen]
        logp = np.log(np.where(f.probs > 0, f.probs, 1.0))
        entropy = -(f.probs * logp).sum(axis=1)
        terms = -advantages * np.log(picked) + weights["value_weight"] * (f.values - returns) ** 2 / 2
        return float(np.mean(terms - weights["entropy_weight"] * entropy))

    grads = policy.gradients(policy.forward(x, masks), chosen, advantages, returns, **weights)
    for name, value in policy.params.items():
        flat = value.reshape(-1)
        for i in rng.choice(flat.size, size=min(6, flat.size), replace=False):
            old = flat[i]
            flat[i] = old + 1e-6
            up = loss()
            flat[i] = old - 1e-6
            down = loss()
            flat[i] = old
            assert grads[name].reshape(-1)[i] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-7), name


def test_a_saved_policy_loads_with_its_rules_and_choices(tmp_path: Path) -> None:
    policy = small_policy()
    path = tmp_path / "p.npz"
    policy.save(path)
    loaded = Policy.load(path)
    assert loaded.rules == RULES
    x = np.random.default_rng(2).random((3, policy.inputs))
    mask = np.ones((3, policy.actions), dtype=np.int8)
    assert np.allclose(loaded.forward(x, mask).probs, policy.forward(x, mask).probs, atol=1e-5)
    (tmp_path / "bad.npz").write_bytes(b"not a policy")
    with pytest.raises(PolicyFileError):
        Policy.load(tmp_path / "bad.npz")


def test_the_shipped_bot_loads_and_plays_legal_moves_everywhere_its_encoding_fits() -> None:
    """Strict local play stops on any illegal answer; deals=3 brings the exchange and its give-backs."""
    assert trained_policy().rules == RULES and TRAINED_WEIGHTS.endswith(".npz")
    for seed in range(3):
        bots = [TrainedBot(), builtin_bot("hard"), builtin_bot("random", seed=seed), TrainedBot()]
        result = play_local(bots, Rules.preset("cardverse", deals=3), seed=seed)
        assert result.fault_count == 0


def test_a_policy_drawing_its_moves_is_legal_too_and_wrong_rules_are_refused() -> None:
    bots = [PolicyBot(small_policy(), seed=s) for s in range(4)]
    play_local(bots, RULES, seed=5)
    with pytest.raises(BotError, match="TrainedBot \\(player 0\\) cannot take its seat") as refused:
        play_local([TrainedBot(), *[builtin_bot("easy") for _ in range(4)]], Rules.preset("norwegian", players=5))
    assert isinstance(refused.value.__cause__, PolicyMismatchError)


def test_training_runs_a_batch_and_reports() -> None:
    reports = []
    policy = train(TrainConfig(rules=Rules.preset("cardverse", players=3), episodes=3, batch_episodes=2, hidden=8),
                   reports.append)
    assert [(r.episodes, r.total) for r in reports] == [(2, 4), (4, 4)]  # whole batches
    assert policy.actions == action_space(Rules.preset("cardverse", players=3)).size


def load_example(name: str) -> Any:
    path = Path(__file__).resolve().parents[2] / "examples" / "learning" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"learning_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_commands_train_and_evaluate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Both example scripts end to end, small: a ladder of one board cannot pass its gate (too few boards)."""
    out = tmp_path / "trained.npz"
    assert load_example("train").main(["--out", str(out), "--episodes", "64", "--hidden", "8"]) == 0
    assert Policy.load(out).rules == RULES
    assert load_example("evaluate").main(["--weights", str(out), "--boards", "1"]) == 1
    report = capsys.readouterr().out
    assert "24/24 matches" in report and "trained > random" in report and "trained > easy" in report
    assert "episode 64/64, " in report
    moves = re.search(r"(\d+) moves a match", report)
    cpu = re.search(r"CPU per move: ladder and in-process bots (\d+) us \(", report)  # no server, no command bots
    assert moves is not None and int(moves[1]) > 0 and cpu is not None and int(cpu[1]) > 0, report  # both read 0
