"""How well the expert reads the hidden hands, and what reading them perfectly would be worth.

Reading: the expert (a cap of 30 playouts and no clock, so the games repeat
exactly) plays one-deal matches against hard, normal and easy, its seat
rotating; at each of its searched decisions, 300 worlds of its sampler are
compared with the true hands: the share of the hidden cards they place with
their holder, weighted as the search weights them, and the same samples
unweighted (what the constraints of the sampling alone achieve), and the
effective size of a chunk of the search's 16 weighted samples, (sum w)^2 /
sum w^2: how many distinct worlds a chunk's draws amount to (16 when all
weigh alike).

With --oracle, the strength that perfect reading would give: on one-deal
duplicate boards of easy, normal, hard and X (random too at a table of five,
as the expert's ladders seat it; as bots_bench.py schedules them), X the
expert and then an oracle, the same search with the true hands as its only
world (a measuring device, never a bot to play against), both with the same
playout cap; each one's lead over hard in places per board.  Each --setting
NAME=VALUE adds the expert with search.py's constant NAME set to VALUE (in
every worker), and its gain over the expert on the same boards, paired.

    .venv/bin/python benchmarks/expert_worlds.py [--matches 60] [--preset cardverse]
    .venv/bin/python benchmarks/expert_worlds.py --oracle [--boards 10] [--playouts 1000] --preset cardverse
    .venv/bin/python benchmarks/expert_worlds.py --oracle --preset cardverse --boards 20 --setting CONFIDENCE=0.5
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

from bots_bench import board_deals, interval, table_config
from president_engine import PRESETS, CardSet, Match, Observation, Rules, visible_to
from president_engine.events import DealEnded
from president_harness.ladder.schedule import schedule
from president_sdk.bot import Bot
from president_sdk.bots import ExpertBot, builtin_bot
from president_sdk.bots.expert import search
from president_sdk.bots.expert.search import CHUNK
from president_sdk.bots.expert.worlds import PlayModel, Sampler

SAMPLES = 300
SEARCH_DEFAULTS = {name: value for name, value in vars(search).items()
                   if name.isupper() and isinstance(value, (int, float))}
"""search.py's numeric constants as shipped, which --setting may change (a worker resets them before each board)."""
OPPONENTS = ("hard", "normal", "easy")


class Reader(ExpertBot):
    """The expert, told the true hands before each decision: it measures its worlds against them (`read`), or,
    as the oracle, searches the true hands alone."""

    def __init__(self, seed: int, playouts: int, *, oracle: bool = False) -> None:
        super().__init__(seed, budget=None, playouts=playouts)
        self.oracle = oracle
        self.truth: list[CardSet] = []
        self.readings: list[tuple[float, float, float]] = []
        """(weighted share placed right, unweighted share, effective samples of a chunk) by searched decision."""

    def _worlds(self, obs: Observation, model: PlayModel) -> Callable[[], tuple[list[CardSet], float]]:
        if self.oracle:
            truth = list(self.truth)
            return lambda: (list(truth), 1.0)
        if self._knowledge.agrees_with(obs) and self._knowledge.decisions:
            self.readings.append(self.read(obs, model))
        return super()._worlds(obs, model)

    def read(self, obs: Observation, model: PlayModel) -> tuple[float, float, float]:
        """Placed right, weighted and not, and a chunk's worth (a sampler of its own: the bot's draws stay as
        they were)."""
        sampler = Sampler(obs, self._knowledge, model, random.Random(len(self.readings)))
        others = [p for p in range(obs.rules.players) if p != obs.player]
        hidden = sum(len(self.truth[p]) for p in others)
        samples = [sampler.sample() for _ in range(SAMPLES)]
        right = [sum(card in self.truth[p] for p in others for card in hands[p]) / hidden for hands, _ in samples]
        weights = [weight for _, weight in samples]
        chunks = [weights[at:at + CHUNK] for at in range(0, SAMPLES - CHUNK + 1, CHUNK)]
        sizes = [sum(c) ** 2 / sum(w * w for w in c) for c in chunks if sum(c) > 0]
        weighted = sum(w * r for w, r in zip(weights, right, strict=True)) / sum(weights)
        return weighted, statistics.mean(right), statistics.mean(sizes)


def play(bots: Sequence[Bot], rules: Rules, seed: int, hands: list[list[CardSet]] | None = None) -> tuple[int, ...]:
    """One match, every bot told the events it may see and a `Reader` the true hands: the places of its deals."""
    match = Match(rules, seed=seed, hands=hands)
    for player, bot in enumerate(bots):
        bot.seat(player, rules)
    seen = 0
    while True:
        for event in match.events[seen:]:
            for player, bot in enumerate(bots):
                shown = visible_to(event, player)
                if shown is not None:
                    bot.notify(shown)
        seen = len(match.events)
        if match.is_over:
            return next(e.places for e in match.events if isinstance(e, DealEnded))
        to_act = match.to_act
        assert to_act is not None
        bot = bots[to_act]
        if isinstance(bot, Reader):
            bot.truth = [match.hand(p) for p in range(rules.players)]
        match.apply(bot.decide(match.observation(to_act)))


