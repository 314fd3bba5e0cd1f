"""The expert's playouts a second: the C playout on rank counts against its reference, `Rollout` on the engine.

Per preset, the same seeded worlds (`Match.from_view` of the player to act, some random moves into a deal)
are played out from their first legal action both ways, in one process, taking turns going first:
`Rollout.play_out` with `prepare` once per world (the C playout, where the build has it and the table
allows it), and `Rollout(rules, compiled=False).play_out` (copy the world, play it on the engine: the Python
policy, compiled by mypyc on the compiled build).  Medians of `--runs`, and their ratio in each run (the
floor is the engine's playout, measured in the same run).  Daifugo (jokers, suits) has no C playout: both
columns are the engine's.

    .venv/bin/python benchmarks/playout_bench.py          # make bench-playouts
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from president_engine import PRESETS, Match, Phase, Rules, compiled
from president_sdk.bots.expert.rollout import Rollout


def worlds(rules: Rules, count: int, seed: int) -> list[Match]:
    """`count` worlds of one-deal matches, from the view of the player to act, 0-20 random moves into the play."""
    rng = random.Random(seed)
    out: list[Match] = []
    while len(out) < count:
        match = Match(rules, seed=rng.randrange(1 << 30))
        moves = rng.randrange(21)
        while not match.is_over and (match.phase is not Phase.PLAY or moves):
            if match.phase is Phase.PLAY:
                moves -= 1
            match.apply(rng.choice(match.legal_actions()))
        if not match.is_over and match.to_act is not None:
            out.append(Match.from_view(match.observation(match.to_act),
                                       [match.hand(p) for p in range(rules.players)]))
    return out


def rate(rollout: Rollout, boards: list[Match], *, prepared: bool) -> float:
    """Playouts a second over `boards`, each from its first legal action (`prepared`: `prepare` once a world)."""
    start = time.perf_counter()
    for world in boards:
        state = rollout.prepare(world) if prepared else None
        rollout.play_out(world, state, world.legal_actions()[0])
    return len(boards) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--worlds", type=int, default=400, help="worlds per preset and run")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="only these presets")
    args = parser.parse_args(argv)
    print(f"{compiled.describe()}; {args.worlds} worlds a preset, medians of {args.runs} runs")
    print(f"{'preset':10} {'C playouts/s':>13} {'engine playouts/s':>18} {'ratio':>6}")
    for preset in sorted(args.preset or PRESETS):
        rules = Rules.preset(preset, deals=1)
        native, reference = Rollout(rules), Rollout(rules, compiled=False)
        fast, slow, ratios = [], [], []
        for run in range(args.runs):
            boards = worlds(rules, args.worlds, seed=run)
            if run % 2:  # the second of the two finds the rule set's caches warm: take turns going first
                engine, c = rate(reference, boards, prepared=False), rate(native, boards, prepared=True)
            else:
                c, engine = rate(native, boards, prepared=True), rate(reference, boards, prepared=False)
            fast.append(c)
            slow.append(engine)
            ratios.append(c / engine)
        print(f"{preset:10} {statistics.median(fast):13,.0f} {statistics.median(slow):18,.0f} "
              f"{statistics.median(ratios):5.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
