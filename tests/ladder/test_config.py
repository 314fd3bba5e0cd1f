"""The ladder file: the example parses; mistakes name their key."""

from __future__ import annotations

from pathlib import Path

import pytest
from president_service.ladder.config import ConfigError, Format, load, parse

EXAMPLE = Path(__file__).parents[2] / "examples" / "ladder.toml"


def test_example_parses() -> None:
    config = load(EXAMPLE)
    assert config.format is Format.DUPLICATE and config.players == 4 and config.rules.players == 4
    assert [b.name for b in config.bots] == ["mybot", "easy", "normal", "hard"]
    assert config.bots[0].argv(server="h:1", token="t", match="m", player=2)[-4:] == ["--server", "h:1", "--token", "t"]
    assert config.db == EXAMPLE.parent / "ladder.db"


@pytest.mark.parametrize(("data", "key"), [
    ({"matches": 0}, "matches"),
    ({"format": "swiss"}, "format"),
    ({"rules": {"players": 5}}, "rules.players"),
    ({"rules": {"revolution": "maybe"}}, "rules.revolution"),
    ({"bots": [{"builtin": "genius"}]}, "bots[0].builtin"),
    ({"bots": [{"name": "x", "command": "run {port}"}]}, "bots[0].command"),
    ({"colour": "red"}, "colour"),
])
def test_mistakes_name_their_key(data: dict[str, object], key: str) -> None:
    base: dict[str, object] = {"players": 3, "matches": 3, "bots": [{"builtin": b} for b in ("easy", "normal", "hard")]}
    with pytest.raises(ConfigError) as error:
        parse(base | data, base=Path("."))
    assert error.value.key == key
