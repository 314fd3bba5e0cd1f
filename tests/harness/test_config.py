"""The ladder file: the example parses; mistakes name their key."""

from __future__ import annotations

from pathlib import Path

import pytest
from president_harness.ladder.config import ConfigError, Format, Seatings, load, parse
from president_sdk.bot_cli import load_bot
from president_sdk.bots import ExpertBot

EXAMPLE = Path(__file__).parents[2] / "examples" / "ladder.toml"


def test_example_parses() -> None:
    config = load(EXAMPLE)
    assert config.format is Format.DUPLICATE and config.players == 4 and config.rules.players == 4
    assert [b.name for b in config.bots] == ["first", "random", "easy", "normal"]
    argv = config.bots[0].argv(server="h:1", account_token="t")
    assert argv[-5:] == ["--server", "h:1", "--account-token", "t", "--quiet"] and config.bots[0].session
    assert config.parallel is None
    assert config.db == EXAMPLE.parent / "../run/example-ladder.db"
    assert config.seatings is Seatings.ALL
    config.check_commands()  # its program is found beside this Python, its bot file exists
    assert config.bots[0].files(config.base) == [EXAMPLE.parent / "python/first_bot.py"]


@pytest.mark.parametrize("preset", ["cardverse", "daifugo", "italian", "norwegian"])
def test_the_expert_ladders_are_issue_28s_bar_in_every_preset(preset: str) -> None:
    """240 duplicate matches of one deal, the built-in levels as shipped, the expert and hard among them."""
    path = EXAMPLE.parent / "expert-ladders" / f"{preset}.toml"
    config = load(path)
    assert (config.preset, config.matches, config.format, config.rules.deals) == (preset, 240, Format.DUPLICATE, 1)
    names = [b.name for b in config.bots]
    assert {"hard", "expert"} <= set(names) and len(names) == config.players == config.rules.players
    assert all(b.builtin for b in config.bots)
    assert f'examples/expert-ladders/{preset}.toml --expect "expert > hard"' in path.read_text()


def test_the_deeper_ladder_plays_the_expert_against_its_search_of_before() -> None:
    path = EXAMPLE.parent / "expert-ladders" / "deeper.toml"
    config = load(path)
    assert [b.name for b in config.bots] == ["normal", "hard", "expert", "before"] and config.matches == 240
    config.check_commands()
    assert config.bots[3].files(config.base) == [path.parent / "expert_of_before.py"]
    before = load_bot(f"{path.parent / 'expert_of_before.py'}:ExpertOfBefore")
    assert isinstance(before, ExpertBot) and (before.budget, before.playouts) == (None, 150)
    assert 'examples/expert-ladders/deeper.toml --expect "expert > before"' in path.read_text()


def test_the_beyond_ladder_plays_the_expert_against_itself_valuing_one_deal() -> None:
    path = EXAMPLE.parent / "expert-ladders" / "beyond.toml"
    config = load(path)
    assert [b.name for b in config.bots] == ["normal", "hard", "expert", "one-deal"] and config.matches == 240
    assert config.rules.deals == 5 and config.format is Format.DUPLICATE
    config.check_commands()
    assert config.bots[3].files(config.base) == [path.parent / "expert_of_one_deal.py"]
    one_deal = load_bot(f"{path.parent / 'expert_of_one_deal.py'}:ExpertOfOneDeal")
    assert isinstance(one_deal, ExpertBot) and not one_deal.beyond_the_deal and ExpertBot().beyond_the_deal
    assert 'examples/expert-ladders/beyond.toml --expect "expert > one-deal"' in path.read_text()


def test_the_workers_ladder_plays_the_builtin_expert_against_itself_alone() -> None:
    path = EXAMPLE.parent / "expert-ladders" / "workers.toml"
    config = load(path)
    assert [b.name for b in config.bots] == ["normal", "hard", "expert", "alone"] and config.matches == 240
    alone = config.bots[3]
    assert alone.session and not alone.concurrent and "builtin:expert" in alone.command
    config.check_commands()
    assert 'examples/expert-ladders/workers.toml --expect "expert > alone"' in path.read_text()


