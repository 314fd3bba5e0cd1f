"""The cost of the sandbox that hosts submitted bots (issue 23): start time, memory per hosted bot, and a match of
hosted bots against the same bots run as plain commands.

A measurement, not a test (run by `make bench-sandbox`; needs bubblewrap and user namespaces).  Each figure is
the median of `--runs` runs, beside its floor measured in the same run:

1. **Start per bot process**: `python -S -c pass` run through `Sandbox.run` (the two nested jails, the uid drop,
   prlimit), against the same command as a plain child process.
2. **Memory per hosted bot**: the peak memory of every process of a jail whose `president-bot` plays a match,
   summed as the jail's memory cap counts it (`Exit.peak_memory_bytes`: resident anonymous and shared memory of
   the bot and the bwrap/setpriv processes around it), against the same bot run as a plain process.
3. **A match of hosted bots**: a 4-player cardverse match of `--deals` deals, every seat a `president-bot`
   running `examples/python/first_bot.py` over its Play stream, from starting the four processes to the last
   one's exit: every bot in its own jail (a slot each, a relayed socket each) against every bot a plain child
   process; the figure is the ratio (aim: at most 1.2x).
4. **Each bot's share of a match's thinking time**: a one-deal match of four jailed bots that each think
   `THINK_S` on two threads at every decision (a search bot's way), alone on the machine, then beside a fifth jail
   spinning 8 threads all along, with the jails' default CPU (an equal weight each, no cap: `Sandbox.cpu_cores`
   None) and with every jail capped at the machine's cores / 5 (`--cpu-cores`, the host's old fixed share at
   `--bots 5`); the figures are each seat's cores while it thought (its CPU over its thinking time) and the cores
   the spinner got meanwhile.  Equal weights give a thinker the idle machine's cores alone and an equal part of
   them beside the spinner, however many threads the spinner runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import grpc
from president_harness.hosting.jail_cgroup import cgroups
from president_harness.hosting.jail_quota import tree_cpu_s
from president_harness.hosting.sandbox import Sandbox, stage
from president_harness.hosting.socket_relay import relay_to
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[1]
FIRST_BOT = ROOT / "examples" / "python" / "first_bot.py"
ADMIN = "sandbox-bench-admin"
FIRST_SLOT = 90


def _start_floor(runs: int) -> tuple[float, float]:
    """Median seconds to run `python -S -c pass` plainly and in the sandbox."""
    plain, jailed = [], []
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)  # the jail's user must enter it
        sandbox = Sandbox(folder=Path(folder), slot=FIRST_SLOT)
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)
            plain.append(time.perf_counter() - started)
            started = time.perf_counter()
            ended = sandbox.run(["python", "-S", "-c", "pass"], log=Path(folder) / "log")
            jailed.append(time.perf_counter() - started)
            assert ended.status == 0, (Path(folder) / "log").read_text()
    return statistics.median(plain), statistics.median(jailed)


class Server:
    """A server on a Unix socket in a child process."""

    def __init__(self, work: Path) -> None:
        self.socket = work / "server.sock"
        self.log = work / "server.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "president_service", "serve", "--port", "0", "--unix", str(self.socket),
                 "--db", str(work / "server.db")], env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN),
                stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while "serving on" not in self.log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: {self.log.read_text()}")
            time.sleep(0.05)
        self.target = f"unix:{self.socket}"
        self.channel = grpc.insecure_channel(self.target)
        self.stub = pb_grpc.PresidentServiceStub(self.channel)

    def seats(self, deals: int) -> list[str]:
        created = self.stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", rules=pb.Rules(deals=deals)),
                                        metadata=(("authorization", f"Bearer {ADMIN}"),))
        return [seat.token for seat in created.seats]

    def close(self) -> None:
        self.channel.close()
        self.process.terminate()
        self.process.wait(20)


THINK_S = 0.1
"""Each thinker's thinking time at every decision."""
THINKER = f"""
import atexit, threading, time
from president_sdk import PASS, Bot, can_pass, plays
thought = [0.0, 0.0]
def spin(until):
    while time.monotonic() < until:
        pass
class Thinker(Bot):
    def play(self, obs):
        cpu, started = time.process_time(), time.monotonic()
        threads = [threading.Thread(target=spin, args=(started + {THINK_S},)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        thought[0] += time.process_time() - cpu
        thought[1] += time.monotonic() - started
        options = plays(obs)
        cheap = [p for p in options if p.rank is not obs.top_rank]
        return cheap[0] if cheap else PASS if can_pass(obs) else options[0]
atexit.register(lambda: print("thought", *thought, flush=True))
"""
SPINNER = """
import threading, time
def spin():
    while True:
        pass
for _ in range(8):
    threading.Thread(target=spin, daemon=True).start()
time.sleep(3600)
"""


