"""docs/learning.md states the sizes the code computes: every row of its size tables is recomputed here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from president_engine import Rules
from president_engine.action_space import ActionSpaceError, action_count, action_space
from president_engine.observation_tensor import observation_fields, observation_size

DOC = (Path(__file__).resolve().parents[2] / "docs" / "learning.md").read_text(encoding="utf-8")


def table_rows(first_header: str) -> list[list[str]]:
    """The body rows of the markdown table whose header starts with `first_header`."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def options(text: str) -> dict[str, object]:
    """``decks=2 wild_ranks=6,9 suit_order=D,C,H,S joker_wild=false exchange`` as rule options."""
    out: dict[str, object] = {}
    for token in text.split():
        name, _, value = token.partition("=")
        if not value or value in ("true", "false"):
            out[name] = value != "false"
        else:
            out[name] = value.split(",") if "," in value else int(value) if value.isdigit() else value
    return out


def test_sizes_per_preset() -> None:
    rows = table_rows("preset | players | plays")
    assert len(rows) >= 9
    for preset, players, plays, gives, requests, total, observed in rows:
        rules = Rules.preset(preset, players=int(players))
        space = action_space(rules)
        assert [len(space.plays), len(space.give_backs), len(space.requests), space.size] == [
            int(plays), int(gives), int(requests), int(total)], (preset, players)
        assert observation_size(rules) == int(observed)


def test_sizes_of_larger_options_and_refusals() -> None:
    rows = table_rows("preset | options | actions")
    assert len(rows) >= 8
    for preset, text, actions in rows:
        rules = Rules.preset(preset, **options(text))
        refused = re.fullmatch(r"refused: (\w+) \((\d+)\)", actions)
        if refused is None:
            assert action_space(rules).size == int(actions), text
            continue
        with pytest.raises(ActionSpaceError) as caught:
            action_space(rules)
        assert (caught.value.option, action_count(rules)) == (refused[1], int(refused[2])), text


def test_every_observation_field_is_documented() -> None:
    documented = {row[0].strip("`") for row in table_rows("field | size | value")}
    rules = Rules.preset("italian", suit_order="D C H S", exchange=True)
    assert {f.name for f in observation_fields(rules)} == documented
