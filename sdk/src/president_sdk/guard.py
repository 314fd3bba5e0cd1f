"""Asking a bot for an action without letting its faults stop the match.

A bot that raises, takes longer than the deadline, or answers with an illegal
action gets a clear error in its own log (``bot.log``), and the match goes on
with the easy level's move (the engine's `fallback_action`), as the server
plays for a seat that runs out of time.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass
from typing import Any

from president_engine import Action, Event, Fault, GiveBack, Observation, Pass, Play, Request, fallback_action

from president_sdk.bot import Bot
from president_sdk.bot_threads import BotThreads
from president_sdk.legal import resolve

THREADS = BotThreads()
"""Where bots think under a deadline: threads reused from one decision to the next, in every runner."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Decision:
    action: Action
    """The action to submit: the bot's own, or the fallback."""
    fault: Fault | None = None
    """Why the bot's answer was replaced; None when it was used."""
    message: str = ""
    """What went wrong, in words (also written to the bot's log)."""


def decide(bot: Bot, obs: Observation, *, timeout: float | None = None) -> Decision:
    """The bot's legal answer, or a safe fallback with the fault logged to the bot's log.

    With a `timeout` the bot thinks in one of the reused `BotThreads`, and one still thinking then is left to it."""
    if timeout is None:
        try:
            answer: object = bot.decide(obs)
        except Exception as exc:
            return replace_answer(bot, obs, Fault.ERROR, f"raised {type(exc).__name__}: {exc}",
                                  traceback.format_exc())
        return judge(bot, obs, answer)
    thinking = think(bot, obs)
    if isinstance(thinking, Decision):
        return thinking
    wait([thinking], timeout=timeout)
    return outcome(bot, obs, thinking, timeout)


def think(bot: Bot, obs: Observation, events: Sequence[tuple[Any, Event]] = ()) -> Future[object] | Decision:
    """Hand the bot `events` (as `notify_all`), then start its decision in a `BotThreads` thread; the fallback at once
    when no thread can be had (a bot that used up the process's threads)."""
    def work() -> object:
        notify_all(bot, events)
        return bot.decide(obs)

    try:
        return THREADS.submit(work)
    except RuntimeError as exc:
        return replace_answer(bot, obs, Fault.ERROR, f"left no thread to think in ({exc})")


def outcome(bot: Bot, obs: Observation, thinking: Future[object], waited: float) -> Decision:
    """The decision once the wait for `thinking` (`waited` seconds) is over: its legal answer, else the fallback
    for the fault."""
    if not thinking.done():
        thinking.cancel()
        return replace_answer(bot, obs, Fault.TIMEOUT, f"did not answer within {waited:.3g} s")
    error = thinking.exception()
    if error is not None:
        trace = "".join(traceback.format_exception(error))
        return replace_answer(bot, obs, Fault.ERROR, f"raised {type(error).__name__}: {error}", trace)
    return judge(bot, obs, thinking.result())


def notify_all(bot: Bot, events: Sequence[tuple[Any, Event]]) -> None:
    """Events (with the message each came in, for ``bot.raw``) go to the bot's hooks; a hook that raises is
    logged, never fatal."""
    for raw, event in events:
        bot.raw = raw
        try:
            bot.notify(event)
        except Exception:
            bot.log.exception("%s raised in an event hook (ignored)", bot.name)


def judge(bot: Bot, obs: Observation, answer: object) -> Decision:
    """The bot's answer if it is a legal action now; otherwise the fallback, with the fault logged."""
    if not isinstance(answer, (Play, Pass, GiveBack, Request)):
        what = f"a {type(answer).__name__} ({answer!r})"
        return replace_answer(bot, obs, Fault.INVALID,
                              f"returned {what}, not an action: return a Play or PASS, or one of obs.legal_actions"
                              f" (legal now: {_shown(obs)})")
    action = resolve(obs, answer)
    if action is None:
        return replace_answer(bot, obs, Fault.INVALID,
                              f"returned an illegal action {answer!s} (legal now: {_shown(obs)})")
    return Decision(action=action)


def _shown(obs: Observation) -> str:
    return ", ".join(str(a) for a in obs.legal_actions[:8]) + (" ..." if len(obs.legal_actions) > 8 else "")


def replace_answer(bot: Bot, obs: Observation, fault: Fault, what: str, trace: str | None = None) -> Decision:
    """The fallback action for a bot that failed (`what` it did), written to its log and counted in its faults."""
    action = fallback_action(obs.legal_actions)
    message = f"{bot.name} (player {obs.player}, deal {obs.deal}) {what}; playing {action} instead"
    bot.log.error(message + ("\n" + trace.rstrip() if trace else ""))
    bot.faults[fault] += 1
    return Decision(action=action, fault=fault, message=message)
