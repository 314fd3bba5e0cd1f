"""The Node example bot (examples/node/bot.js) plays real matches against the Python server.

The point is the contract: a bot in another language, built from the .proto
alone, plays a seat from the first prompt to MatchOver, through exchanges,
Norwegian requests and a dropped connection, and every action it sent is in
the replay; with an account token it plays several matches at once over one
Session. The other seats are the SDK's built-in bots (easy, normal, random)
playing over gRPC with the SDK's runners.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from kit_support import assert_plays_again
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk import builtin_bot, run
from president_sdk.session_client import SessionClient
from support import node_packages

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
ADMIN = "node-test-admin"
DEALS = 3  # presets play one deal; three make the exchange (and Norwegian requests) happen
NODE_PLAYER = 0
OPPONENTS = ("easy", "normal", "random")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the Node example bot needs Node 18+")

RANK_TEXT = {
    pb.RANK_TWO: "2", pb.RANK_THREE: "3", pb.RANK_FOUR: "4", pb.RANK_FIVE: "5", pb.RANK_SIX: "6", pb.RANK_SEVEN: "7",
    pb.RANK_EIGHT: "8", pb.RANK_NINE: "9", pb.RANK_TEN: "10", pb.RANK_JACK: "J", pb.RANK_QUEEN: "Q",
    pb.RANK_KING: "K", pb.RANK_ACE: "A", pb.RANK_JOKER: "JK",
}
SUIT_TEXT = {pb.SUIT_UNSPECIFIED: "", pb.SUIT_CLUBS: "C", pb.SUIT_DIAMONDS: "D", pb.SUIT_HEARTS: "H",
             pb.SUIT_SPADES: "S"}


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def action_text(action: pb.Action) -> str:
    """The same text the Node bot logs for an action (`turn N: ...` with --verbose)."""

    def cards(cs: Iterable[pb.Card]) -> str:
        return " ".join(RANK_TEXT[c.rank] + SUIT_TEXT[c.suit] for c in cs)

    kind = action.WhichOneof("kind")
    if kind == "play":
        return f"play {cards(action.play.cards)} as {RANK_TEXT[action.play.rank]}"
    if kind == "pass_turn":
        return "pass"
    if kind == "give_back":
        return f"give back {cards(action.give_back.cards)}"
    return f"request {cards(action.request.cards) or 'nothing'}"


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def node_bot() -> Path:
    """examples/node/bot.js with its npm packages installed (`npm ci` when node_modules is missing)."""
    return node_packages()


@dataclass(frozen=True, kw_only=True)
class Server:
    port: int
    stub: pb_grpc.PresidentServiceStub

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`president serve` as a subprocess on a free port, with a temporary database and no clock."""
    tmp = tmp_path_factory.mktemp("server")
    out = tmp / "server.out"
    with out.open("w") as stdout, (tmp / "server.err").open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "president_service", "serve", "--port", "0", "--db", str(tmp / "matches.db"),
             "--admin-token", ADMIN, "--move-ms", "0", "--strikes", "0"],
            stdout=stdout, stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 30
        port = None
        while port is None:
            found = re.search(r"serving on \S+:(\d+)", out.read_text())
            if found:
                port = int(found.group(1))
            elif process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not start:\n{(tmp / 'server.err').read_text()}")
            else:
                time.sleep(0.05)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield Server(port=port, stub=pb_grpc.PresidentServiceStub(channel))
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# ---------------------------------------------------------------------------- players


class BuiltinSeat(threading.Thread):
    """A seat played by one of the SDK's built-in bots over the SDK's gRPC runner."""

    def __init__(self, level: str, seed: int, address: str, token: str) -> None:
        super().__init__(daemon=True)
        self.level, self.seed, self.address, self.token = level, seed, address, token
        self.error: BaseException | None = None
        self.over = False

    def run(self) -> None:
        try:
            run(builtin_bot(self.level, seed=self.seed), self.address, self.token)
            self.over = True
        except BaseException as exc:  # reported by the test
            self.error = exc


