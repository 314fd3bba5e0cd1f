"""A bot that raises, hangs or answers illegally gets a clear error, and the match goes on."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from president_engine import PASS, CardSet, Fault, Match, Play, Rank, Rules, fallback_action
from president_sdk import Bot, BotError, builtin_bot, play_local
from president_sdk.guard import decide


class Raises(Bot):
    def play(self, obs):
        raise RuntimeError("oops, a bug")


class Illegal(Bot):
    def play(self, obs):
        return Play(CardSet("JK"))


class Sleepy(Bot):
    def __init__(self) -> None:
        self.release = threading.Event()

    def play(self, obs):
        self.release.wait(5)
        return PASS


def _others() -> list[Bot]:
    return [builtin_bot("easy"), builtin_bot("normal"), builtin_bot("hard")]


@pytest.mark.parametrize(("bot", "words"), [(Raises(), "raised RuntimeError: oops, a bug"),
                                            (Illegal(), "returned an illegal action JK")])
def test_faulty_bot_is_logged_and_replaced(bot: Bot, words: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger=f"president.bot.{bot.name}"):
        result = play_local([bot, *_others()], Rules.preset("cardverse", deals=2), seed=3, strict=False)
    assert result.fault_count > 0
    assert len(result.places) == 2
    messages = [r.getMessage() for r in caplog.records if r.name == f"president.bot.{bot.name}"]
    assert messages and words in messages[0]
    assert "playing" in messages[0] and "instead" in messages[0]


def test_strict_local_play_stops_on_a_fault() -> None:
    with pytest.raises(BotError, match=r"Illegal \(player 0\) answered JK"):
        play_local([Illegal(), *_others()], Rules.preset("cardverse"), seed=3)


def test_a_hanging_bot_runs_out_of_time(caplog: pytest.LogCaptureFixture) -> None:
    match = Match(Rules.preset("cardverse"), seed=1)
    match.apply(match.legal_actions()[0])
    bot = Sleepy()
    started = time.perf_counter()
    with caplog.at_level(logging.ERROR):
        decision = decide(bot, match.observation(match.to_act or 0), timeout=0.2)
    bot.release.set()
    assert time.perf_counter() - started < 2
    obs = match.observation(match.to_act or 0)
    assert decision.action == fallback_action(obs.legal_actions) != PASS  # the easy move: the lowest play
    assert decision.fault is Fault.TIMEOUT and bot.faults == {Fault.TIMEOUT: 1}
    assert f"did not answer within 0.2 s; playing {decision.action} instead" in caplog.text


def test_equivalent_play_is_kept_as_chosen() -> None:
    hands = [[CardSet("3C 3D 3H"), CardSet("4C"), CardSet("5C"), CardSet("6C")]]

    class OtherSuits(Bot):
        def play(self, obs):
            return Play(CardSet("3H 3D"))

    match = Match(Rules.preset("cardverse"), hands=hands)
    decision = decide(OtherSuits(), match.observation(0))
    assert decision.fault is None
    assert decision.action == Play(CardSet("3D 3H"), rank=Rank.THREE)


def _opening():
    match = Match(Rules.preset("cardverse"), seed=1)
    return match, match.observation(match.to_act or 0)


class _Hostile(Play):
    """A Play whose cards cannot be read."""

    @property
    def cards(self) -> CardSet:
        raise RuntimeError("no cards for you")


class _Huge(Bot):
    class Answer:
        def __repr__(self) -> str:
            return "x" * 5_000_000

    def play(self, obs):
        return self.Answer()


class _SlowText(Bot):
    """An illegal play whose text takes longer than the deadline to write."""

    class Answer(Play):
        def __str__(self) -> str:
            time.sleep(3)
            return "slow"

    def play(self, obs):
        return self.Answer(CardSet("JK"))


@pytest.mark.parametrize("timeout", [None, 1.0])
def test_a_play_whose_fields_raise_is_an_invalid_answer_not_a_crash(timeout: float | None) -> None:
    class Bad(Bot):
        def play(self, obs):
            return object.__new__(_Hostile)

    _, obs = _opening()
    decision = decide(Bad(), obs, timeout=timeout)
    assert decision.fault is Fault.INVALID and "whose fields raise RuntimeError" in decision.message


def test_a_huge_answer_is_cut_short_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    _, obs = _opening()
    with caplog.at_level(logging.ERROR):
        decision = decide(_Huge(), obs, timeout=5)
    assert decision.fault is Fault.INVALID
    assert len(caplog.text) < 2_000 and "4,999,800 more characters" in caplog.text


def test_an_answers_slow_text_runs_on_the_bots_time_not_past_the_deadline() -> None:
    _, obs = _opening()
    started = time.perf_counter()
    decision = decide(_SlowText(), obs, timeout=0.5)
    assert decision.fault is Fault.TIMEOUT
    assert time.perf_counter() - started < 2.5  # the 3 s __str__ did not hold up the fallback
