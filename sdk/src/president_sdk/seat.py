"""One seat's side of the seat protocol, with no I/O: `Seat`.

A seat's messages (president.v1 ``PlayResponse``: Welcome, Snapshot, Event,
Prompt, TurnDeadline, ActionRejected, MatchOver) are the same on the per-seat
``Play`` stream and inside an account's ``Session``.  `Seat` takes them and
returns what to do: the acts to send, the observation to ask the bot about,
the events for its hooks.  The two transports (`remote`, `session_client`)
only move messages, so resuming after a reconnection, answering a repeated
prompt with the answer already given, the fallback after a refused act and
telling the bot of the end once are written here, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from president_engine import Action, Event, Fault, Observation, Rules, fallback_action
from president_engine.events import MatchEnded
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_sdk.bot import Bot
from president_sdk.guard import Decision
from president_sdk.runner_errors import MatchAlreadyOverError, RunnerError

SAFETY_MARGIN_S = 0.25
"""Time kept back from the server's deadline for the answer to travel."""
TURNS_KEPT = 8
"""Answers kept by turn: a prompt repeated after a resume, or a late refusal, finds what was sent."""


@dataclass(eq=False, kw_only=True)
class Seat:
    """What a client knows of its seat in one match, kept across connections."""

    match_id: str = ""
    listens: bool = True
    """Whether events are converted for the bot's hooks (a bot without hooks gets none)."""
    player: int = -1
    rules: Rules | None = None
    names: tuple[str, ...] = ()
    last_seq: int = 0
    """The last event seen: a resumed connection starts after it."""
    caught_up: bool = False
    """Set by the first Snapshot: the events before it are the match's past as it was when the bot came."""
    result: MatchEnded | None = None
    end_seen: bool = False
    """Whether the MatchEnded event arrived: the bot hears of the end once, over any connections."""
    deadline: float | None = None
    """When the open turn's answer is due (wall clock), from its Prompt or a later TurnDeadline."""
    deadline_turn: int = -1
    """The turn `deadline` is for: a TurnDeadline read ahead of its Prompt (by a reader thread) is kept."""
    pending: list[tuple[Any, Event]] = field(default_factory=list)
    """Events for the bot's hooks, not yet handed over."""
    answered: dict[int, tuple[Action, pb.BotFault.ValueType]] = field(default_factory=dict)
    """The acts sent (action and reported fault) by turn id."""
    prompts: dict[int, Observation] = field(default_factory=dict)
    """What each of those turns asked."""
    sent_here: set[int] = field(default_factory=set)
    """Turns answered on the current connection: the server may prompt again (when its clock starts)."""

    def connected(self) -> None:
        """A new connection: its prompts are answered again (with the answers already given)."""
        self.sent_here.clear()

    def welcome(self, msg: pb.Welcome) -> None:
        self.match_id = msg.match_id
        self.rules = convert.rules_from_proto(msg.rules)
        self.player = msg.player
        self.names = tuple(msg.names)

    def snapshot(self, msg: pb.Snapshot) -> None:
        """Raises `MatchAlreadyOverError` when the first Snapshot shows a match that ended before the bot came."""
        self.last_seq = max(self.last_seq, msg.last_seq)
        if not self.caught_up:
            self.caught_up = True
            if msg.observation.phase == pb.PHASE_OVER and self.result is None:
                self.pending.clear()
                raise MatchAlreadyOverError(self.match_id)

    def event(self, msg: pb.Event) -> None:
        if msg.seq <= self.last_seq:
            return  # seen before a reconnection
        self.last_seq = msg.seq
        self.end_seen = self.end_seen or msg.HasField("match_ended")
        if self.listens:
            event = convert.event_from_proto(msg)
            if event is not None:
                self.pending.append((msg, event))

    def take_events(self) -> list[tuple[Any, Event]]:
        """The events the bot has not had; none before the first Snapshot says the match is the bot's."""
        if not self.caught_up:
            return []
        events, self.pending = self.pending, []
        return events

    def turn_deadline(self, msg: pb.TurnDeadline) -> None:
        self.deadline, self.deadline_turn = msg.deadline.ToNanoseconds() / 1e9, msg.turn_id

    def prompt(self, msg: pb.Prompt) -> Observation | pb.Act | None:
        """What to do about a prompt: the observation to ask the bot about; the act already sent for this turn
        (a prompt repeated after a resume); or None (answered on this connection, or a prompt before Welcome)."""
        turn = msg.turn_id
        if turn in self.sent_here or self.rules is None:
            return None
        self.sent_here.add(turn)
        sent = self.answered.get(turn)
        if sent is not None:
            return _act(turn, *sent)
        if msg.HasField("deadline"):
            self.deadline, self.deadline_turn = msg.deadline.ToNanoseconds() / 1e9, turn
        elif self.deadline_turn != turn:
            self.deadline = None
        return convert.prompt_from_proto(msg, self.rules)

    def timeout(self, now: float, move_timeout: float | None) -> float | None:
        """Seconds the bot may think now: to the deadline less the margin, else `move_timeout` (None: no limit)."""
        if self.deadline is None:
            return move_timeout
        return max(0.05, self.deadline - now - SAFETY_MARGIN_S)

    def answer(self, msg: pb.Prompt, obs: Observation, decision: Decision) -> pb.Act:
        """The act for the bot's decision on a prompt, kept for a repeated prompt or a refusal."""
        turn = msg.turn_id
        sent = decision.action, convert.fault_to_proto(decision.fault)
        for old in [t for t in self.answered if t <= turn - TURNS_KEPT]:
            del self.answered[old], self.prompts[old]
        self.answered[turn], self.prompts[turn] = sent, obs
        return _act(turn, *sent)

    def rejected(self, msg: pb.ActionRejected, bot: Bot) -> pb.Act | None:
        """The server refused an answer: said in the bot's log; the fallback action, once, for an illegal one."""
        obs = self.prompts.get(msg.turn_id)
        answered = self.answered.get(msg.turn_id)
        sent = None if answered is None else answered[0]
        bot.log.error("%s: match %s: the server refused %s for turn %d: %s %s %s", bot.name, self.match_id, sent,
                      msg.turn_id, msg.reason, msg.illegal_reason, msg.message)
        if obs is None or msg.error_reason != pb.ERROR_REASON_ILLEGAL_ACTION:
            return None
        fallback = fallback_action(obs.legal_actions)
        if fallback == sent:
            return None
        self.answered[msg.turn_id] = fallback, pb.BOT_FAULT_UNSPECIFIED  # the server counted its refusal itself
        bot.log.error("%s: playing %s instead", bot.name, fallback)
        bot.faults[Fault.INVALID] += 1
        return _act(msg.turn_id, fallback, pb.BOT_FAULT_UNSPECIFIED)

    def finish(self, result: MatchEnded, raw: Any) -> bool:
        """Record the result (from `raw`, the message it came in): True the first time. The bot hears of the end
        once: when its MatchEnded event never came (the match ended while this client was away), the result is
        queued for its hooks."""
        if self.result is not None:
            return False
        self.result = result
        if self.listens and not self.end_seen:
            self.end_seen = True
            self.caught_up = True
            self.pending.append((raw, result))
        return True


def _act(turn: int, action: Action, fault: pb.BotFault.ValueType) -> pb.Act:
    return pb.Act(turn_id=turn, action=convert.action_to_proto(action), fault=fault)


def seat_bot(bot: Bot, seat: Seat) -> None:
    """Tell the bot its seat and the rules (after a Welcome); `RunnerError` for a bot that refuses them, since none
    of its moves could stand in."""
    assert seat.rules is not None
    try:
        bot.seat(seat.player, seat.rules)
    except Exception as exc:
        raise RunnerError(f"{bot.name} (player {seat.player}) cannot take its seat: {exc}") from exc
