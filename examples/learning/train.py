"""Train the example policy: numpy only, one process, a few minutes on a laptop CPU.

    .venv/bin/python examples/learning/train.py --out trained.npz
    .venv/bin/python examples/learning/train.py --out learn/src/president_learn/weights/cardverse-4p.npz

(the second writes the shipped policy; the defaults reproduce it).

The policy plays two seats of each episode, a match of the PettingZoo
environment (one deal in cardverse), against built-in bots drawn from random,
easy and normal, learning by policy gradient (president_learn.train).  The
same seed and number of episodes give the same weights.  Then measure it:
examples/learning/evaluate.py.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from president_engine import PRESETS, Rules, RulesError
from president_engine.narrate import duration
from president_sdk.bot_cli import not_installed

try:
    from president_learn.train import Progress, TrainConfig, train
except ModuleNotFoundError as exc:  # `make run` installs no learners
    if (hint := not_installed(exc, "president_learn")) is None:
        raise
    sys.exit(f"train.py: {hint}")

SHOWN_EVERY = 500
"""Episodes between two lines of progress."""


def main(argv: list[str] | None = None) -> int:
    defaults = TrainConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("trained.npz"), help="where to write the weights")
    parser.add_argument("--preset", default="cardverse", choices=sorted(PRESETS), help="the rules to train for")
    parser.add_argument("--players", type=int, default=4, help="players at the table")
    parser.add_argument("--episodes", type=int, default=defaults.episodes,
                        help=f"episodes (matches) to train on, rounded up to whole batches of"
                             f" {defaults.batch_episodes}")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="seeds the deals, the seats and the weights")
    parser.add_argument("--hidden", type=int, default=defaults.hidden, help="units in the hidden layer")
    args = parser.parse_args(argv)
    for name in ("episodes", "hidden"):
        if getattr(args, name) < 1:
            print(f"train.py: --{name} must be at least 1", file=sys.stderr)
            return 2
    try:
        rules = Rules.preset(args.preset, players=args.players)
    except RulesError as exc:
        print(f"train.py: {exc}", file=sys.stderr)
        return 2
    config = TrainConfig(rules=rules, episodes=args.episodes, seed=args.seed, hidden=args.hidden)
    recent: list[float] = []
    shown, done = [0], [0]

    def report(progress: Progress) -> None:
        done[0] = progress.episodes
        recent.append(progress.reward)
        if progress.episodes - shown[0] >= SHOWN_EVERY or progress.episodes >= progress.total:
            shown[0] = progress.episodes
            print(f"{progress_line(progress)}; mean reward {sum(recent) / len(recent):+.3f},"
                  f" entropy {progress.entropy:.2f}", flush=True)
            recent.clear()

    start = time.monotonic()
    try:
        policy = train(config, report)
    except KeyboardInterrupt:
        print(f"train.py: interrupted after {done[0]} of {config.total_episodes} episodes; nothing written",
              file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    policy.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes) after {duration(time.monotonic() - start)}")
    return 0


def progress_line(progress: Progress) -> str:
    """``episode 300/2000, 41 s, about 3 min left`` (the time left at the pace so far)."""
    line = f"episode {progress.episodes}/{progress.total}, {duration(progress.seconds)}"
    left = progress.total - progress.episodes
    if left > 0:
        line += f", about {duration(progress.seconds / progress.episodes * left)} left"
    return line


if __name__ == "__main__":
    sys.exit(main())
