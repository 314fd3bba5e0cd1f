"""`ContestCommand`: a contest client program plays a seat of ours, started for its match (president_sdk.uecda.seat).

The client program here is bridge B (``president-bot BOT --uecda HOST:PORT``), a real process over real TCP."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from president_engine import MatchRecord, Rules
from president_sdk.bots import builtin_bot
from president_sdk.local import BotError, play_local
from president_sdk.uecda import seat as uecda_seat
from president_sdk.uecda.seat import ContestCommand

PRESIDENT_BOT = str(Path(sys.executable).with_name("president-bot"))
LEVELS = ("hard", "normal", "easy", "hard", "normal")


def contest_bot(level: str, seed: int) -> ContestCommand:
    return ContestCommand([PRESIDENT_BOT, f"builtin:{level}", "--uecda", "{host}:{port}", "--seed", str(seed)])


def actions(match: MatchRecord) -> list[object]:
    return [action for deal in match.deals for action in deal.actions]


def test_a_contest_client_plays_its_seat_as_its_bot_plays_it_directly() -> None:
    """Two seats played by contest client programs make every move their bots make in-process: the tables
    lose nothing a bot decides on, and the programs exit when the match ends."""
    rules = Rules.preset("daifugo", deals=3)
    bots = [contest_bot("hard", 0), builtin_bot("normal", seed=1), builtin_bot("easy", seed=2),
            contest_bot("hard", 3), builtin_bot("normal", seed=4)]
    played = play_local(bots, rules, seed=31)
    direct = play_local([builtin_bot(level, seed=n) for n, level in enumerate(LEVELS)], rules, seed=31)
    assert actions(MatchRecord.from_match(played.match)) == actions(MatchRecord.from_match(direct.match))
    assert played.match.scores == direct.match.scores
    assert bots[0].name == "HardBot"  # the client's profile name
    reaped = time.monotonic() + 10
    while uecda_seat._running and time.monotonic() < reaped:  # the programs exit once their match is over
        time.sleep(0.05)
    assert not uecda_seat._running


def test_a_table_the_contest_has_no_cells_for_is_refused() -> None:
    with pytest.raises(BotError, match="cannot take its seat: a contest client plays 5 players and at most one"):
        play_local([contest_bot("easy", 0)] + [builtin_bot("easy") for _ in range(3)], Rules.preset("cardverse"))


def test_a_client_that_exits_or_sends_no_profile_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules.preset("daifugo", deals=1)
    others = [builtin_bot("easy") for _ in range(4)]
    with pytest.raises(BotError, match="exited with status 3 before it connected"):
        play_local([ContestCommand([sys.executable, "-c", "raise SystemExit(3)"]), *others], rules)
    monkeypatch.setattr(uecda_seat, "CONNECT_S", 1.0)
    silent = ("import socket, sys, time; s = socket.create_connection((sys.argv[2], int(sys.argv[4])));"
              " time.sleep(30)")
    with pytest.raises(BotError, match="did not connect and send a profile in 1 s"):
        play_local([ContestCommand([sys.executable, "-c", silent]), *others], rules)
    with pytest.raises(BotError, match="cannot start"):
        play_local([ContestCommand(["/nonexistent/client"]), *others], rules)
    assert not uecda_seat._running


def test_president_bot_names_a_missing_client_program_in_one_line() -> None:
    run = subprocess.run([PRESIDENT_BOT, "uecda:no-such-client -x", "--token", "t"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == ["president-bot: uecda: no program 'no-such-client' (a path, or a"
                                               " command on PATH)"]


def test_every_seat_shows_a_play_as_its_client_wrote_it() -> None:
    """UECDA 3.2c: the table-after-move shows the play as written, to all five players (a lone joker written at
    [1][0] stayed [1][0] only for the first seat to show it; the others showed [0][14])."""
    from president_engine import JOKER, CardSet, Play, Suit
    from president_sdk.uecda.seat import WRITTEN_KEPT, Journal, Submission
    from president_sdk.uecda.table import CardCells, JokerCell, encode_cards

    journal = Journal()
    written = CardCells(joker=JokerCell(Suit.HEARTS, 0))
    journal.add(7, Submission(1, 2, encode_cards(written), written, True))
    lone = Play(CardSet([JOKER]))
    assert [journal.cells(7, lone) for _ in range(5)] == [written] * 5
    journal.add(7 + WRITTEN_KEPT, Submission(1, 3, encode_cards(written), written, True))
    assert journal.cells(7, lone) != written, "kept for a few moves, not for the match"
