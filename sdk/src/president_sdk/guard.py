"""Asking a bot for an action without letting its faults stop the match.

A bot that raises, takes longer than the deadline, or answers with an illegal
action gets a clear error in its own log (``bot.log``), and the match goes on
with the easy level's move (the engine's `fallback_action`), as the server
plays for a seat that runs out of time.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
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
        return _decision(bot, obs, _weigh(bot, obs))
    thinking = think(bot, obs)
    if isinstance(thinking, Decision):
        return thinking
    wait([thinking], timeout=timeout)
    return outcome(bot, obs, thinking, timeout)


def think(bot: Bot, obs: Observation, events: Sequence[tuple[Any, Event]] = ()) -> Future[Verdict] | Decision:
    """Hand the bot `events` (as `notify_all`), then start its decision in a `BotThreads` thread; the fallback at once
    when no thread can be had (a bot that used up the process's threads)."""
    def work() -> Verdict:
        notify_all(bot, events)
        return _weigh(bot, obs)

    try:
        return THREADS.submit(work)
    except RuntimeError as exc:
        return replace_answer(bot, obs, Fault.ERROR, f"left no thread to think in ({exc})")


def outcome(bot: Bot, obs: Observation, thinking: Future[Verdict], waited: float) -> Decision:
    """The decision once the wait for `thinking` (`waited` seconds) is over: its legal answer, else the fallback
    for the fault."""
    if not thinking.done():
        thinking.cancel()
        return replace_answer(bot, obs, Fault.TIMEOUT, f"did not answer within {waited:.3g} s")
    error = thinking.exception()
    if error is not None:  # not an Exception (those are weighed in the bot's thread): SystemExit and the like
        return replace_answer(bot, obs, Fault.ERROR, f"raised {type(error).__name__}")
    return _decision(bot, obs, thinking.result())


def notify_all(bot: Bot, events: Sequence[tuple[Any, Event]]) -> None:
    """Events (with the message each came in, for ``bot.raw``) go to the bot's hooks; a hook that raises is
    logged, never fatal."""
    for raw, event in events:
        bot.raw = raw
        try:
            bot.notify(event)
        except Exception:
            bot.log.exception("%s raised in an event hook (ignored)", bot.name)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the bot answered, weighed where it answered: its legal action, or the fault and what it did."""

    action: Action | None
    fault: Fault | None = None
    what: str = ""
    trace: str | None = None


def _weigh(bot: Bot, obs: Observation) -> Verdict:
    """Ask the bot and weigh its answer, in the thread it thinks in: an answer's own code (a `Play` subclass whose
    fields raise, a slow or huge ``__str__``) runs on the bot's time, not the runner's, and its text is cut short."""
    try:
        answer: object = bot.decide(obs)
    except Exception as exc:
        return Verdict(action=None, fault=Fault.ERROR, what=f"raised {type(exc).__name__}: {_text(exc)}",
                       trace=_cut(traceback.format_exc(), TRACE_CHARS))
    if not isinstance(answer, (Play, Pass, GiveBack, Request)):
        return Verdict(action=None, fault=Fault.INVALID,
                       what=f"returned a {type(answer).__name__} ({_text(answer, repr)}), not an action: return a"
                            f" Play or PASS, or one of obs.legal_actions (legal now: {_shown(obs)})")
    try:
        action = resolve(obs, answer)
    except Exception as exc:
        return Verdict(action=None, fault=Fault.INVALID,
                       what=f"returned a {type(answer).__name__} whose fields raise {type(exc).__name__}")
    if action is None:
        return Verdict(action=None, fault=Fault.INVALID,
                       what=f"returned an illegal action {_text(answer)} (legal now: {_shown(obs)})")
    return Verdict(action=action)


def _decision(bot: Bot, obs: Observation, verdict: Verdict) -> Decision:
    if verdict.action is not None:
        return Decision(action=verdict.action)
    assert verdict.fault is not None
    return replace_answer(bot, obs, verdict.fault, verdict.what, verdict.trace)


ANSWER_CHARS = 200
"""How much of a faulty answer's text the log shows."""
TRACE_CHARS = 20_000
"""How much of a traceback the log shows."""


def _text(thing: object, shown: Callable[[object], str] = str) -> str:
    """`thing` as text for the log, cut to `ANSWER_CHARS`; a text that cannot be had is named, not raised."""
    try:
        text = shown(thing)
    except Exception as exc:
        return f"<its text raised {type(exc).__name__}>"
    return _cut(text, ANSWER_CHARS)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def _shown(obs: Observation) -> str:
    return ", ".join(str(a) for a in obs.legal_actions[:8]) + (" ..." if len(obs.legal_actions) > 8 else "")


def replace_answer(bot: Bot, obs: Observation, fault: Fault, what: str, trace: str | None = None) -> Decision:
    """The fallback action for a bot that failed (`what` it did), written to its log and counted in its faults."""
    action = fallback_action(obs.legal_actions)
    message = f"{bot.name} (player {obs.player}, deal {obs.deal}) {what}; playing {action} instead"
    bot.log.error(message + ("\n" + trace.rstrip() if trace else ""))
    bot.faults[fault] += 1
    return Decision(action=action, fault=fault, message=message)