def test_seed_placeholder_and_seatings_default() -> None:
    bot = {"name": "x", "command": ["run", "--seed", "{seed}", "--player", "{player}"]}
    config = parse({"players": 3, "matches": 3, "bots": [bot, {"builtin": "easy"}, {"builtin": "hard"}]},
                   base=Path("."))
    assert config.bots[0].argv(server="s", token="t", match="m", player=1, seed=42) == ["run", "--seed", "42",
                                                                                         "--player", "1"]
    assert config.seatings is Seatings.ALL
    five = parse({"players": 5, "matches": 5, "bots": [{"name": f"b{i}", "builtin": "easy"} for i in range(5)]},
                 base=Path("."))
    assert five.seatings is Seatings.ROTATIONS
    seven = [{"name": f"b{i}", "builtin": "easy"} for i in range(7)]
    with pytest.raises(ConfigError, match="5040 matches") as error:
        parse({"players": 7, "matches": 7, "seatings": "all", "bots": seven}, base=Path("."))
    assert error.value.key == "seatings"
    chosen = parse({"players": 3, "matches": 3, "seatings": "rotations", "bots": config_bots()}, base=Path("."))
    assert chosen.seatings is Seatings.ROTATIONS


def config_bots() -> list[dict[str, str]]:
    return [{"builtin": b} for b in ("easy", "normal", "hard")]


@pytest.mark.parametrize(("data", "key"), [
    ({"matches": 0}, "matches"),
    ({"format": "swiss"}, "format"),
    ({"rules": {"players": 5}}, "rules.players"),
    ({"rules": {"revolution": "maybe"}}, "rules.revolution"),
    ({"bots": [{"builtin": "genius"}]}, "bots[0].builtin"),
    ({"bots": [{"name": "x", "command": "run {port}"}]}, "bots[0].command"),
    ({"colour": "red"}, "colour"),
    ({"seatings": "some"}, "seatings"),
    ({"seatings": 4}, "seatings"),
    ({"clock": {"strikes": -1}}, "clock.strikes"),
    ({"clock": {"move_ms": 10**12}}, "clock.move_ms"),
    ({"clock": {"tempo": 1}}, "clock.tempo"),
])
def test_mistakes_name_their_key(data: dict[str, object], key: str) -> None:
    base: dict[str, object] = {"players": 3, "matches": 3, "bots": config_bots()}
    with pytest.raises(ConfigError) as error:
        parse(base | data, base=Path("."))
    assert error.value.key == key


def test_a_command_whose_program_or_file_is_missing_is_named_before_any_match(tmp_path: Path) -> None:
    def config(command: str) -> None:
        parse({"players": 3, "matches": 3, "bots": [{"name": "mine", "command": command}, {"builtin": "easy"},
                                                     {"builtin": "hard"}]}, base=tmp_path).check_commands()

    with pytest.raises(ConfigError, match="mine: program 'no-such-program' not found") as error:
        config("no-such-program --token {token}")
    assert error.value.key == "bots[0].command"
    with pytest.raises(ConfigError, match=r"mine: no file .*mybot\.py \(paths in a command are relative"):
        config("president-bot mybot.py:MyBot --server {server} --token {token}")
    (tmp_path / "mybot.py").write_text("")
    config("president-bot mybot.py:MyBot --server {server} --token {token}")  # found beside this Python


def test_a_bots_identity_covers_its_files_and_version(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text("one")
    bots = [{"name": "mine", "command": "python3 mybot.py {token}"}, {"builtin": "easy"}, {"builtin": "hard"}]
    first = parse({"players": 3, "matches": 3, "bots": bots}, base=tmp_path)
    before = first.identities()
    (tmp_path / "mybot.py").write_text("two")
    after = first.identities()
    assert before["mine"] != after["mine"] and before["easy"] == after["easy"]
    versioned = parse({"players": 3, "matches": 3, "bots": [{**bots[0], "version": "2"}, *bots[1:]]}, base=tmp_path)
    assert versioned.identities()["mine"] != after["mine"]
    assert first.fingerprint() == versioned.fingerprint()  # the same ladder: only a bot changed