def reading(job: tuple[str, int]) -> list[tuple[float, float, float]]:
    preset, seed = job
    rules = Rules.preset(preset, deals=1)
    reader = Reader(seed, 30)
    others = iter(OPPONENTS * 2)
    seat = seed % rules.players
    play([reader if p == seat else builtin_bot(next(others), seed=seed) for p in range(rules.players)], rules, seed)
    return reader.readings


def levels(preset: str) -> tuple[str, ...]:
    """The table of --oracle: easy, normal, hard and X, and random at a table of five."""
    return ("random", "easy", "normal", "hard", "x")[-Rules.preset(preset).players:]


def oracle_board(job: tuple[str, int, int, int, bool, dict[str, float]]) -> float:
    """Hard's mean place less X's over one board's matches (X's search with `settings` of search.py's
    constants)."""
    preset, boards, board, playouts, oracle, settings = job
    for name, value in {**SEARCH_DEFAULTS, **settings}.items():
        setattr(search, name, value)
    config = table_config(preset, levels(preset), boards, 1, seed=28)
    specs = [s for s in schedule(config) if s.board == board]
    lead = 0.0
    for spec in specs:
        hands = [[CardSet(hand) for hand in deal] for deal in spec.hands]
        bots: list[Bot] = [Reader(spec.seed, playouts, oracle=oracle) if name == "x"
                           else builtin_bot(name, seed=spec.seed) for name in spec.bots]
        places = play(bots, config.rules, spec.seed, hands)
        place = {spec.bots[player]: at for at, player in enumerate(places, 1)}
        lead += (place["hard"] - place["x"]) / len(specs)
    return lead


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="only these presets")
    parser.add_argument("--matches", type=int, default=60, help="matches per preset (reading)")
    parser.add_argument("--oracle", action="store_true", help="the expert and the oracle against hard instead")
    parser.add_argument("--boards", type=int, default=10, help="duplicate boards per table (--oracle)")
    parser.add_argument("--playouts", type=int, default=1000, help="playout cap of both (--oracle)")
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                        help="also the expert with this constant of search.py (--oracle; repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if min(args.matches, args.boards, args.playouts, args.jobs) < 1:
        parser.error("--matches, --boards, --playouts and --jobs are at least 1")
    settings = [_setting(parser, text) for text in args.setting]
    presets = args.preset or sorted(PRESETS)
    with ProcessPoolExecutor(args.jobs) as pool:
        if args.oracle:
            print(f"lead over hard in places per board, one-deal duplicate boards of (random,) easy, normal, hard "
                  f"and X, {args.boards} boards, cap {args.playouts} playouts, no clock; 95% interval")
            for preset in presets:
                players = Rules.preset(preset).players
                per_board = board_deals(preset, levels(preset), 1)
                base: list[float] = []
                for name, oracle, setting in [("expert", False, {}), *((f"expert {text}", False, setting)
                                                                     for text, setting in zip(args.setting, settings,
                                                                                              strict=True)),
                                              ("oracle", True, {})]:
                    jobs = [(preset, args.boards, b, args.playouts, oracle, setting) for b in range(args.boards)]
                    leads = list(pool.map(oracle_board, jobs))
                    lead = interval(leads, low=1 - players, high=players - 1, per_board=per_board)
                    gain = ""
                    if setting and len(leads) > 1:
                        diffs = [a - b for a, b in zip(leads, base, strict=True)]
                        gain = (f"  gain over the expert {statistics.mean(diffs):+.3f} +- "
                                f"{1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5:.3f}")
                    base = base or leads
                    print(f"{preset:<10} {name:<7} {lead.mean:>6.3f} [{lead.low:.3f}, {lead.high:.3f}]{gain}",
                          flush=True)
            return 0
        print(f"the expert's worlds against the true hands: {args.matches} one-deal matches per preset against "
              f"{', '.join(OPPONENTS)}, {SAMPLES} samples at each searched decision")
        print(f"{'preset':<10} {'decisions':>9} {'weighted':>9} {'unweighted':>11} {'chunk of 16 worth':>18}")
        for preset in presets:
            rows = [row for rows in pool.map(reading, [(preset, seed) for seed in range(args.matches)]) for row in rows]
            weighted, unweighted, size = (statistics.mean(column) for column in zip(*rows, strict=True))
            print(f"{preset:<10} {len(rows):>9} {weighted:>9.3f} {unweighted:>11.3f} {size:>18.2f}", flush=True)
    return 0


def _setting(parser: argparse.ArgumentParser, text: str) -> dict[str, float]:
    """NAME=VALUE of --setting, NAME a numeric constant of search.py."""
    name, _, value = text.partition("=")
    if name not in SEARCH_DEFAULTS:
        parser.error(f"--setting {text}: {name!r} is not a numeric constant of president_sdk.bots.expert.search")
    kind = type(SEARCH_DEFAULTS[name])
    try:
        number = kind(value)
    except ValueError:
        parser.error(f"--setting {text}: {value!r} is not a {kind.__name__}")
    if number < (1 if kind is int else 0):
        parser.error(f"--setting {text}: {name} is at least {1 if kind is int else 0}")
    return {name: number}


if __name__ == "__main__":
    sys.exit(main())
