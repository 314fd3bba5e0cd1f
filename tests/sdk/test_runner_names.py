"""The runner names the seat it plays (Hello.name), and does not credit a bot with a match that was over before it
connected; against `python -m president_service serve` in a child process."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator

import grpc
import pytest
from president_engine import Event
from president_engine.events import MatchEnded
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk import Bot, EasyBot, MatchAlreadyOverError, builtin_bot, run
from president_sdk.bot_cli import main
from sdk_support import ADMIN, Server
from support import free_port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("sdk-names") / "server.db", free_port())
    yield running
    running.stop()


def _names(server: Server, match_id: str) -> list[str]:
    with grpc.insecure_channel(server.address) as channel:
        found = pb_grpc.PresidentServiceStub(channel).GetMatch(pb.GetMatchRequest(match_id=match_id))
        return [p.name for p in found.match.players]


class Listening(EasyBot):
    """The easy level, keeping every event it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)


@pytest.fixture(scope="module")
def finished(server: Server) -> pb.CreateMatchResponse:
    """A finished match whose seats 0 and 2 were created without names, played by bots that named them (seat 2
    with the runner's `name`) and seat 1 by one whose name its seat's own does not give way to."""
    with grpc.insecure_channel(server.address) as channel:
        created: pb.CreateMatchResponse = pb_grpc.PresidentServiceStub(channel).CreateMatch(
            pb.CreateMatchRequest(preset="cardverse", rules=pb.Rules(deals=1), seed=9, seat_names=["", "b", "", "d"],
                                  clock=pb.ClockSettings()), metadata=(("authorization", f"Bearer {ADMIN}"),))
    bots: list[Bot] = [builtin_bot(level) for level in ("easy", "normal", "hard", "random")]
    outcomes: list[MatchEnded | BaseException] = [RuntimeError("did not finish")] * 4

    def seat(player: int, name: str | None) -> None:
        try:
            outcomes[player] = run(bots[player], server.address, created.seats[player].token, name=name)
        except BaseException as exc:
            outcomes[player] = exc

    threads = [threading.Thread(target=seat, args=(player, name), daemon=True)
               for player, name in enumerate((None, "not shown", "carol", None))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert all(isinstance(r, MatchEnded) for r in outcomes), outcomes
    return created


def test_bots_name_the_seats_created_without_names(server: Server, finished: pb.CreateMatchResponse) -> None:
    assert _names(server, finished.match_id) == ["EasyBot", "b", "carol", "d"]


def test_a_match_over_before_the_bot_connected_is_not_its_result(server: Server,
                                                                 finished: pb.CreateMatchResponse) -> None:
    newcomer = Listening()
    with pytest.raises(MatchAlreadyOverError) as caught:
        run(newcomer, server.address, finished.seats[0].token)
    assert str(caught.value) == (f"match {finished.match_id} was already over when this bot connected;"
                                 " nothing to play")
    assert caught.value.reason == "ALREADY_OVER" and newcomer.events == []

    done = subprocess.run([sys.executable, "-m", "president_sdk.bot_cli", "builtin:easy", "--server", server.address,
                           "--token", finished.seats[1].token], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 3
    assert done.stderr == f"president-bot: {caught.value}\n"
    assert done.stdout == ""


def test_a_name_the_server_would_refuse_is_a_bad_argument(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["builtin:easy", "--server", "127.0.0.1:1", "--token", "t", "--name", "x" * 65]) == 2
    err = capsys.readouterr().err
    assert err.startswith("president-bot: --name: a name is at most 64 printable characters") and err.count("\n") == 1


def test_the_terminal_names_the_winner(server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    """`match over: hard wins` as the server says it, not `player 1 wins; totals 4 11 6 9`."""
    with grpc.insecure_channel(server.address) as channel:
        created: pb.CreateMatchResponse = pb_grpc.PresidentServiceStub(channel).CreateMatch(
            pb.CreateMatchRequest(preset="cardverse", rules=pb.Rules(deals=1), seed=4,
                                  seat_names=["mine", "easy", "normal", "hard"], clock=pb.ClockSettings()),
            metadata=(("authorization", f"Bearer {ADMIN}"),))
    others = [threading.Thread(target=run, args=(builtin_bot(level), server.address, created.seats[p].token),
                               daemon=True) for p, level in ((1, "easy"), (2, "normal"), (3, "hard"))]
    for thread in others:
        thread.start()
    assert main(["builtin:random", "--server", server.address, "--token", created.seats[0].token]) == 0
    for thread in others:
        thread.join(60)
    line = capsys.readouterr().out.splitlines()[-1]
    winner = _names(server, created.match_id)
    assert line.startswith("match over: ") and "player " not in line, line
    said = line.removeprefix("match over: ").split(" wins; points ")[0]
    assert said in winner
    assert [part.rsplit(" ", 1)[0] for part in line.split("; points ")[1].split(";")[0].split(", ")] == winner
