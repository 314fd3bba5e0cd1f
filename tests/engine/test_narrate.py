"""Narration: one line per event; with the preset, roles go by the preset's own names as well (RULES 3)."""

from __future__ import annotations

import pytest
from president_engine import Match, Rules
from president_engine.events import DealStarted
from president_engine.narrate import describe, terminal_language


def _second_deal(preset: str) -> DealStarted:
    match = Match(Rules.preset(preset, deals=2), seed=3)
    while match.deal < 2:
        match.apply(match.legal_actions()[0])
    return [e for e in match.events if isinstance(e, DealStarted)][-1]


def test_roles_go_by_the_presets_local_names_in_its_language() -> None:
    names = ["a", "b", "c", "d", "e"]
    cardverse = describe(_second_deal("cardverse"), names, preset="cardverse", language="hu")
    assert cardverse is not None and "president (Elnök)" in cardverse and "scum (Seggfej)" in cardverse
    italian = describe(_second_deal("italian"), names, preset="italian", language="it")
    assert italian is not None and "president (Presidente)" in italian and "scum (Miserabile)" in italian
    plain = describe(_second_deal("norwegian"), names, language="nb")
    assert plain is not None and "president" in plain and "(" not in plain


def test_an_english_terminal_reads_english_role_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue: `Helyettes seggfej` on an English terminal."""
    english = describe(_second_deal("cardverse"), ["a", "b", "c", "d", "e"], preset="cardverse", language="en")
    assert english is not None and "vice scum" in english and "(" not in english
    for variable in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert terminal_language() == "en"
    line = describe(_second_deal("cardverse"), ["a", "b", "c", "d", "e"], preset="cardverse")
    assert line is not None and "Helyettes" not in line and "Elnök" not in line
    monkeypatch.setenv("LANG", "hu_HU.UTF-8")
    line = describe(_second_deal("cardverse"), ["a", "b", "c", "d", "e"], preset="cardverse")
    assert line is not None and "(Elnök)" in line