def _match(server: Server, work: Path, deals: int, *, jailed: bool, cores: float | None = None,
           spinner: bool = False, bot: str = "") -> tuple[float, list[int], float, list[str]]:
    """Seconds from starting four bots to the last one's exit, each bot's peak memory in KB, the CPU seconds a
    spinning neighbour (`spinner`) used meanwhile, and each bot's log; every jail capped at `cores` if given; the
    bots run `bot` (or first_bot.py)."""
    tokens = server.seats(deals)
    spun = 0.0
    with ExitStack() as stack:
        neighbour = None
        if spinner:
            spin = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-spinner-")))
            os.chmod(spin, 0o755)
            (spin / "bot.py").write_text(SPINNER)
            neighbour = Sandbox(folder=spin, slot=FIRST_SLOT + 5, cpu_cores=cores).start(
                [sys.executable, "bot.py"], log=work / "spinner.log")
            time.sleep(1.0)  # spinning, and past its saved-up burst
        running = []
        for seat, token in enumerate(tokens):
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-bot-")))
            (folder / "given").mkdir()
            if bot:
                (folder / "given" / "bot.py").write_text(bot)
            else:
                shutil.copy(FIRST_BOT, folder / "given" / "bot.py")
            sandbox = Sandbox(folder=stage(folder / "given", folder), slot=FIRST_SLOT + 1 + seat, cpu_cores=cores)
            env = {"PRESIDENT_TOKEN": token}
            socket = stack.enter_context(relay_to(server.target, sandbox.uid)) if jailed else None
            if not jailed:
                env["PRESIDENT_SERVER"] = server.target
            running.append((sandbox, socket, env, work / f"bot{seat}.{'jailed' if jailed else 'plain'}.log"))
        started = time.perf_counter()
        bots = [sandbox.start(["president-bot", "bot.py"], log=log, socket=socket, env=env, jailed=jailed)
                for sandbox, socket, env, log in running]
        spun = -tree_cpu_s(neighbour.process.pid) if neighbour else 0.0
        ended = [bot.wait() for bot in bots]
        took = time.perf_counter() - started
        if neighbour is not None:
            spun += tree_cpu_s(neighbour.process.pid)
            neighbour.stop()
            neighbour.wait()
    for end, (_, _, _, log) in zip(ended, running, strict=True):
        if end.status != 0:
            raise SystemExit(f"a bot failed ({end.reason}): {log.read_text()[-2000:]}")
    return took, [end.peak_memory_bytes // 1024 for end in ended], spun, [log.read_text() for *_, log in running]


def _thinking(server: Server, work: Path, *, cores: float | None, spinner: bool) -> tuple[list[float], float]:
    """Each thinker's cores while it thought, in a one-deal match of four, and the spinner's cores meanwhile."""
    took, _, spun, logs = _match(server, work, 1, jailed=True, cores=cores, spinner=spinner, bot=THINKER)
    seats = []
    for log in logs:
        cpu_s, wall_s = (float(f) for f in log.rsplit("thought ", 1)[1].split()[:2])
        seats.append(cpu_s / wall_s)
    return seats, spun / took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--deals", type=int, default=3)
    args = parser.parse_args()
    if (problem := Sandbox(folder=Path(), slot=FIRST_SLOT).check()) is not None:
        raise SystemExit(f"sandbox_bench: {problem}")
    plain_s, jailed_s = _start_floor(max(args.runs, 5) * 4)
    print(f"start per bot process (python -S -c pass, median of {max(args.runs, 5) * 4}): sandbox"
          f" {jailed_s * 1000:.1f} ms, plain {plain_s * 1000:.1f} ms (the jail adds {(jailed_s - plain_s) * 1000:.1f}"
          " ms; aim: under 150 ms)")
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as folder:
        work = Path(folder)
        os.chmod(work, 0o755)
        server = Server(work)
        try:
            plain, jailed, plain_kb, jailed_kb = [], [], [], []
            share = (os.cpu_count() or 1) / 5
            thinking: dict[tuple[float | None, bool], list[tuple[list[float], float]]] = {
                (None, False): [], (None, True): [], (share, True): []}
            for _ in range(args.runs):
                took, kb, _, _ = _match(server, work, args.deals, jailed=False)
                plain.append(took)
                plain_kb.append(int(statistics.median(kb)))
                took, kb, _, _ = _match(server, work, args.deals, jailed=True)
                jailed.append(took)
                jailed_kb.append(int(statistics.median(kb)))
                for (cores, spinner), runs in thinking.items():
                    runs.append(_thinking(server, work, cores=cores, spinner=spinner))
        finally:
            server.close()
    counted = "its cgroup's peak, the page cache it read included" if cgroups() else "sampled"
    print(f"memory per hosted bot (peak, as --jail-memory-mb counts it: {counted}; median bot, median of"
          f" {args.runs}): sandbox"
          f" {statistics.median(jailed_kb) / 1024:.1f} MB (the bot and its jail's processes), plain"
          f" {statistics.median(plain_kb) / 1024:.1f} MB")
    ratio = statistics.median(jailed) / statistics.median(plain)
    print(f"a {args.deals}-deal match of four first bots, start to last exit (median of {args.runs}): sandbox"
          f" {statistics.median(jailed):.2f} s, plain {statistics.median(plain):.2f} s: {ratio:.2f}x (aim: at most"
          " 1.2x)")
    found = cgroups()
    held = f"cgroup v{found.version}" if found else "no cgroups: the kernel's own scheduling, the user-space quota"
    print(f"each bot's cores while it thought ({THINK_S:g} s on two threads a decision, a one-deal match of four,"
          f" median of {args.runs}; {os.cpu_count()} cores, {held}):")
    for (cores, spinner), runs in thinking.items():
        seats = [statistics.median(run[0][seat] for run in runs) for seat in range(4)]
        how = ("the default (equal weights, no cap)" if cores is None else
               f"every jail capped at {cores:.2f} cores (--cpu-cores)")
        beside = (f"beside a jail spinning 8 threads, {how}: the spinner got"
                  f" {statistics.median(run[1] for run in runs):.2f} cores" if spinner else f"alone, {how}")
        print(f"  {beside}; the seats: {', '.join(f'{c:.2f}' for c in seats)} cores")


if __name__ == "__main__":
    main()