@dataclass(frozen=True, kw_only=True)
class Outcome:
    returncode: int
    output: str
    match_id: str
    replay: pb.Replay

    def node_actions(self) -> list[tuple[int, str]]:
        """(turn id, action text) of every action the Node bot sent, from its --verbose log."""
        return [(int(t), text) for t, text in re.findall(r"^\[node-bot p\d+\] turn (\d+): (.*)$", self.output, re.M)]

    def replay_actions(self) -> list[tuple[int, str]]:
        """(player, action text) of every action of the match, in order: turn id n is entry n-1."""
        return [(a.player, action_text(a.action)) for deal in self.replay.deals for a in deal.actions]


def play_match(server: Server, node_bot: Path, preset: str, *, seed: int, extra: tuple[str, ...] = ()) -> Outcome:
    """One full match: the Node bot at NODE_PLAYER, built-in bots at the other seats."""
    created = server.stub.CreateMatch(
        pb.CreateMatchRequest(preset=preset, rules=pb.Rules(deals=DEALS), seed=seed,
                              clock=pb.ClockSettings(move_time_limit_ms=0), seat_names=["node"]),
        metadata=auth(ADMIN), timeout=30,
    )
    tokens = {seat.player: seat.token for seat in created.seats}
    seats = [p for p in sorted(tokens) if p != NODE_PLAYER]
    others = [BuiltinSeat(OPPONENTS[i % len(OPPONENTS)], seed, server.address, tokens[p]) for i, p in enumerate(seats)]
    for other in others:
        other.start()
    node = subprocess.run(
        [str(NODE), str(node_bot), "--server", server.address, "--token", tokens[NODE_PLAYER], "--verbose", *extra],
        capture_output=True, text=True, timeout=300, check=False,
    )
    for other in others:
        other.join(timeout=60)
        assert not other.is_alive(), "a Python seat did not finish"
        assert other.error is None, other.error
        assert other.over
    replay = server.stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id), timeout=30).replay
    return Outcome(returncode=node.returncode, output=node.stdout + node.stderr, match_id=created.match_id,
                   replay=replay)


def assert_every_node_action_accepted(outcome: Outcome) -> None:
    assert outcome.returncode == 0, outcome.output
    over = re.search(r"match over: (.+) wins; points (.+); \d+ actions? accepted", outcome.output)
    assert over is not None, outcome.output
    winner, points = over.groups()
    names = [part.rsplit(" ", 1)[0] for part in points.split(", ")]
    assert winner in names and "(player" not in outcome.output, outcome.output  # named once, as the server does
    assert "rejected:" not in outcome.output, outcome.output
    sent = outcome.node_actions()
    recorded = outcome.replay_actions()
    mine = [(turn, text) for turn, (player, text) in enumerate(recorded, start=1) if player == NODE_PLAYER]
    assert sent == mine, f"the Node bot's actions and the replay differ:\n{outcome.output}"
    accepted = re.search(r"(\d+) actions? accepted, 0 rejected", outcome.output)
    assert accepted is not None and int(accepted.group(1)) == len(sent), outcome.output


# ---------------------------------------------------------------------------- tests


# Seeds (of the deal and of the random seat's draws: the match is the same every time)
# under which the Node seat ends a deal as President or Vice-President, so that
# it gives cards back (and, in Norwegian, names the cards it wants) in a later deal.
# Italian has no exchange.
PRESETS = [
    pytest.param("cardverse", 2, ("give back",), id="cardverse"),
    pytest.param("norwegian", 4, ("give back", "request"), id="norwegian"),
    pytest.param("italian", 11, (), id="italian"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "seed", "exchange"), PRESETS)
def test_node_bot_plays_a_full_match(server: Server, node_bot: Path, preset: str, seed: int,
                                     exchange: tuple[str, ...]) -> None:
    outcome = play_match(server, node_bot, preset, seed=seed)
    assert_every_node_action_accepted(outcome)
    assert len(outcome.replay.deals) == DEALS
    sent = [text for _, text in outcome.node_actions()]
    assert any(text.startswith("play") for text in sent)
    assert "pass" in sent, "the strategy never passed: it is not its own"
    for kind in exchange:
        assert any(text.startswith(kind) for text in sent), f"no '{kind}' in this {preset} match:\n{outcome.output}"


