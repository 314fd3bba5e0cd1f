"""Measure a trained policy with the ladder machinery, in-process: duplicate boards, 95% intervals, a gate.

    .venv/bin/python examples/learning/evaluate.py                        # the shipped policy
    .venv/bin/python examples/learning/evaluate.py --weights trained.npz --boards 100

Every board deals one cardverse deal and plays it in all 24 seatings of the
table (the policy and three built-in levels), with one seed for the random
bot's draws, exactly as `president ladder` does over a server; the summary is
the ladder's own (mean places, paired differences, head to head).  Exit
status 1 unless the policy finishes ahead of random and easy with 95%
confidence.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from president_engine import Rules
from president_engine.narrate import counted
from president_harness.ladder.config import BotSpec, Format, LadderConfig, Seatings
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.gate import parse_claim
from president_harness.ladder.inprocess import InProcess
from president_harness.ladder.report import terminal
from president_harness.ladder.schedule import board_size
from president_sdk import BUILTIN_BOTS
from president_sdk.bot_cli import not_installed

try:
    from president_learn.policy import Policy, PolicyFileError
    from president_learn.policy_bot import PolicyBot, check_rules, trained_policy
except ModuleNotFoundError as exc:  # `make run` installs no learners
    if (hint := not_installed(exc, "president_learn")) is None:
        raise
    sys.exit(f"evaluate.py: {hint}")

NAME = "trained"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--weights", type=Path, default=argparse.SUPPRESS,
                        help="a policy file (default: the shipped example)")
    parser.add_argument("--boards", type=int, default=60,
                        help="duplicate boards: each one deal, played in every seating (24 matches with 4 players)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the deals and the random bot's draws")
    parser.add_argument("--opponents", default="random,easy,normal",
                        help="built-in levels, one for each seat but the policy's")
    args = parser.parse_args(argv)
    if args.boards < 1:
        print("evaluate.py: --boards must be at least 1", file=sys.stderr)
        return 2
    try:
        policy = Policy.load(args.weights) if "weights" in args else trained_policy()
    except PolicyFileError as exc:
        print(f"evaluate.py: {exc}", file=sys.stderr)
        return 2
    rules = policy.rules
    levels = [level.strip() for level in args.opponents.split(",") if level.strip()]
    seats = rules.players - 1
    if len(set(levels)) != seats or len(levels) != seats or not set(levels) <= set(BUILTIN_BOTS):
        print(f"evaluate.py: --opponents: the policy plays {rules.players}-player tables: give {seats} different"
              f" built-in levels, comma-separated (known: {', '.join(BUILTIN_BOTS)})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        config = LadderConfig(
            name="trained-policy", format=Format.DUPLICATE, players=rules.players, seatings=Seatings.ALL, matches=1,
            seed=args.seed, preset="cardverse", overrides=_overrides(rules), db=Path(folder) / "ladder.db",
            bots=(BotSpec(name=NAME), *(BotSpec(name=level, builtin=level) for level in levels)), parallel=1)
        config = dataclasses.replace(config, matches=args.boards * board_size(config))
        check_rules(policy, config.rules)
        play = InProcess(rules=config.rules, levels={level: level for level in levels},
                         bots={NAME: lambda _seed: PolicyBot(policy)})
        claims = [parse_claim(f"{NAME} > {level}", [NAME, *levels]) for level in ("random", "easy") if level in levels]
        summary = run_ladder(config, play, claims=claims, progress=sys.stderr)
    print(terminal(summary), end="")
    print(f"\nPlaces {NAME} finishes ahead per board (paired, 95% CI):")
    for level in levels:
        d = summary.pair(NAME, level).difference
        print(f"  vs {level:8} {d.mean:+.2f}  [{d.low:+.2f}, {d.high:+.2f}]  over {counted(d.n, 'board')}")
    return 0 if summary.passed else 1


def _overrides(rules: Rules) -> dict[str, object]:
    """The policy's rules as options over the cardverse preset (its players are the ladder's own setting)."""
    base = Rules.preset("cardverse", players=rules.players).to_dict()
    return {k: v for k, v in rules.to_dict().items() if base[k] != v and k != "players"}


if __name__ == "__main__":
    sys.exit(main())
