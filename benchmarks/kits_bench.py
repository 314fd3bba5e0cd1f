"""The starter kits' cost (issue 26): each kit's build time and its bot's move round trip, beside the Python SDK's.

A measurement, not a test (run by `make bench-kits`).  Every figure is the median of `--runs` runs; `--kits`
picks the kits (default all: python, go, java, node, cpp; python is always measured, as the floor).  A kit
whose toolchain is missing, or whose build fails, is skipped with one line.

1. **Build**: the kit and protos/ copied to a clean folder as a fresh clone has them, built with its one
   command (`make -C examples/KIT`), wall seconds, once per run.  Node's is `npm ci` in that copy (from npm's
   cache where it can); the Python SDK has no build.  The toolchains' own caches (Go's build cache, npm's) are
   left as they are, so this is a fresh clone's build on a machine that has built before.
2. **Move round trip**: a server (`president serve`, no clock) plays a 4-player cardverse match of `--deals` deals
   per run and kit (the same seed for every kit in a run): seat 0 is the kit's bot, a child process given its seat
   token (`examples/KIT/bot --server HOST:PORT --token T`, `node bot.js ...`, `president-bot
   examples/python/first_bot.py ...`); seats 1-3 are built-in bots (easy, normal, random) run by the SDK's `run` in
   one other child process. An admin Spectate stream in this process stamps every public event as it arrives; the
   server sends them as it applies them. The figure for one move is the time from the event before the kit seat's
   play or pass (the action or deal event that made it the seat's turn) to the event of that play or pass: the
   server's Prompt going out, the kit's bot deciding, its Act coming back and being applied, as the server sees the
   turn. Timed are the play phase's moves (Played, and Passed that are not skipped), not the exchange's (whose turns
   may overlap), and not the seat's first move of a match (which can wait for the bot process to start). Reported per
   kit: the moves timed, their median and 90th percentile in ms, and the ratio to the Python SDK's first bot.
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
from president_harness.child_server import ChildServer
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[1]
KIT_SEAT = 0
OPPONENTS = ("easy", "normal", "random")
JAVA_JARS = ("grpc-netty", "protobuf", "proto-google-common-protos", "guava", "netty-codec-http2", "perfmark-api",
             "gson")


@dataclass(frozen=True)
class Kit:
    name: str
    tools: tuple[str, ...]
    packages: str

    def missing(self) -> list[str]:
        found = [tool for tool in self.tools if shutil.which(tool) is None]
        if self.name == "java":
            found += [f"/usr/share/java/{jar}.jar" for jar in JAVA_JARS
                      if not Path(f"/usr/share/java/{jar}.jar").exists()]
        if self.name == "cpp" and shutil.which("pkg-config") is not None and subprocess.run(
                ["pkg-config", "--exists", "grpc++", "protobuf"], check=False).returncode != 0:
            found.append("the grpc++ and protobuf libraries")
        return found


KITS = {
    "python": Kit("python", (), "the SDK (uv sync)"),
    "go": Kit("go", ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"),
              "golang-go golang-google-grpc-dev protoc-gen-go-grpc golang-goprotobuf-dev protobuf-compiler"),
    "java": Kit("java", ("java", "javac", "jar", "protoc", "grpc_java_plugin"),
                "default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java ..."),
    "node": Kit("node", ("node", "npm"), "nodejs npm"),
    "cpp": Kit("cpp", ("g++", "make", "pkg-config", "protoc", "grpc_cpp_plugin"),
               "g++ make pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"),
}


class BuildError(Exception):
    pass


def build(kit: Kit, work: Path) -> tuple[float | None, list[str]]:
    """Seconds to build a clean copy of the kit (None: no build step), and the bot's command before its flags."""
    if kit.name == "python":
        return None, [str(Path(sys.executable).parent / "president-bot"), str(ROOT / "examples/python/first_bot.py")]
    root = Path(tempfile.mkdtemp(prefix=f"kit-{kit.name}-", dir=work))
    shutil.copytree(ROOT / "protos", root / "protos")
    copy = root / "examples" / kit.name
    shutil.copytree(ROOT / "examples" / kit.name, copy, ignore=shutil.ignore_patterns("build", "bot", "node_modules"))
    command = (["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund"] if kit.name == "node"
               else ["make", "-C", str(copy)])
    started = time.perf_counter()
    done = subprocess.run(command, cwd=copy, capture_output=True, text=True, timeout=900, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise BuildError(f"`{' '.join(command)}` failed: {last}")
    return took, (["node", str(copy / "bot.js")] if kit.name == "node" else [str(copy / "bot")])


def _builtin_seats(address: str, tokens: list[str]) -> None:
    """The child process of the built-in seats: each token's seat played by `run` in a thread."""
    from president_sdk import builtin_bot, run
    errors: list[BaseException] = []

    def seat(level: str, seed: int, token: str) -> None:
        try:
            run(builtin_bot(level, seed=seed), address, token)
        except BaseException as exc:  # reported below
            errors.append(exc)
    threads = [threading.Thread(target=seat, args=(level, 1 + n, token))
               for n, (level, token) in enumerate(zip(OPPONENTS, tokens, strict=True))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"a built-in seat failed: {errors[0]!r}")


def _is_kit_move(event: pb.Event) -> bool:
    kind = event.WhichOneof("kind")
    if kind == "played":
        return event.played.player == KIT_SEAT
    return kind == "passed" and event.passed.player == KIT_SEAT and not event.passed.skipped


def match(server: ChildServer, stub: pb_grpc.PresidentServiceStub, bot: list[str], deals: int, log: Path,
          seed: int) -> list[float]:
    """The kit seat's move times (seconds) in one match, as module docstring part 2 says."""
    admin = (("authorization", f"Bearer {server.admin_token}"),)
    created = stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", rules=pb.Rules(deals=deals), seed=seed),
                               metadata=admin)
    tokens = [seat.token for seat in created.seats]
    arrivals: queue.Queue[tuple[float, pb.SpectateResponse] | None] = queue.Queue()
    stream = stub.Spectate(pb.SpectateRequest(match_id=created.match_id), metadata=admin)

    def watch() -> None:
        try:
            for response in stream:
                arrivals.put((time.perf_counter(), response))
        except grpc.RpcError:
            pass
        arrivals.put(None)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    first = arrivals.get(timeout=30)
    assert first is not None and first[1].WhichOneof("kind") == "snapshot", "Spectate sent no snapshot"
    with log.open("w") as out:
        seats = subprocess.Popen([sys.executable, __file__, "--builtin-seats", server.address, *tokens[1:]],
                                 stdout=out, stderr=subprocess.STDOUT)
        kit = subprocess.Popen([*bot, "--server", server.address, "--token", tokens[KIT_SEAT]],
                               stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            statuses = (kit.wait(600), seats.wait(600))
        finally:
            for process in (kit, seats):
                if process.poll() is None:
                    process.kill()
                    process.wait()
    watcher.join(30)
    stream.cancel()
    if statuses != (0, 0):
        raise SystemExit(f"a bot failed (kit {statuses[0]}, built-in seats {statuses[1]}): "
                         f"{log.read_text()[-2000:]}")
    times, previous, seen_first = [], None, False
    while (item := arrivals.get_nowait()) is not None:
        stamp, response = item
        if response.WhichOneof("kind") != "event":
            continue
        if _is_kit_move(response.event) and previous is not None:
            if seen_first:
                times.append(stamp - previous)
            seen_first = True
        previous = stamp
    return times


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[8] if len(values) > 1 else values[0]


@dataclass
class Figures:
    builds: list[float]
    moves: list[int]
    medians: list[float]
    p90s: list[float]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--kits", default=",".join(KITS), help=f"comma-separated, of {', '.join(KITS)}")
    parser.add_argument("--builtin-seats", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.builtin_seats:
        _builtin_seats(args.builtin_seats[0], args.builtin_seats[1:])
        return
    asked = [name.strip() for name in args.kits.split(",") if name.strip()]
    if unknown := [name for name in asked if name not in KITS]:
        raise SystemExit(f"kits_bench: unknown kit {', '.join(unknown)} (known: {', '.join(KITS)})")
    kits = [KITS["python"]] + [KITS[name] for name in KITS if name in asked and name != "python"]
    present = []
    for kit in kits:
        if missing := kit.missing():
            print(f"{kit.name}: skipped, {', '.join(missing)} not installed (the kit needs {kit.packages})")
        else:
            present.append(kit)
    figures = {kit.name: Figures([], [], [], []) for kit in present}
    with tempfile.TemporaryDirectory(prefix="kits-bench-") as folder:
        work = Path(folder)
        with ChildServer(work / "server.db", ("--move-ms", "0", "--strikes", "0")) as server, \
                grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.PresidentServiceStub(channel)
            for run in range(args.runs):
                for kit in list(present):
                    try:
                        took, bot = build(kit, work)
                    except BuildError as failed:
                        print(f"{kit.name}: skipped, {failed}")
                        present.remove(kit)
                        continue
                    times = match(server, stub, bot, args.deals, work / f"{kit.name}.{run}.log", seed=1000 + run)
                    if not times:
                        raise SystemExit(f"{kit.name}: no move of the kit's seat was timed")
                    got = figures[kit.name]
                    if took is not None:
                        got.builds.append(took)
                    got.moves.append(len(times))
                    got.medians.append(statistics.median(times) * 1000)
                    got.p90s.append(_p90(times) * 1000)
    floor = figures["python"]
    floor_median, floor_p90 = statistics.median(floor.medians), statistics.median(floor.p90s)
    print(f"move round trip: the kit seat's turn as the server applies it (the public event before its play or pass"
          f" to that play's event, on an admin Spectate stream), play phase, seat's first move left out; a"
          f" {args.deals}-deal 4-player cardverse match per run against easy, normal, random; median of {args.runs}"
          f" runs")
    for kit in present:
        got = figures[kit.name]
        built = ("none" if kit.name == "python" else
                 f"{statistics.median(got.builds):.1f} s" + (" (npm ci)" if kit.name == "node" else ""))
        median, p90 = statistics.median(got.medians), statistics.median(got.p90s)
        line = (f"{kit.name}: build {built}; {int(statistics.median(got.moves))} moves timed, median"
                f" {median:.2f} ms, p90 {p90:.2f} ms per move")
        if kit.name == "python":
            line += " (the Python SDK's first bot: the floor)"
        else:
            line += (f"; Python SDK {floor_median:.2f} ms, p90 {floor_p90:.2f} ms: {median / floor_median:.2f}x,"
                     f" p90 {p90 / floor_p90:.2f}x")
        print(line, flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
