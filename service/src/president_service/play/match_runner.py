"""`MatchRunner`: one match being played — the engine, its log, its clock and its open streams.

Every change to a match goes through `submit` (a seat's action) or the clock
(a timeout, a seat gone longer than the absence limit, a taken-over seat),
always in this order: check, commit to the store, apply to the engine,
append to the log, wake the streams.  The store
commits inline, so each change runs start to end without yielding to the
event loop: changes never interleave (no lock needed), nothing is
acknowledged or broadcast before it is durable, and a refused action changes
nothing.  The same `_record` step rebuilds a match from its stored actions
after a restart.

Streams get no copies: each keeps a cursor into the shared log (event objects
are shared, redaction happens as an event is sent) and a `Wake`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sqlite3
import time
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from president_engine import (
    Action,
    Fault,
    IllegalActionError,
    Match,
    MatchRecord,
    Phase,
    exchange_partner,
    fallback_action,
    parse_action,
    shuffled_deal,
)
from president_engine.narrate import counted

from president_service.base.errors import Reason, ServiceError
from president_service.base.limits import Limits
from president_service.play.clock import Clock
from president_service.play.match_request import MAX_DEALS
from president_service.play.match_store import ActionRow, MatchResult, MatchStore, Source, Statement, StoredMatch
from president_service.play.strike import LogEvent, Strike, TakenOver
from president_service.play.turns import DealKey, Shuffle, Turn, Wake, hands_key

if TYPE_CHECKING:
    from president_service.play.shared_events import SharedEvents

log = logging.getLogger(__name__)

_RETRY_S = 1.0
"""Wait before the server retries an action of its own that the store refused."""


class MatchRunner:
    __slots__ = ("_absence_s", "_closed", "_connected", "_deadline", "_finishing", "_future", "_given_deals",
                 "_grace", "_grace_s", "_limits", "_loop", "_on_dealt", "_on_over", "_polled", "_seen", "_spectators",
                 "_store", "_streams", "_timer", "_turn_started", "_turns", "_watchers", "accounts", "bot_seeds",
                 "claimed", "clock", "created_at", "deal_keys", "faults", "given_keys", "kind", "log", "match",
                 "match_id", "named", "names", "open_seats", "preset", "shared_events", "shuffle", "started", "times",
                 "token_hashes")
    """Slots: a server holds one runner per live match."""

    def __init__(self, stored: StoredMatch, store: MatchStore, limits: Limits, start_grace_s: float,
                 absence_s: float, on_over: Callable[[MatchRunner], None],
                 on_dealt: Callable[[MatchRunner, DealKey], None],
                 finishing: Callable[[MatchRunner], Sequence[Statement]] = lambda runner: ()) -> None:
        """Rebuild the match from what the store holds (a new match holds no actions yet).

        `absence_s`: how long the match waits on a seat that has no client (no stream, no unary call) before
        the server acts for it as for a timeout, so that a match whose bots left is played to its end.
        `on_dealt` is told the hands of each deal dealt while the match is live (see `deal_keys`)."""
        self.match_id = stored.match_id
        self.created_at = stored.created_at
        self.preset = stored.preset
        self.names = list(stored.names)
        self.named = list(stored.named)
        """By player: whether the seat has its name; one without takes the first its bot gives (Hello.name)."""
        self.open_seats = stored.open_seats
        self.accounts = stored.accounts
        """The account holding each player's seat ("" for none); empty when none is an account's."""
        self.kind = stored.kind
        self.bot_seeds = stored.bot_seeds
        """The seed the creator chose for each player's bot (None: none); empty when none was chosen."""
        self._finishing = finishing
        self.token_hashes = list(stored.token_hashes)
        self.claimed = list(stored.claimed)
        self.match = Match(stored.rules, seed=stored.seed, hands=stored.hands, seats=stored.seats,
                           pass_orders=stored.pass_orders)
        self.clock = Clock(stored.clock, stored.rules.players)
        self.log: list[LogEvent] = list(self.match.events)
        self._loop = asyncio.get_running_loop()
        self.times = array("d", [self._loop.time()]) * len(self.log)
        """When each log entry was appended (loop time), for delayed spectators."""
        self._turns = array("l")
        """Per applied action: player * 4 + Source, for duplicate detection."""
        self.faults: list[Counter[Fault]] = [Counter() for _ in range(stored.rules.players)]
        """By player: the fallbacks its client reported (stored with each action) and, since this process
        started, the actions refused as illegal or malformed (Fault.INVALID)."""
        for row in stored.actions:
            self._record(row, parse_action(row.action))
        rules, given = stored.rules, stored.hands or ()
        self.shuffle = Shuffle(stored.seed, rules.players, rules.decks, rules.jokers)
        self.deal_keys: set[DealKey] = {hands_key(hands) for hands in (*given, *self.match.deal_hands)}
        """What the match deals, now or later: the hands given for its first deals, those of each deal dealt so
        far, and its shuffle when it shuffles a deal."""
        if rules.deals is None or rules.deals > len(given):
            self.deal_keys.add(self.shuffle)
        self.given_keys = frozenset(hands_key(hands) for hands in given)
        """The hands given for its first deals (another match may shuffle them later: Registry.deal_in_play)."""
        self._given_deals = len(given)
        self._future: frozenset[tuple[int, ...]] | None = None
        self._store = store
        self._limits = limits
        self._grace_s = start_grace_s
        self._absence_s = absence_s
        self._on_over = on_over
        self._on_dealt = on_dealt
        self.shared_events: SharedEvents | None = None
        """Its log entries encoded once for every stream (feeds.shared_events)."""
        self._watchers: set[Wake] = set()
        """Each open stream's wake-up."""
        self._streams = [0] * stored.rules.players
        self._spectators = 0
        self._connected = [False] * stored.rules.players
        self._polled = [False] * stored.rules.players
        """By player: whether it has played by unary calls (GetTurn, SubmitAction) since the server started."""
        self._seen = array("d", [self._loop.time()]) * stored.rules.players
        """By player: when it last had a client (its last stream closed, its last unary call), or, if later, when
        the match was created, restored or claimed in full: where its absence is counted from."""
        self._closed = False
        self.started = False
        """True once the clock runs: every seat claimed, and connected or the start grace passed."""
        self._timer: asyncio.Handle | None = None
        """The server's next own move: at the deadline, or right away for a taken-over seat."""
        self._grace: asyncio.TimerHandle | None = None
        self._turn_started: float | None = None
        self._deadline = 0.0
        if not self.match.is_over and all(self.claimed):
            self._grace = self._loop.call_later(self._grace_s, self._start)

    # ------------------------------------------------------------------ state

    @property
    def turn_id(self) -> int:
        """The number of actions applied so far + 1."""
        return len(self._turns) + 1

    @property
    def shuffles(self) -> bool:
        """Whether it shuffles a deal still to come (or being played)."""
        return self.shuffle in self.deal_keys

    def future_deals(self) -> frozenset[tuple[int, ...]]:
        """The hands of each deal it will shuffle after the one in play (up to `MAX_DEALS` with a target score).
        Computed once, when a match given hands is first compared with it, and only then."""
        if self._future is None:
            rules, seed = self.match.rules, self.shuffle.seed
            first = max(self._given_deals, self.match.deal) + 1
            last = rules.deals if rules.deals is not None else MAX_DEALS
            self._future = frozenset(hands_key(shuffled_deal(rules, seed, deal, 0))
                                     for deal in range(first, last + 1)) if self.shuffles else frozenset()
        return self._future

    @property
    def shown_keys(self) -> set[DealKey]:
        """What watching the match or its replay may tell: its deals' hands, and its shuffle (the replay shows the
        seed, whose shuffle gives every deal another match shuffles from it)."""
        return self.deal_keys | {self.shuffle}

    @property
    def last_seq(self) -> int:
        return len(self.log)

    @property
    def is_over(self) -> bool:
        return self.match.is_over

    def taken_over(self, player: int) -> bool:
        return self.clock.taken_over(player)

    def turn_key(self, player: int) -> tuple[int, bool] | None:
        """Cheaply, what `player`'s turn is now: (turn id, whether it has a deadline); None if not its turn."""
        match = self.match
        if match.is_over or match.to_act != player or self.clock.taken_over(player) or not all(self.claimed):
            return None
        # No deadline before the clock starts: a seat may act early, for free.
        return self.turn_id, self.started and self._turn_started is not None and self.clock.enabled

    def turn_for(self, player: int) -> Turn | None:
        """The turn `player` must act on now, or None."""
        key = self.turn_key(player)
        if key is None:
            return None
        turn_id, timed = key
        deadline = time.time() + (self._deadline - self._loop.time()) if timed else None
        return Turn(turn_id, self.match.observation(player), deadline, self.clock.banks[player])

    def record(self) -> MatchRecord:
        if not self.match.is_over:
            raise ServiceError(Reason.MATCH_NOT_OVER, "the replay exists once the match is over")
        return MatchRecord.from_match(self.match)

    def finished_record(self, from_deal: int = 1) -> MatchRecord:
        """The record of the deals that are over so far (every deal of a finished match), from deal `from_deal` on."""
        dealt = len(self.match.deal_hands)
        return MatchRecord.from_match(self.match, first=from_deal,  # the next deal starts as one ends
                                      last=dealt if self.match.is_over else dealt - 1)

    # ------------------------------------------------------------------ seats and streams

    def attach(self, player: int | None, *, hello: bool = False, then: Callable[[], None] | None = None) -> Wake:
        """Register a stream (player None: a spectator); returns its wake-up, set whenever the log grows.

        hello: a Play stream, whose seat shows up (`connected`) once its Hello has been read, so that a client
        seen connected has given its name.  then: called as the wake-up is set (`Wake`).
        """
        if player is None:
            if self._spectators >= self._limits.max_spectators:
                raise ServiceError(Reason.TOO_MANY_STREAMS,
                                   f"this match has {counted(self._spectators, 'spectator')} already",
                                   retry_after_s=_RETRY_S)
            self._spectators += 1
        else:
            if self._streams[player] >= self._limits.max_streams_per_seat:
                raise ServiceError(Reason.TOO_MANY_STREAMS,
                                   f"player {player} has {counted(self._streams[player], 'open stream')} already")
            self._streams[player] += 1
            if hello:
                self._retime(player)  # an open stream is a client there: no absence timeout while it says Hello
            else:
                self.connected(player)
        wake = Wake(then)
        self._watchers.add(wake)
        return wake

    def detach(self, player: int | None, wake: Wake) -> None:
        self._watchers.remove(wake)
        if player is None:
            self._spectators -= 1
        else:
            self._streams[player] -= 1
            if not self._streams[player]:
                self._seen[player] = self._loop.time()
                self._retime(player)

    def connected(self, player: int) -> None:
        """A seat showed up (stream or unary call); the clock starts once every seat has."""
        self._connected[player] = True
        self._seen[player] = self._loop.time()
        if not self.started and all(self.claimed) and all(
                c or self.clock.taken_over(p) for p, c in enumerate(self._connected)):
            self._start()
        self._retime(player)

    def polled(self, player: int) -> None:
        """A seat's unary call: such a client has no stream to show it is there, so it counts as connected."""
        self._polled[player] = True
        self.connected(player)

    def online(self, player: int) -> bool:
        """Whether `player`'s client is there now: a stream of it open (past its Hello), or it plays by unary calls."""
        return self._connected[player] and (self._streams[player] > 0 or self._polled[player])

    def all_claimed(self) -> None:
        """The last open seat was claimed: start the grace period for connecting (and count absence from now)."""
        if self._grace is None and not self.started and not self.match.is_over:
            self._seen = array("d", [self._loop.time()]) * len(self._seen)
            self._grace = self._loop.call_later(self._grace_s, self._start)

    def _start(self) -> None:
        if self.started:
            return
        self.started = True
        if self._grace is not None:
            self._grace.cancel()
        self._next()
        self._notify()

    def close(self) -> None:
        """Stop the clock for good (server shutdown); the stored log is untouched."""
        self._closed = True
        for handle in (self._timer, self._grace):
            if handle is not None:
                handle.cancel()
        self._notify()

    def _notify(self) -> None:
        """Wake every stream: the log grew or the match state changed."""
        for wake in self._watchers:
            wake.set()

    # ------------------------------------------------------------------ actions

    def submit(self, player: int, turn_id: int, action: Action, fault: Fault | None = None) -> None:
        """Apply `player`'s action for `turn_id` once it is committed; ServiceError if refused.

        `fault`: the client says the action is its fallback for a failing bot.
        """
        self._check_turn(player, turn_id)
        try:
            resolved = self.match.check(action, player)
        except IllegalActionError as exc:
            self.refused(player)
            raise ServiceError.illegal(exc) from None
        started = self._turn_started
        spent = 0 if started is None else int((self._loop.time() - started) * 1000)
        self._commit(player, resolved, Source.SEAT, spent, fault)

    def refused(self, player: int) -> None:
        """Count an action of `player` refused as illegal or malformed; once the match is over its counts are part
        of its result, and nothing sent after changes them."""
        if not self.match.is_over:
            self.faults[player][Fault.INVALID] += 1

    def _check_turn(self, player: int, turn_id: int) -> None:
        current = self.turn_id
        if 1 <= turn_id < current:
            code = self._turns[turn_id - 1]
            if code == player * 4 + Source.SEAT:
                raise ServiceError(Reason.DUPLICATE_ACTION, f"your action for turn {turn_id} was already applied",
                                   {"turn_id": str(current)})
            raise ServiceError(Reason.STALE_TURN, f"turn {turn_id} is over; the current turn is {current}",
                               {"turn_id": str(current)})
        if self.match.is_over:
            raise ServiceError(Reason.MATCH_OVER, "the match is over")
        if turn_id != current:
            raise ServiceError(Reason.STALE_TURN, f"turn {turn_id} is not the current turn {current}",
                               {"turn_id": str(current)})
        if self.match.to_act != player:
            raise ServiceError(Reason.NOT_YOUR_TURN, f"it is player {self.match.to_act}'s turn")
        if self.clock.taken_over(player):
            raise ServiceError(Reason.NOT_YOUR_TURN, "the server plays this seat now (too many timeouts)")
        if not all(self.claimed):
            raise ServiceError(Reason.NOT_YOUR_TURN, "the match starts when every seat is claimed")

    def _commit(self, player: int, action: Action, source: Source, spent_ms: int,
                fault: Fault | None = None) -> None:
        row = ActionRow(turn=self.turn_id, player=player, action=str(action), source=source, spent_ms=spent_ms,
                        fault=fault)
        try:
            self._store.append(self.match_id, row)
        except (sqlite3.Error, OSError) as exc:
            raise ServiceError(Reason.STORAGE, f"the action could not be saved: {exc}") from None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deal = self.match.deal
        self._record(row, action)
        if self.match.deal != deal:
            dealt = hands_key(self.match.deal_hands[-1])
            self.deal_keys.add(dealt)
            self._on_dealt(self, dealt)
        if self.match.is_over:
            self.end()
        self._notify()
        self._next()

    def _record(self, row: ActionRow, action: Action) -> None:
        """Apply a committed action to the engine, the clock and the log (live or replaying the store)."""
        match, player = self.match, row.player
        if row.source is Source.TIMEOUT:
            partner = exchange_partner(match.roles, player) if match.phase is not Phase.PLAY else None
            self._append(Strike(player, self.clock.strike(player), action, partner))
            if self.clock.taken_over(player):
                self._append(TakenOver(player))
        elif row.source is Source.SEAT:
            self.clock.charge(player, row.spent_ms)
            if row.fault:
                self.faults[player][row.fault] += 1
        for event in match.apply(action):
            self._append(event)
        self._turns.append(player * 4 + row.source)

    def _append(self, event: LogEvent) -> None:
        self.log.append(event)
        self.times.append(self._loop.time())

    def end(self) -> None:
        """The match is over: store its result and record (with the arena's rating), then tell `on_over`.

        The one way a match ends: at its last move, and at a restart that finds a match whose last move was
        stored but not its result (a crash between the two commits), so that one is rated, and its ratings
        and waits followed in memory, as if the crash had not happened.
        """
        match = self.match
        try:
            self._store.finish(self.match_id, MatchResult.of(match), MatchRecord.from_match(match).dumps(indent=None),
                               self._finishing(self))
        except (sqlite3.Error, OSError):
            log.exception("match %s: the final record was not saved (it is rebuilt at the next start)",
                          self.match_id)
        self._on_over(self)

    # ------------------------------------------------------------------ the clock

    def _next(self) -> None:
        """Arm the clock for the seat to act, or act at once for a seat the server plays."""
        match = self.match
        if match.is_over or not self.started or self._closed:
            return
        player = match.to_act
        assert player is not None
        if self.clock.taken_over(player):
            self._turn_started = None
            # Soon, not now: the streams get to send this move before the next one is made.
            self._timer = self._loop.call_soon(self._act_for, self.turn_id, Source.AUTOPILOT)
            return
        now = self._loop.time()
        self._turn_started = now
        if self.clock.enabled:
            self._deadline = now + self.clock.allowance_ms(player) / 1000
        self._arm(player)

    def _retime(self, player: int) -> None:
        """`player`'s client came or went: if the match waits on it, its turn ends at another time."""
        match = self.match
        if (match.to_act == player and self.started and self._turn_started is not None and not match.is_over
                and not self._closed):
            self._arm(player)

    def _arm(self, player: int) -> None:
        """Time out the turn of `player`, the seat to act: at the clock's deadline or, sooner, once the seat has
        had no client for the absence limit (without a clock, only then): both are a strike."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        at = self._deadline if self.clock.enabled else math.inf
        if not self._streams[player]:
            at = min(at, self._seen[player] + self._absence_s)
        if at < math.inf:
            self._timer = self._loop.call_at(at, self._act_for, self.turn_id, Source.TIMEOUT)

    def _act_for(self, turn: int, source: Source) -> None:
        """The server's own move for the seat to act, after a timeout or for a taken-over seat: the easy level's."""
        if turn != self.turn_id or self.match.is_over:
            return
        player = self.match.to_act
        assert player is not None
        action = fallback_action(self.match.legal_actions())
        started = self._turn_started
        spent = 0 if started is None else int((self._loop.time() - started) * 1000)
        try:
            self._commit(player, action, source, spent)
        except ServiceError:
            log.exception("match %s: retrying the server's move for turn %d", self.match_id, turn)
            self._timer = self._loop.call_later(_RETRY_S, self._act_for, turn, source)
