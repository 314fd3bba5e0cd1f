"""How fast a ladder plays over the network, against the same matches played in-process (a measurement, not a test).

Three ladders of 4-player cardverse, one deal a match, duplicate format,
each played by ``president ladder`` in a subprocess with its own server
(wall time of the whole command: server start, accounts, bots, matches,
reports), and once in this process through the engine:

1. the four built-in levels, `--matches` matches (default 240), played in-process
   (the matches alone, as `InProcess` plays them);
2. the same ladder over the ladder's own server;
3. `--command-matches` matches (default 48) where ``normal`` is a Python
   command bot (``president-bot benchmarks/speed_bot.py``, which plays as the
   built-in normal level) against the other three built-ins;
4. the same ladder with the built-in normal in its place.

Ratios are taken within one run (2 / 1 and 3 / 4) and the medians over
`--runs` runs are printed.  The bars: 2 / 1 within 15x (aim 5x), 3 / 4
within 1.2x.  Each networked ladder's results are checked identical to the
in-process ones (the same schedule, deals and draws).

    .venv/bin/python benchmarks/ladder_speed.py              # 3 runs
    .venv/bin/python benchmarks/ladder_speed.py --per-seat   # command bots the old way: a process per seat ({token})

On a machine shared with other work the figures move by 10-20% between
runs; compare ratios from the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from president_harness.ladder.config import BotSpec, Format, LadderConfig, Seatings
from president_harness.ladder.inprocess import InProcess
from president_harness.ladder.schedule import schedule
from president_harness.ladder.summary import summarize

LEVELS = ("random", "easy", "normal", "hard")
HERE = Path(__file__).resolve().parent
PRESIDENT = Path(sys.executable).with_name("president")


def ladder_file(folder: Path, name: str, matches: int, *, command: str | None, parallel: int | None) -> Path:
    """A ladder TOML of the four levels; with `command`, normal is that command bot."""
    bots = []
    for level in LEVELS:
        if level == "normal" and command is not None:
            bots.append(f'[[bots]]\nname = "normal"\ncommand = {json.dumps(command)}\n')
        else:
            bots.append(f'[[bots]]\nbuiltin = "{level}"\n')
    text = (f'name = "{name}"\nformat = "duplicate"\nplayers = 4\nmatches = {matches}\nseed = 17\n'
            f'db = "{name}.db"\nretries = 0\n' + (f"parallel = {parallel}\n" if parallel else "")
            + '[rules]\npreset = "cardverse"\ndeals = 1\n\n' + "\n".join(bots))
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(path: Path) -> tuple[float, dict[str, object]]:
    """Wall seconds of ``president ladder PATH`` and its JSON report."""
    started = time.perf_counter()
    done = subprocess.run([str(PRESIDENT), "ladder", str(path)], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"president ladder {path.name} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    report = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    return seconds, report


def in_process(matches: int, folder: Path) -> tuple[float, dict[str, object]]:
    """Seconds to play the ladder's matches through the engine (the game alone), and its table."""
    config = LadderConfig(name="inprocess", format=Format.DUPLICATE, players=4, seatings=Seatings.ALL,
                          matches=matches, seed=17, preset="cardverse", overrides={"deals": 1},
                          bots=tuple(BotSpec(name=level, builtin=level) for level in LEVELS),
                          db=folder / "inprocess.db", parallel=1)
    play = InProcess(rules=config.rules, levels={level: level for level in LEVELS})
    started = time.perf_counter()
    outcomes = [play(spec) for spec in schedule(config)]
    seconds = time.perf_counter() - started
    summary = summarize(config, outcomes, len(outcomes))
    return seconds, {"standings": [{"name": s.rating.name, "mu": s.rating.mu, "sigma": s.rating.sigma,
                                    "deals": s.rating.deals} for s in summary.standings]}


def standings(report: dict[str, object]) -> list[tuple[str, float, float, int]]:
    """The table's ratings, which follow from every finishing order of the ladder in schedule order."""
    rows = report["standings"]
    assert isinstance(rows, list)
    return [(r["name"], round(r["mu"], 9), round(r["sigma"], 9), r["deals"]) for r in rows]


def one_run(args: argparse.Namespace, run: int) -> dict[str, float]:
    placeholder = "{token}" if args.per_seat else "{account_token}"
    option = "--token" if args.per_seat else "--account-token"
    command = (f"president-bot {HERE / 'speed_bot.py'}:SpeedBot --server {{server}} {option} {placeholder}"
               " --quiet")
    with tempfile.TemporaryDirectory(prefix="ladder-speed-") as tmp:
        folder = Path(tmp)
        local_s, local = in_process(args.matches, folder)
        net_s, net = run_cli(ladder_file(folder, "builtins", args.matches, command=None, parallel=args.parallel))
        cmd_s, cmd = run_cli(ladder_file(folder, "command", args.command_matches, command=command,
                                         parallel=args.parallel))
        alone_s, alone = run_cli(ladder_file(folder, "alone", args.command_matches, command=None,
                                             parallel=args.parallel))
    same = standings(net) == standings(local) and standings(cmd) == standings(alone)
    figures = {"in-process": local_s, "over the server": net_s, "command bot": cmd_s, "built-in in its place": alone_s,
               "network / in-process": net_s / local_s, "command / built-in": cmd_s / alone_s}
    print(f"  run {run}: in-process {local_s:.2f} s, over the server {net_s:.2f} s"
          f" ({net_s / local_s:.1f}x, {1000 * net_s / args.matches:.0f} ms a match);"
          f" {args.command_matches} matches with a command bot {cmd_s:.2f} s,"
          f" built-in in its place {alone_s:.2f} s ({cmd_s / alone_s:.2f}x);"
          f" results identical: {'yes' if same else 'NO'}", flush=True)
    if not same:
        sys.exit("the networked ladders' results differ from the in-process ones")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--matches", type=int, default=240)
    parser.add_argument("--command-matches", type=int, default=48)
    parser.add_argument("--parallel", type=int, default=None, help="the ladders' parallel (default: theirs)")
    parser.add_argument("--per-seat", action="store_true",
                        help="the command bot the old way: one process per seat, given {token}")
    args = parser.parse_args()
    print(f"ladder speed: {args.matches} built-in matches, {args.command_matches} with a command bot"
          f" ({'per seat' if args.per_seat else 'one process, one Session'}), {args.runs} run(s)", flush=True)
    runs = [one_run(args, r) for r in range(1, args.runs + 1)]
    print(f"medians over {len(runs)} run(s):")
    for key in runs[0]:
        value = statistics.median(r[key] for r in runs)
        print(f"  {key}: {value:.2f}{'x' if '/' in key else ' s'}")
    network = statistics.median(r["network / in-process"] for r in runs)
    command = statistics.median(r["command / built-in"] for r in runs)
    print(f"bars: network within 15x of in-process (aim 5x): {network:.1f}x"
          f" {'met' if network <= 15 else 'NOT met'}; command bot within 1.2x of the built-in:"
          f" {command:.2f}x {'met' if command <= 1.2 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
