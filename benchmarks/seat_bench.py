"""The seat protocol's cost by transport: a move's round trip, server memory per live match, server CPU per move.

A measurement, not a test (run by `make bench-seat`).  Every figure is the
median of `--runs` runs and is given beside a floor measured in the same run:

1. **Round trip per move.**  One 4-player cardverse match of `--deals` deals,
   all four seats clients in this process that answer every prompt at once
   with the first legal action (CreateMatch cannot seat bots the server plays
   itself, so every move is one client round trip: Prompt down, Act up, the
   next Prompt down to the next seat).  The figure is the match's wall time
   per decision, from the first decision after every seat has decided once to
   the last one.  Connected as

   - ``Play, SDK``: four `president_sdk.run` clients in threads (sync gRPC,
     a channel each);
   - ``Session, SDK``: four `SessionClient`s (its defaults: defer_events,
     batch, bots on `BotThreads`) on one event loop, a channel each, and once
     more with ``threaded=False`` (the bot on the loop, as built-in bots run);
   - ``Play, raw`` / ``Session, raw``: the same protocol spoken with bare
     grpc.aio calls (no SDK), which splits the SDK's share from the server's;
     ``Session, raw, no defer`` without defer_events and batch_matches.

   Beside it, where the client sees it at once (not with defer_events), the
   median Act -> ActionAccepted (the round trip `service_bench.py` and
   `arena_bench.py` time), and the CPU of this process (all its threads) per
   move.  The floor is a raw grpc.aio bidirectional ping-pong over loopback
   (a bytes echo server in a child process, a message about a Prompt's size),
   one round trip a move; ``floor, sync client`` is the same echo with the
   sync client's request iterator and response iterator, as `run` uses them.
2. **Server memory per live match**: the RSS growth (/proc/PID/status) of a
   fresh server, warmed by two played matches, once `--matches` matches wait
   on their seats (every seat connected, one prompt open per match, never
   answered), divided by the matches: over one Play stream per seat, and over
   four accounts' Sessions carrying every match (with the SDK's defer_events
   and batch_matches, and without).  The last column is the growth from the
   smaller count to the larger per added match (free of what the warm-up
   leaves to be freed).  Beside it the part already there once the matches
   are created, before any Play stream opens, and the floor: the echo
   server's RSS growth per four open streams.
3. **Server CPU per move**: user + system time of the server (/proc/PID/stat)
   over the whole match of 1. (its creation, connections and end included)
   divided by its decisions; the floor is the echo server's CPU per ping-pong.

The servers run pinned to the first CPU and this process (the clients) to the
others, as `benchmarks/service_bench.py` does (`--no-pin` to let the kernel
place them).  The issue's bars: Session round trip at most Play's, both at most
1.3x the floor; under 15 KB per live match over Sessions, under 100 KB over
Play streams.

    .venv/bin/python benchmarks/seat_bench.py [--runs 5] [--deals 5] [--matches 50 200] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from president_engine import Action, Observation
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk import Bot, run
from president_sdk.session_client import SessionClient
from service_bench import ADMIN, _cpu_s, _ping_pong, _port, _rss_kb, pin_server_core

META = (("authorization", f"Bearer {ADMIN}"),)
PAYLOAD = 160
"""Bytes of the floor's message: about a cardverse Prompt's (a PlayResponse of 120-200 bytes)."""
PINGS = 2000
MEMORY = ("Play", "Session", "Session, no defer")
"""Seats over Play streams; over Sessions with the SDK's defer_events and batch_matches; and without them."""
TRANSPORTS = ("Play, raw", "Play, SDK", "Session, raw", "Session, raw, no defer", "Session, SDK",
              "Session, SDK threaded=False")


class Child:
    """A child process (the game server or the echo server), started and ready."""

    def __init__(self, args: list[str], ready: str, log: Path, cpus: set[int] | None) -> None:
        self.log = log
        with log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, *args], stdout=out, stderr=subprocess.STDOUT,
                env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN))
        if cpus is not None:  # set from here: a preexec_fn would fork under gRPC's threads
            os.sched_setaffinity(self.process.pid, cpus)
        deadline = time.monotonic() + 30
        while ready not in log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{args[0]} did not start:\n{log.read_text()}")
            time.sleep(0.02)
        self.pid = self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def _server(workdir: Path, cpus: set[int] | None) -> tuple[Child, str]:
    port = _port()
    child = Child(["-m", "president_service", "serve", "--port", str(port), "--db", str(workdir / f"{port}.db"),
                   "--account-matches", "1000"], "serving on", workdir / f"{port}.log", cpus)
    return child, f"127.0.0.1:{port}"


