"""The build of the engine under test: `make test` runs the rules tests on the source, then on the compiled wheels."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path

import president_engine.match
import pytest
from president_engine import PASS, Card, CardSet, Match, Rank, Rules, Suit
from president_engine.compiled import is_compiled

ROOT = Path(__file__).resolve().parents[2]


def test_the_build_under_test_is_the_one_asked_for(request: pytest.FixtureRequest) -> None:
    """--engine-build=compiled (`make pytest-compiled`) must mean mypyc's modules are the ones loaded, =source
    (`make pytest-source`) the source's."""
    compiled = president_engine.match.__file__.endswith((".so", ".pyd"))
    assert compiled == is_compiled(), president_engine.match.__file__
    wanted = request.config.getoption("--engine-build")
    assert wanted != "compiled" or compiled
    assert wanted != "source" or not compiled


def _loaded(**env: str) -> list[str]:
    """What a new process imports: the files of the engine's match and the expert's rollout, the build's line, and
    whether importing the engine changed sys.path or loaded more than its own modules."""
    script = ("import sys; before = list(sys.path); import president_engine; import president_engine.match as m,"
              " president_sdk.bots.expert.rollout as r; from president_engine import compiled;"
              " print(m.__file__, r.__file__); print(compiled.describe()); print(sys.path == before)")
    done = subprocess.run([sys.executable, "-c", script], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_importing_the_engine_changes_nothing_but_its_own_modules() -> None:
    """No build is chosen at import: the modules found on sys.path are the ones that run."""
    files, line, unchanged = _loaded()
    assert unchanged == "True"
    compiled = [name.endswith((".so", ".pyd")) for name in files.split()]
    assert compiled == [is_compiled()] * 2, files
    assert line == ("engine: the compiled build" if is_compiled() else
                    f"engine: the pure-Python source ({Path(president_engine.match.__file__).parent})")


def test_the_source_first_on_pythonpath_runs_whatever_the_venv_holds() -> None:
    """`make pytest-source` puts engine/src and sdk/src first: the source runs even where the compiled wheels are
    installed."""
    files, line, _ = _loaded(PYTHONPATH=os.pathsep.join(str(ROOT / p / "src") for p in ("engine", "sdk")))
    assert files.split() == [str(ROOT / "engine/src/president_engine/match.py"),
                             str(ROOT / "sdk/src/president_sdk/bots/expert/rollout.py")]
    assert line == f"engine: the pure-Python source ({ROOT / 'engine/src/president_engine'})"


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
