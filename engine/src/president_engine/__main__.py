"""Command line: ``python -m president_engine replay RECORD.json`` and friends.

- ``replay RECORD.json``: check a match record move by move; print the result,
  or the first illegal move with its reason (exit status 1).
- ``random --preset NAME [--seed N] [--out FILE]``: play uniformly random
  legal actions and write the record (for fuzzing and transcripts).
- ``demo``: play a match of easy-level players (`fallback_action`) in-process and print it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from importlib.metadata import version
from pathlib import Path

from president_engine.errors import RecordError, RulesError
from president_engine.fallback import fallback_action
from president_engine.match import Match
from president_engine.narrate import counted, describe
from president_engine.record import MatchRecord, ReplayError
from president_engine.rules import PRESETS, Rules


def _rules(args: argparse.Namespace) -> Rules:
    overrides = dict(json.loads(args.options)) if args.options else {}
    if args.players is not None:
        overrides["players"] = args.players
    if args.deals is not None:
        overrides["deals"] = args.deals
    return Rules.preset(args.preset, **overrides)


def _replay(args: argparse.Namespace) -> int:
    try:
        record = MatchRecord.loads(Path(args.record).read_text())
        match = record.replay()
    except ReplayError as exc:
        print(f"illegal: {exc}", file=sys.stderr)
        return 1
    except (RecordError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    actions = sum(len(d.actions) for d in record.deals)
    deals = len(record.deals)
    print(f"ok: {counted(deals, 'deal')}, {counted(actions, 'action')} replayed")
    names = [f"P{p}" for p in range(record.rules.players)]
    if match.is_over:
        print(f"winner {names[match.winner or 0]}; last places " + " ".join(names[p] for p in match.last_places)
              + "; totals " + " ".join(f"{names[p]}={s}" for p, s in enumerate(match.scores)))
    else:
        print(f"match unfinished: deal {match.deal}, {names[match.to_act or 0]} to act")
    return 0


def _random(args: argparse.Namespace) -> int:
    match = Match(_rules(args), seed=args.seed)
    rng = random.Random(args.seed)
    while not match.is_over:
        match.apply(rng.choice(match.legal_actions()))
    text = MatchRecord.from_match(match).dumps()
    if args.out:
        Path(args.out).write_text(text + "\n")
    else:
        print(text)
    return 0


def _demo(args: argparse.Namespace) -> int:
    match = Match(_rules(args), seed=args.seed)
    names = [f"P{p}" for p in range(match.rules.players)]
    shown = 0
    while True:
        for event in match.events[shown:]:
            line = describe(event, names, preset=args.preset)
            if line is not None:
                print(line)
        shown = len(match.events)
        if match.is_over:
            return 0
        match.apply(fallback_action(match.legal_actions()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m president_engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"president-engine {version('president-engine')}")
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="check a match record move by move")
    replay.add_argument("record")
    for name in ("random", "demo"):
        p = sub.add_parser(name, help="play random legal actions, write the record" if name == "random"
                           else "print a match of lowest-play bots")
        p.add_argument("--preset", default="cardverse", choices=sorted(PRESETS))
        p.add_argument("--players", type=int)
        p.add_argument("--deals", type=int)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--options", help='JSON object of option overrides, e.g. \'{"jokers": 2}\'')
        if name == "random":
            p.add_argument("--out")
    args = parser.parse_args(argv)
    try:
        if args.command == "replay":
            return _replay(args)
        return _random(args) if args.command == "random" else _demo(args)
    except (RulesError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