# ---------------------------------------------------------------------------- the floor


def _ping_pong_sync(address: str, pings: int) -> float:
    """The same with the sync client, a queue feeding the request iterator as `run` does."""
    outbox: queue.Queue[bytes | None] = queue.Queue()
    with grpc.insecure_channel(address) as channel:
        echo: Any = channel.stream_stream("/bench.Echo/Echo")
        responses = echo(iter(outbox.get, None))
        times = []
        payload = b"x" * PAYLOAD
        for _ in range(pings):
            start = time.perf_counter()
            outbox.put(payload)
            next(responses)
            times.append(time.perf_counter() - start)
        outbox.put(None)
        responses.cancel()
    return statistics.median(times[pings // 10:])


async def _echo_streams_kb(address: str, pid: int, streams: int) -> float:
    """RSS growth of the echo server per four open bidirectional streams, in KB."""
    async with grpc.aio.insecure_channel(address) as channel:
        echo: Any = channel.stream_stream("/bench.Echo/Echo")
        before = _rss_kb(pid)
        calls = []
        for _ in range(streams):
            call = echo()
            await call.write(b"x" * PAYLOAD)
            await call.read()
            calls.append(call)
        await asyncio.sleep(0.3)
        grown = _rss_kb(pid) - before
        for call in calls:
            call.cancel()
    return grown / streams * 4


# ---------------------------------------------------------------------------- one timed match


@dataclass
class Decisions:
    """When each seat decided: the round trips of a match."""

    times: list[tuple[float, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    """(player, turn id) -> when its Act went (raw clients)."""
    accepted: list[float] = field(default_factory=list)
    """Act sent -> its ActionAccepted received, seconds (raw clients that get the acceptance at once)."""

    def mark(self, player: int, turn_id: int = 0) -> None:
        with self.lock:
            now = time.perf_counter()
            self.times.append((now, player))
            self.sent[player, turn_id] = now

    def accept(self, player: int, turn_id: int) -> None:
        sent = self.sent.pop((player, turn_id), None)
        if sent is not None:
            self.accepted.append(time.perf_counter() - sent)

    def per_move(self) -> float:
        """Seconds per decision, from the first decision after every seat has decided once to the last."""
        seen: set[int] = set()
        start = 0
        for i, (_, player) in enumerate(self.times):
            seen.add(player)
            if len(seen) == 4:
                start = i
                break
        window = self.times[start:]
        return (window[-1][0] - window[0][0]) / (len(window) - 1)


class FirstLegal(Bot):
    """Answers at once with the first legal action; no event hooks (the drivers convert no events)."""

    def __init__(self, decisions: Decisions) -> None:
        self.decisions = decisions

    def decide(self, obs: Observation) -> Action:
        self.decisions.mark(self.player)
        return obs.legal_actions[0]

    def play(self, obs: Observation) -> Action:
        return obs.legal_actions[0]


async def _create_accounts(stub: Any, prefix: str) -> list[tuple[str, str]]:
    accounts = []
    for seat in range(4):
        created = await stub.CreateAccount(pb.CreateAccountRequest(name=f"{prefix}{seat}", owner="bench"),
                                           metadata=META)
        accounts.append((created.account.name, created.token))
    return accounts


def _match_request(seed: int, deals: int, accounts: list[str] | None = None) -> pb.CreateMatchRequest:
    return pb.CreateMatchRequest(preset="cardverse", seed=seed, rules=pb.Rules(deals=deals),
                                 clock=pb.ClockSettings(move_time_limit_ms=0, time_bank_ms=0,
                                                        strikes_before_takeover=0),
                                 seat_accounts=accounts or [])


async def _raw_play_seat(stub: Any, token: str, decisions: Decisions, player: int,
                         hold: asyncio.Event | None = None, connected: asyncio.Event | None = None) -> None:
    """One seat over a bare Play stream; with `hold`, prompts are left open until it is set (then it leaves)."""
    call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    await call.write(pb.PlayRequest(hello=pb.Hello()))
    while (message := await call.read()) is not grpc.aio.EOF:
        kind = message.WhichOneof("kind")
        if hold is not None:
            if kind == "snapshot":
                break
            continue
        if kind == "prompt":
            decisions.mark(player, message.prompt.turn_id)
            await call.write(pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id,
                                                       action=message.prompt.legal_actions[0])))
        elif kind == "action_accepted":
            decisions.accept(player, message.action_accepted.turn_id)
        elif kind == "match_over":
            break
    if hold is not None:
        if connected is not None:
            connected.set()
        await hold.wait()
    call.cancel()


class RawSession:
    """One account's bare Session (defer_events and batch_matches, as the SDK asks, unless `defer` is False):
    answers the prompts of the matches in `answer` (every match when None), holds the others' open; counts the
    matches seen."""

    def __init__(self, stub: Any, token: str, decisions: Decisions, answer: set[str] | None = None, *,
                 defer: bool = True) -> None:
        self.decisions = decisions
        self.answer = answer
        self.defer = defer
        self.seen: set[str] = set()
        self.finished: set[str] = set()
        self.welcomed = asyncio.Event()
        self.player: dict[str, int] = {}
        self._outbox: asyncio.Queue[pb.SessionRequest] = asyncio.Queue()
        self._outbox.put_nowait(pb.SessionRequest(hello=pb.SessionHello(
            accepts=pb.Appetite(max_matches=1000), defer_events=defer, batch_matches=defer)))
        self.task = asyncio.ensure_future(self._run(stub, token))

    async def _requests(self) -> AsyncIterator[pb.SessionRequest]:
        while True:
            yield await self._outbox.get()

    async def _run(self, stub: Any, token: str) -> None:
        call = stub.Session(self._requests(), metadata=(("authorization", f"Bearer {token}"),))
        async for response in call:
            kind = response.WhichOneof("kind")
            if kind == "welcome":
                self.welcomed.set()
            updates = [response.match] if kind == "match" else list(response.updates.updates) \
                if kind == "updates" else []
            acts = []
            for update in updates:
                self.seen.add(update.match_id)
                for message in update.messages:
                    if message.HasField("welcome"):
                        self.player[update.match_id] = message.welcome.player
                    elif message.HasField("prompt") and (self.answer is None or update.match_id in self.answer):
                        self.decisions.mark(self.player[update.match_id], message.prompt.turn_id)
                        acts.append(pb.MatchAct(match_id=update.match_id, act=pb.Act(
                            turn_id=message.prompt.turn_id, action=message.prompt.legal_actions[0])))
                    elif message.HasField("action_accepted") and not self.defer:  # deferred: not a round trip
                        self.decisions.accept(self.player[update.match_id], message.action_accepted.turn_id)
                    elif message.HasField("match_over"):
                        self.finished.add(update.match_id)
            if len(acts) > 1:
                await self._outbox.put(pb.SessionRequest(acts=pb.MatchActs(acts=acts)))
            elif acts:
                await self._outbox.put(pb.SessionRequest(act=acts[0]))


def _all_finished(sessions: list[RawSession], match_id: str) -> bool:
    return all(match_id in s.finished for s in sessions)


def _all_seen(sessions: list[RawSession], matches: int) -> bool:
    return all(len(s.seen) >= matches for s in sessions)


async def _until(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


async def _match_raw_play(stub: Any, deals: int, seed: int, decisions: Decisions) -> None:
    created = await stub.CreateMatch(_match_request(seed, deals), metadata=META)
    await asyncio.gather(*(_raw_play_seat(stub, seat.token, decisions, seat.player) for seat in created.seats))


def _match_sdk_play(address: str, deals: int, seed: int, decisions: Decisions) -> None:
    """Four `run` clients in threads, each with its own channel, as four bot processes would have."""
    with grpc.insecure_channel(address) as channel:
        created = pb_grpc.PresidentServiceStub(channel).CreateMatch(_match_request(seed, deals), metadata=META)
    errors: list[BaseException] = []

    def seat(token: str) -> None:
        try:
            run(FirstLegal(decisions), address, token)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=seat, args=(s.token,), daemon=True) for s in created.seats]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    if errors:
        raise errors[0]


async def _match_raw_session(stub: Any, deals: int, seed: int, decisions: Decisions, prefix: str,
                             defer: bool) -> None:
    accounts = await _create_accounts(stub, prefix)
    sessions = [RawSession(stub, token, decisions, defer=defer) for _, token in accounts]
    await asyncio.gather(*(s.welcomed.wait() for s in sessions))
    created = await stub.CreateMatch(_match_request(seed, deals, [name for name, _ in accounts]), metadata=META)
    await _until(functools.partial(_all_finished, sessions, created.match_id), "the raw Session match")
    await _cancel([s.task for s in sessions])


async def _match_sdk_session(address: str, stub: Any, deals: int, seed: int, decisions: Decisions, prefix: str,
                             threaded: bool) -> None:
    """Four `SessionClient`s on this loop, each with its own channel."""
    accounts = await _create_accounts(stub, prefix)
    finished: list[str] = []
    clients = [SessionClient(lambda _seed: FirstLegal(decisions), token, server=address, threaded=threaded,
                             on_finished=lambda match: finished.append(match.match_id)) for _, token in accounts]
    tasks = [asyncio.ensure_future(client.run()) for client in clients]
    await _until(lambda: all(client.account for client in clients), "the Sessions' welcome")
    await stub.CreateMatch(_match_request(seed, deals, [name for name, _ in accounts]), metadata=META)
    await _until(lambda: len(finished) == 4, "the SDK Session match")
    await _cancel(tasks)


async def _cancel(tasks: list[asyncio.Task[None]] | list[asyncio.Future[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _timed_match(transport: str, address: str, pid: int, deals: int, seed: int) -> dict[str, float]:
    """Seconds per decision, server and client (this process, all threads) CPU seconds per decision, decisions,
    and the median Act -> ActionAccepted (NaN where the client does not see it at once)."""
    decisions = Decisions()
    prefix = f"b{time.time_ns() % 10**12}"
    async with grpc.aio.insecure_channel(address) as channel:
        stub: Any = pb_grpc.PresidentServiceStub(channel)
        cpu, client_cpu = _cpu_s(pid), time.process_time()
        if transport == "Play, raw":
            await _match_raw_play(stub, deals, seed, decisions)
        elif transport == "Play, SDK":
            await asyncio.to_thread(_match_sdk_play, address, deals, seed, decisions)
        elif transport.startswith("Session, raw"):
            await _match_raw_session(stub, deals, seed, decisions, prefix, defer="no defer" not in transport)
        else:
            await _match_sdk_session(address, stub, deals, seed, decisions, prefix,
                                     threaded="False" not in transport)
        cpu, client_cpu = _cpu_s(pid) - cpu, time.process_time() - client_cpu
    moves = len(decisions.times)
    return {"rtt": decisions.per_move(), "cpu": cpu / moves, "client cpu": client_cpu / moves, "moves": moves,
            "accepted": statistics.median(decisions.accepted) if decisions.accepted else float("nan")}


# ---------------------------------------------------------------------------- memory per live match


async def _memory(address: str, pid: int, transport: str, counts: list[int]) -> dict[int, tuple[float, float]]:
    """For each cumulative count of waiting matches, the server's RSS growth in KB: with every seat connected,
    and once the matches are created, before any stream opens (Play only; NaN for Sessions, which are open)."""
    options = [("grpc.max_receive_message_length", 16 * 1024 * 1024)]
    async with grpc.aio.insecure_channel(address, options=options) as channel:
        stub: Any = pb_grpc.PresidentServiceStub(channel)
        hold = asyncio.Event()
        holders: list[asyncio.Future[None]] = []
        sessions: list[RawSession] = []
        names: list[str] = []
        warm = Decisions()
        if transport.startswith("Session"):  # the Sessions open first; two played matches warm the server
            accounts = await _create_accounts(stub, f"m{time.time_ns() % 10**12}")
            names = [name for name, _ in accounts]
            sessions = [RawSession(stub, token, warm, defer="no defer" not in transport) for _, token in accounts]
            await asyncio.gather(*(s.welcomed.wait() for s in sessions))
            for seed in (-1, -2):
                warmup: str = (await stub.CreateMatch(_match_request(seed % 1000, 1, names), metadata=META)).match_id
                await _until(functools.partial(_all_finished, sessions, warmup), "the warm-up match")
            for s in sessions:
                s.answer = set()  # from now on every prompt stays open
        else:
            for seed in (-1, -2):
                created = await stub.CreateMatch(_match_request(seed % 1000, 1), metadata=META)
                await asyncio.gather(*(_raw_play_seat(stub, s.token, warm, s.player) for s in created.seats))
        await asyncio.sleep(0.3)
        before = _rss_kb(pid)
        made = 0
        figures = {}
        for count in counts:
            ids = []
            for seed in range(made + 1, count + 1):
                # Sessions: created with the accounts' seats; every match goes out to the open Sessions at once.
                ids.append(await stub.CreateMatch(_match_request(seed, 1, names or None), metadata=META))
            created_kb = float(_rss_kb(pid) - before) if transport == "Play" else float("nan")
            if transport == "Play":
                for response in ids:
                    flags = [asyncio.Event() for _ in response.seats]
                    holders += [asyncio.ensure_future(_raw_play_seat(stub, seat.token, warm, seat.player, hold, flag))
                                for seat, flag in zip(response.seats, flags, strict=True)]
                    await asyncio.gather(*(flag.wait() for flag in flags))
            else:
                await _until(functools.partial(_all_seen, sessions, count + 2), "the Sessions' matches")
            made = count
            await asyncio.sleep(0.5)
            figures[count] = (float(_rss_kb(pid) - before), created_kb)
        hold.set()
        await asyncio.gather(*holders)
        await _cancel([s.task for s in sessions])
    return figures


# ---------------------------------------------------------------------------- one run


async def one_run(args: argparse.Namespace, workdir: Path, cpus: set[int] | None, run_no: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    echo_port = _port()
    echo_server = str(Path(__file__).with_name("service_bench.py"))  # its echo server: one floor for both
    echo = Child([echo_server, "--echo", str(echo_port)], "echo ready", workdir / f"echo{echo_port}.log", cpus)
    echo_address = f"127.0.0.1:{echo_port}"
    try:
        cpu = _cpu_s(echo.pid)
        figures["floor rtt"] = await _ping_pong(echo_port, args.pings, PAYLOAD) / 1000
        figures["floor cpu"] = (_cpu_s(echo.pid) - cpu) / args.pings
        figures["floor sync rtt"] = await asyncio.to_thread(_ping_pong_sync, echo_address, args.pings)
        figures["floor kb"] = await _echo_streams_kb(echo_address, echo.pid, 4 * max(args.matches))
    finally:
        echo.stop()
    started = time.perf_counter()
    server, address = _server(workdir, cpus)
    try:
        for i, transport in enumerate(TRANSPORTS):
            timed = await _timed_match(transport, address, server.pid, args.deals, 100 * run_no + i)
            figures |= {f"{transport} {key}": value for key, value in timed.items()}
    finally:
        server.stop()
    timed_s = time.perf_counter() - started
    for transport in MEMORY:
        server, address = _server(workdir, cpus)
        try:
            memory = await _memory(address, server.pid, transport, args.matches)
        finally:
            server.stop()
        for count, (live, created) in memory.items():
            figures[f"{transport} kb {count}"] = live / count
            figures[f"{transport} created kb {count}"] = created / count
        low, high = args.matches[0], args.matches[-1]
        if high > low:  # the growth from the smaller count to the larger: no warm-up leftovers in it
            figures[f"{transport} kb marginal"] = (memory[high][0] - memory[low][0]) / (high - low)
            figures[f"{transport} created kb marginal"] = (memory[high][1] - memory[low][0]) / (high - low)
    floor = figures["floor rtt"]
    print(f"  run {run_no} ({timed_s:.0f} s timed matches, {time.perf_counter() - started - timed_s:.0f} s memory):"
          f" floor {floor * 1e6:.0f} us; "
          + ", ".join(f"{t} {figures[f'{t} rtt'] * 1e6:.0f} us ({figures[f'{t} rtt'] / floor:.2f}x)"
                      for t in TRANSPORTS)
          + "; KB/match " + ", ".join(f"{t} {figures[f'{t} kb {n}']:.1f} at {n}"
                                      for t in MEMORY for n in args.matches), flush=True)
    return figures


def report(runs: list[dict[str, float]], args: argparse.Namespace) -> list[str]:
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    floor, floor_cpu = med["floor rtt"], med["floor cpu"]
    sync = med["floor sync rtt"]

    def ratio(key: str, floor_key: str = "floor rtt") -> float:
        """The median over the runs of each run's ratio to its own floor."""
        return statistics.median(r[key] / r[floor_key] for r in runs)

    lines = [f"medians of {len(runs)} run(s) (x floor: of each run's ratio to its own floor);"
             f" 4-player cardverse, {args.deals} deal(s) a match (about {med['Play, raw moves']:.0f} decisions),"
             " first legal action at once:", "",
             f"  {'':<30} {'per move':>9} {'':>7}   {'Act->Accepted':>13} {'':>7}   {'server CPU':>10} {'':>7}"
             f"   {'client CPU':>10}",
             f"  {'':<30} {'us':>9} {'x floor':>7}   {'us':>13} {'x floor':>7}   {'us/move':>10} {'x floor':>7}"
             f"   {'us/move':>10}",
             f"  {'floor: grpc.aio ping-pong':<30} {floor * 1e6:9.0f} {1:7.2f}   {floor * 1e6:13.0f} {1:7.2f}"
             f"   {floor_cpu * 1e6:10.0f} {1:7.1f}",
             f"  {'floor, sync client':<30} {sync * 1e6:9.0f} {ratio('floor sync rtt'):7.2f}"]
    for transport in TRANSPORTS:
        rtt, cpu, accepted = med[f"{transport} rtt"], med[f"{transport} cpu"], med[f"{transport} accepted"]
        shown = (f"{accepted * 1e6:13.0f} {ratio(f'{transport} accepted'):7.2f}" if accepted == accepted
                 else f"{'-':>13} {'':>7}")
        lines.append(f"  {transport:<30} {rtt * 1e6:9.0f} {ratio(f'{transport} rtt'):7.2f}   {shown}"
                     f"   {cpu * 1e6:10.0f} {ratio(f'{transport} cpu', 'floor cpu'):7.1f}"
                     f"   {med[f'{transport} client cpu'] * 1e6:10.0f}")
    marginal = len(args.matches) > 1
    span = f" {f'{args.matches[0]}->{args.matches[-1]}':>11}" if marginal else ""
    lines += ["", f"  {'server memory per live match, KB':<38} "
              + " ".join(f"{f'{n} matches':>11}" for n in args.matches) + span]
    for transport in MEMORY:
        lines.append(f"  {transport + ' (every seat connected)':<38} "
                     + " ".join(f"{med[f'{transport} kb {n}']:11.1f}" for n in args.matches)
                     + (f" {med[f'{transport} kb marginal']:11.1f}" if marginal else ""))
    lines.append(f"  {'Play: of which the matches alone':<38} "
                 + " ".join(f"{med[f'Play created kb {n}']:11.1f}" for n in args.matches)
                 + (f" {med['Play created kb marginal']:11.1f}" if marginal else ""))
    lines.append(f"  {'floor: echo server, 4 open streams':<38} {med['floor kb']:11.1f}")
    play, session = ratio("Play, SDK rtt"), ratio("Session, SDK rtt")
    most = args.matches[-1]
    play_kb, session_kb = med[f"Play kb {most}"], med[f"Session kb {most}"]
    if marginal:  # met only when the per-added-match growth is under the bar too
        play_kb, session_kb = max(play_kb, med["Play kb marginal"]), max(session_kb, med["Session kb marginal"])

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    lines += ["", f"bars (SDK clients' round trip per move; memory: the larger of the figure at {most} matches"
              " and the growth per added match):",
              f"  Session round trip at most Play's: {session:.2f}x vs {play:.2f}x {met(session <= play)}",
              f"  Play at most 1.3x the floor: {play:.2f}x {met(play <= 1.3)};"
              f" Session at most 1.3x: {session:.2f}x {met(session <= 1.3)}",
              f"  under 15 KB per match over Sessions: {session_kb:.1f} KB {met(session_kb < 15)};"
              f" under 100 KB over Play streams: {play_kb:.1f} KB {met(play_kb < 100)}"]
    return lines


async def _runs(args: argparse.Namespace, workdir: Path, cpus: set[int] | None) -> list[dict[str, float]]:
    return [await one_run(args, workdir, cpus, r) for r in range(1, args.runs + 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--deals", type=int, default=5, help="deals of each timed match")
    parser.add_argument("--matches", type=int, nargs="+", default=[50, 200], help="live matches for the memory")
    parser.add_argument("--pings", type=int, default=PINGS, help="round trips of the floor")
    parser.add_argument("--quick", action="store_true", help="one short run (a smoke test)")
    parser.add_argument("--no-pin", action="store_true", help="do not keep servers and clients on separate CPUs")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.deals, args.matches, args.pings = 1, 1, [5, 20], 300
    args.matches = sorted(set(args.matches))
    cpus = pin_server_core(args.no_pin)
    if cpus is not None:
        others = ",".join(map(str, sorted(os.sched_getaffinity(0))))
        print(f"servers on CPU {min(cpus)}, clients on CPU {others}", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="seat-bench-") as tmp:
        runs = asyncio.run(_runs(args, Path(tmp), cpus))
    print("\n".join(report(runs, args)))
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
