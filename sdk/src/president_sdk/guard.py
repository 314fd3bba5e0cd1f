"""Asking a bot for an action without letting its faults stop the match.

A bot that raises, takes longer than the deadline, or answers with an illegal
action gets a clear error in its own log (``bot.log``), and the match goes on
with the easy level's move (the engine's `fallback_action`), as the server
plays for a seat that runs out of time.
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass

from president_engine import Action, Fault, GiveBack, Observation, Pass, Play, Request, fallback_action

from president_sdk.bot import Bot
from president_sdk.legal import resolve


@dataclass(frozen=True, kw_only=True, slots=True)
class Decision:
    action: Action
    """The action to submit: the bot's own, or the fallback."""
    fault: Fault | None = None
    """Why the bot's answer was replaced; None when it was used."""
    message: str = ""
    """What went wrong, in words (also written to the bot's log)."""


def decide(bot: Bot, obs: Observation, *, timeout: float | None = None) -> Decision:
    """The bot's legal answer, or a safe fallback with the fault logged to the bot's log."""
    if timeout is None:
        try:
            answer: object = bot.decide(obs)
        except Exception as exc:
            return replace_answer(bot, obs, Fault.ERROR, f"raised {type(exc).__name__}: {exc}",
                                  traceback.format_exc())
    else:
        box: dict[str, object] = {}

        def work() -> None:
            try:
                box["answer"] = bot.decide(obs)
            except Exception as exc:  # reported below, in the caller's thread
                box["error"] = exc
                box["trace"] = traceback.format_exc()

        worker = threading.Thread(target=work, name=f"bot-{bot.name}", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            return replace_answer(bot, obs, Fault.TIMEOUT, f"did not answer within {timeout:g} s")
        if "error" in box:
            error = box["error"]
            return replace_answer(bot, obs, Fault.ERROR, f"raised {type(error).__name__}: {error}",
                                  str(box["trace"]))
        answer = box.get("answer")
    return judge(bot, obs, answer)


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
