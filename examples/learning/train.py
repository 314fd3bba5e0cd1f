"""Train the example policy: numpy only, one process, a few minutes on a laptop CPU.

    .venv/bin/python examples/learning/train.py --out trained.npz
    .venv/bin/python examples/learning/train.py --out learn/src/president_learn/weights/cardverse-4p.npz

(the second writes the shipped policy; the defaults reproduce it).

The policy plays two seats of each 4-player cardverse deal against built-in
bots drawn from random, easy and normal, learning by policy gradient in the
PettingZoo environment (president_learn.train).  The same seed and deal count
give the same weights.  Then measure it: examples/learning/evaluate.py.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from president_engine import Rules
from president_learn.train import Progress, TrainConfig, train


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = TrainConfig()
    parser.add_argument("--out", type=Path, default=Path("trained.npz"), help="where to write the weights")
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=defaults.deals, help="matches to train on")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--hidden", type=int, default=defaults.hidden, help="units in the hidden layer")
    args = parser.parse_args(argv)
    config = TrainConfig(rules=Rules.preset(args.preset, players=args.players), deals=args.deals, seed=args.seed,
                         hidden=args.hidden)
    recent: list[float] = []
    shown = [0]

    def report(progress: Progress) -> None:
        recent.append(progress.reward)
        if progress.deals - shown[0] >= 500 or progress.deals >= config.deals:
            shown[0] = progress.deals
            mean = sum(recent) / len(recent)
            print(f"{progress.deals:6d} deals  {progress.seconds:5.0f} s  mean reward {mean:+.3f}"
                  f"  entropy {progress.entropy:.2f}", flush=True)
            recent.clear()

    start = time.monotonic()
    policy = train(config, report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    policy.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) after {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
