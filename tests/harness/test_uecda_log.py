"""The contest's game log in the reference server's format (shared/UECDA.md section 7), written by hand here from
that section: bridge A's writer gives it byte for byte, and the readers (`GameLog.parse`, ``president uecda
compare``, ``--scenario``) take it and the form bridge A wrote before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from president_engine import Match
from president_harness.uecda.uecda_bridge import contest_rules
from president_harness.uecda.uecda_log import GameLog, LogError, scenario_of
from uecda_support import REFERENCE_LOG as REFERENCE

BIN = Path(sys.executable).parent

def old_form(text: str) -> str:
    """`text` as bridge A wrote logs before: entries back to back, hands joined by single spaces, no end spaces."""
    out = []
    for line in text.splitlines():
        head, _, value = line.rpartition("% ")
        if head.endswith(("change_cards", "play")) and value.strip() != "NULL":
            value = "".join(value.split())
        out.append(f"{head}% {value.strip()}")
    return "\n".join(out) + "\n"


def test_the_reference_format_is_read_and_written_back_byte_for_byte() -> None:
    log = GameLog.parse(REFERENCE)
    assert [game.result for game in log.games] == [(4, 1, 2, 3, 0), (4, 0, 1, 3, 2)]
    assert [len(game.plays) for game in log.games] == [12, 9]
    assert [(giver, taker) for giver, taker, _ in log.games[1].changes] == [(0, 4), (2, 3), (4, 0), (3, 2)]
    assert log.games[1].plays[4][0] == 4 and log.header["palyer_name"] == "default " * 4 + "default"
    written = log.text()
    assert written == REFERENCE.replace("3EE \n", "3EE\n"), "the one play line's end space aside, byte for byte"
    assert written.splitlines()[-2:] == ["%-----%TIME_END% 2026/12/07 18:00:01", "%-----%TOTAL_POINT% 3 6 3 5 10"]


def test_the_old_form_reads_as_the_same_log() -> None:
    """Issue 45: readers that split at spaces failed on bridge A's old form, ours failed on the reference's
    (``invalid literal for int() with base 10: ' '``); each now reads both."""
    old = old_form(REFERENCE)
    assert "%00000%play% 2D3EE3DTEE4C2EE0EE" in old and "%  " not in old
    assert GameLog.parse(old) == GameLog.parse(REFERENCE)


def test_compare_and_scenario_take_a_reference_log(tmp_path: Path) -> None:
    (tmp_path / "reference.log").write_text(REFERENCE)
    (tmp_path / "old.log").write_text(old_form(REFERENCE))
    same = subprocess.run([str(BIN / "president"), "uecda", "compare", "old.log", "reference.log"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert same.returncode == 0 and same.stdout == "president uecda: 2 games, the same game lines\n", same.stderr
    scenario = scenario_of(GameLog.parse(REFERENCE))
    assert scenario[0].seats == (0, 1, 2, 3, 4) and len(scenario[0].hands[4]) == 10
    Match(contest_rules(1), hands=[scenario[0].hands], seats=[scenario[0].seats])  # a deal of the contest's rules


@pytest.mark.parametrize(("line", "text"), [
    ("%00000%play%  2D3EE 3DT", "entries end with EE"),
    ("%00000%play%  2D3EE 3DTZEE", "two characters a card"),
])
def test_a_broken_entry_is_one_line(line: str, text: str) -> None:
    broken = "\n".join(line if original.startswith("%00000%play%") else original
                       for original in REFERENCE.splitlines())
    with pytest.raises(LogError, match=text):
        GameLog.parse(broken)


def test_the_scenario_carries_each_games_result_as_its_pass_order() -> None:
    """Issue 45: a game the reference server's 20-pass rule ended ranked its players holding cards at random;
    the scenario carries each game's result, which the engine follows if the pass limit ends that game again
    (docs/RULES-DECISIONS.md, "The UECda bridges")."""
    scenario = scenario_of(GameLog.parse(REFERENCE))
    assert [deal.pass_order for deal in scenario] == [(4, 1, 2, 3, 0), (4, 0, 1, 3, 2)]
    Match(contest_rules(2), hands=[deal.hands for deal in scenario], seats=[deal.seats for deal in scenario],
          pass_orders=[deal.pass_order for deal in scenario])
    twice = REFERENCE.replace("%00001%result% 40132", "%00001%result% 40134")
    with pytest.raises(LogError, match="game 1: result 40134 is not players 0-4 once each"):
        scenario_of(GameLog.parse(twice))
