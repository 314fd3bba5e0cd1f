"""The build of the engine under test: `make test` runs the rules tests on the source, then on the compiled build."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import president_engine.match
import pytest
from president_engine import PASS, Card, CardSet, Match, Rank, Rules, Suit, build


def test_the_build_under_test_is_the_one_asked_for() -> None:
    """PRESIDENT_ENGINE_BUILD=compiled (`make pytest-compiled`) must mean mypyc's modules are the ones loaded,
    =source (`make pytest`) the source's."""
    compiled = president_engine.match.__file__.endswith((".so", ".pyd"))
    assert compiled == build.current().compiled, president_engine.match.__file__
    wanted = os.environ.get("PRESIDENT_ENGINE_BUILD")
    assert wanted != "compiled" or compiled
    assert wanted != "source" or not compiled


def _fake_build(tmp_path: Path) -> tuple[Path, Path]:
    """A checkout with two sources and a build whose manifest records them."""
    root, out = tmp_path / "checkout", tmp_path / "checkout" / "build" / "engine-compiled"
    sources = {"engine/src/president_engine/cards.py": b"A = 1\n", "sdk/src/president_sdk/bot.py": b"B = 2\n"}
    for name, text in sources.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text)
    out.mkdir(parents=True)
    (out / build.MANIFEST).write_text(json.dumps({"ext_suffix": ".so-here", "sources": {
        name: hashlib.sha256(text).hexdigest() for name, text in sources.items()}}))
    return root, out


def test_a_build_runs_only_while_every_source_it_read_is_unchanged(tmp_path: Path) -> None:
    root, out = _fake_build(tmp_path)
    assert build.choose(out, root, ".so-here") == build.Choice(True, str(out))
    (root / "sdk/src/president_sdk/bot.py").write_bytes(b"B = 3\n")
    stale = build.choose(out, root, ".so-here")
    assert not stale.compiled and "older than sdk/src/president_sdk/bot.py" in stale.why
    (root / "sdk/src/president_sdk/bot.py").unlink()
    assert not build.choose(out, root, ".so-here").compiled


def test_no_build_or_another_pythons_build_runs_the_source(tmp_path: Path) -> None:
    root, out = _fake_build(tmp_path)
    other = build.choose(out, root, ".so-elsewhere")
    assert not other.compiled and "another Python" in other.why
    (out / build.MANIFEST).write_text("{not json")
    assert not build.choose(out, root, ".so-here").compiled
    (out / build.MANIFEST).unlink()
    assert build.choose(out, root, ".so-here").why.startswith("no compiled build")


def _loaded(**env: str) -> subprocess.CompletedProcess[str]:
    script = ("import president_engine.match as m, president_sdk.bots.expert.rollout as r;"
              " from president_engine import build; print(m.__file__, r.__file__); print(build.describe())")
    environment = {k: v for k, v in os.environ.items() if k != build.ENVIRONMENT} | env
    return subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not build.choose().compiled, reason="needs a compiled build made from this source")
def test_a_fresh_compiled_build_is_the_default_and_the_source_runs_when_asked() -> None:
    default = _loaded()
    assert default.returncode == 0, default.stderr
    files, line = default.stdout.splitlines()
    assert all(name.endswith(".so") for name in files.split()) and line == "engine: the compiled build"
    source = _loaded(PRESIDENT_ENGINE_BUILD="source")
    files, line = source.stdout.splitlines()
    assert all(name.endswith(".py") for name in files.split())
    assert line == "engine: the pure-Python source (PRESIDENT_ENGINE_BUILD=source)"


def test_an_unknown_build_asked_for_is_refused_in_one_line() -> None:
    """A typed ImportError for a program that catches it; one line, no traceback, for one that does not."""
    refused = _loaded(PRESIDENT_ENGINE_BUILD="fast")
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "president_engine: PRESIDENT_ENGINE_BUILD='fast': expected source or compiled, or unset for the default"]
    environment = {k: v for k, v in os.environ.items() if k != build.ENVIRONMENT} | {build.ENVIRONMENT: "fast"}
    command = subprocess.run([str(Path(sys.executable).parent / "president-bot"), "--help"], env=environment,
                             capture_output=True, text=True, timeout=60)
    assert (command.returncode, command.stdout) == (1, "")
    assert command.stderr.strip().splitlines() == [
        "president-bot: PRESIDENT_ENGINE_BUILD='fast': expected source or compiled, or unset for the default"]
    caught = subprocess.run([sys.executable, "-c", "try:\n    import president_engine\n"
                             "except ImportError as e:\n    print(type(e).__name__)"],
                            env=environment, capture_output=True, text=True, timeout=60)
    assert (caught.returncode, caught.stdout, caught.stderr) == (0, "BuildChoiceError\n", "")


def test_values_hash_copy_and_pickle_alike_on_this_build() -> None:
    """Frozen values are dict keys and set members (the SDK's bots use them so) and cross processes (ladders
    pickle them): a compiled class must keep all of that."""
    rules = Rules.preset("norwegian")
    match = Match(rules, seed=3)
    for _ in range(20):
        match.apply(match.legal_actions()[-1])
    values: list[object] = [*rules.deck.distinct(), rules, match.hand(0), PASS, *match.legal_actions(),
                            *match.events, *Rank, *Suit]
    for value in values:
        for again in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
            assert again == value and hash(again) == hash(value), value
    for view in (match.observation(1), match.public_observation()):
        for again in (copy.deepcopy(view), pickle.loads(pickle.dumps(view))):
            assert again == view
    made = [Card(Rank.ACE, Suit.SPADES), Card(Rank.ACE, Suit.SPADES), Card.parse("as"), CardSet("AS").distinct()[0]]
    assert len(set(made)) == 1 and all(card == made[0] for card in made)
    assert Card(Rank.ACE, Suit.SPADES) != Card(Rank.ACE, Suit.HEARTS) and Card.parse("AS") != "AS"