@pytest.mark.slow
def test_node_bot_resumes_after_a_dropped_connection(server: Server, node_bot: Path) -> None:
    outcome = play_match(server, node_bot, "cardverse", seed=5, extra=("--drop-after", "3"))
    assert_every_node_action_accepted(outcome)
    dropped = re.search(r"dropping the connection at turn (\d+)", outcome.output)
    assert dropped is not None, outcome.output
    assert f"prompted again for turn {dropped.group(1)}" in outcome.output, outcome.output


def test_node_bot_exits_non_zero_with_a_clear_message_on_a_bad_token(server: Server, node_bot: Path) -> None:
    result = subprocess.run([str(NODE), str(node_bot), "--server", server.address, "--token", "not-a-token"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "UNAUTHENTICATED BAD_TOKEN" in result.stderr, result.stderr


# ---------------------------------------------------------------------------- many matches over one Session


def account(server: Server, name: str) -> str:
    created = server.stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="node tests"), metadata=auth(ADMIN))
    return str(created.token)


class BuiltinAccounts(threading.Thread):
    """Accounts played by the SDK's built-in bots over Sessions, from one asyncio loop, until `stop`."""

    def __init__(self, address: str, levels: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.address, self.levels = address, levels
        self.stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        async def play() -> None:
            clients = [SessionClient((lambda lv: lambda seed: builtin_bot(lv, seed=seed))(level), token,
                                     server=self.address, threaded=False) for token, level in self.levels.items()]
            tasks = [asyncio.create_task(c.run()) for c in clients]
            while not self.stopping.is_set():
                for task in tasks:
                    if task.done():
                        task.result()
                await asyncio.sleep(0.05)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        try:
            asyncio.run(play())
        except BaseException as exc:  # reported by the test
            self.error = exc


@pytest.mark.slow
def test_node_bot_plays_many_matches_at_once_over_one_session(server: Server, node_bot: Path) -> None:
    """Three matches at once, a dropped connection resumed; every action the Node bot sent is in the replays."""
    names = ["node", "py-easy", "py-normal", "py-random"]
    tokens = {name: account(server, name) for name in names}
    ids = []
    for i in range(3):
        seating = names[i:] + names[:i]
        created = server.stub.CreateMatch(pb.CreateMatchRequest(
            preset="norwegian", rules=pb.Rules(deals=DEALS), seed=40 + i, clock=pb.ClockSettings(move_time_limit_ms=0),
            seat_accounts=seating), metadata=auth(ADMIN), timeout=30)
        ids.append(created.match_id)
    opponents = BuiltinAccounts(server.address, {tokens[n]: n.removeprefix("py-") for n in names[1:]})
    opponents.start()
    try:
        node = subprocess.run(
            [str(NODE), str(node_bot), "--server", server.address, "--account-token", tokens["node"], "--verbose",
             "--matches", "3", "--drop-after", "7"], capture_output=True, text=True, timeout=300, check=False)
    finally:
        opponents.stopping.set()
        opponents.join(30)
    output = node.stdout + node.stderr
    assert node.returncode == 0, output
    assert opponents.error is None, opponents.error
    assert "dropping the connection at turn" in output and "resuming 3" in output, output
    assert "done: 3 matches finished" in output, output
    for match_id in ids:
        replay = server.stub.GetReplay(pb.GetReplayRequest(match_id=match_id), timeout=30).replay
        player = next(p.player for p in server.stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.players
                      if p.account == "node")
        sent = [(int(t), text) for t, text in re.findall(
            rf"^\[node-bot node\] match {match_id} p\d+ turn (\d+): (.*)$", output, re.M)]
        recorded = [(turn, text) for turn, (who, text) in enumerate(
            ((a.player, action_text(a.action)) for deal in replay.deals for a in deal.actions), start=1)
                    if who == player]
        assert sent == recorded, f"match {match_id}:\n{output}"
        assert f"match {match_id} over: player {player}" in output
    assert "rejected:" not in output


def test_node_bot_refuses_a_bad_account_token_with_a_clear_message(server: Server, node_bot: Path) -> None:
    result = subprocess.run([str(NODE), str(node_bot), "--server", server.address, "--account-token", "nope"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "UNAUTHENTICATED BAD_TOKEN: this token is not an account's" in result.stderr, result.stderr


def test_node_bot_plays_a_dev_seats_next_match_with_again(node_bot: Path, tmp_path: Path) -> None:
    assert_plays_again([str(NODE), str(node_bot)], tmp_path, "[node-bot")
