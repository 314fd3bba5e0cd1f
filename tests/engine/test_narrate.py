"""Narration: one line per event; with the preset, roles go by the preset's own names as well (RULES 3)."""

from __future__ import annotations

from president_engine import Match, Rules
from president_engine.events import DealStarted
from president_engine.narrate import describe


def _second_deal(preset: str) -> DealStarted:
    match = Match(Rules.preset(preset, deals=2), seed=3)
    while match.deal < 2:
        match.apply(match.legal_actions()[0])
    return [e for e in match.events if isinstance(e, DealStarted)][-1]


def test_roles_go_by_the_presets_local_names() -> None:
    names = ["a", "b", "c", "d", "e"]
    cardverse = describe(_second_deal("cardverse"), names, preset="cardverse")
    assert cardverse is not None and "president (Elnök)" in cardverse and "scum (Seggfej)" in cardverse
    italian = describe(_second_deal("italian"), names, preset="italian")
    assert italian is not None and "president (Presidente)" in italian and "scum (Miserabile)" in italian
    plain = describe(_second_deal("norwegian"), names)
    assert plain is not None and "president" in plain and "(" not in plain
