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
4. **A busy-looping neighbour**: the same jailed match while a fifth jail spins 8 threads all along, with no CPU
   share (only the per-process CPU seconds: the spinner takes what the scheduler gives it) and with every jail
   held to an equal share (`Sandbox.cpu_cores`, the machine's cores / 5, as `president host --versions --bots 5`
   gives); the figures are each match's time over the match with no neighbour, and the CPU the spinner got.
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
from president_harness.jail_quota import tree_cpu_s
from president_harness.sandbox import Sandbox, relay_to, stage
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
           spinner: bool = False) -> tuple[float, int, float]:
    """Seconds from starting four bots to the last one's exit, the median bot's peak memory in KB, and the CPU
    seconds a spinning neighbour (`spinner`) used meanwhile; every jail held to `cores` if given."""
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
    return took, int(statistics.median(end.peak_memory_bytes for end in ended)) // 1024, spun


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
            crowded: dict[str, list[tuple[float, float]]] = {"no share": [], f"{share:.2f} cores each": []}
            for _ in range(args.runs):
                took, kb, _ = _match(server, work, args.deals, jailed=False)
                plain.append(took)
                plain_kb.append(kb)
                took, kb, _ = _match(server, work, args.deals, jailed=True)
                jailed.append(took)
                jailed_kb.append(kb)
                for runs, cores in zip(crowded.values(), (None, share), strict=True):
                    took, _, spun = _match(server, work, args.deals, jailed=True, cores=cores, spinner=True)
                    runs.append((took, spun))
        finally:
            server.close()
    print(f"memory per hosted bot (peak, as --jail-memory-mb counts it; median bot, median of {args.runs}): sandbox"
          f" {statistics.median(jailed_kb) / 1024:.1f} MB (the bot and its jail's processes), plain"
          f" {statistics.median(plain_kb) / 1024:.1f} MB")
    ratio = statistics.median(jailed) / statistics.median(plain)
    print(f"a {args.deals}-deal match of four first bots, start to last exit (median of {args.runs}): sandbox"
          f" {statistics.median(jailed):.2f} s, plain {statistics.median(plain):.2f} s: {ratio:.2f}x (aim: at most"
          " 1.2x)")
    alone = statistics.median(jailed)
    for how, runs in crowded.items():
        took = statistics.median(t for t, _ in runs)
        rate = statistics.median(spun / t for t, spun in runs)
        print(f"the jailed match beside a jail spinning 8 threads, {how} (median of {args.runs}): {took:.2f} s,"
              f" {took / alone:.2f}x the match alone; the spinner used {rate:.2f} cores meanwhile")


if __name__ == "__main__":
    main()
