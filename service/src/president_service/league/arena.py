"""The arena: matches formed continuously from the connected, willing accounts; check matches; challenges.

- Queues: one per (preset, players) the server offers (`ArenaSettings.queues`).
  An account is in a queue while its Session is open, it accepts that preset
  and player count with ``arena`` set, and it has room for another match.
- Pairing: the account that has waited longest (never a house bot), whatever
  its queue, gets a table in the first of its queues that can seat it,
  filled with the accounts it has met least, so opponents spread; with
  `duplicate` the table plays every rotation of one deal at once.  (Taken
  queue by queue, the first queue took every account it shares with the
  others and starved an account only a later queue fits.)  Matching
  runs whenever something changes (a session opens, a match ends), so a match
  forms as soon as enough willing bots are there.
- A hosted version plays as its own player (`player_name`: seats, ratings
  and records name it); an account that has a current version is seated by
  the arena only over that version's Session (its author's own connection
  still takes challenges).
- A new account (or version) first plays a check match against the house bots; a fault
  there (an error, a time-out, an illegal answer, a strike) is told to it
  (`Notice` CHECK_FAILED, with the counts) and it stays unrated; passing it
  (CHECK_PASSED) lets it into rated play (`CheckVerdict`).  After a failed
  one the account's next check match waits, twice as long after each further
  failure on the same Session (`check_retry_s` up to `check_retry_max_s`), so
  a broken bot is not handed check match after check match; a pass or a new
  Session (the bot fixed and reconnected) ends the wait.
- Tournaments come first: `reserved` (the server's tournaments) says how
  many of an account's match slots a due tournament table waits for; the
  arena leaves them free, so it starts nothing for that account until the
  table has started, while it goes on matching everyone else.
- Arena matches are rated (`Ratings`) in the same transaction as their
  result; a duplicate board's seatings all together, in that of the last
  one to end (`Ratings.rate_seating`).  Challenges: an account proposes a
  match to named accounts over its Session; each answers; when all accept
  the match starts.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from president_engine import CardSet, Fault, Rules, board_hands
from president_engine.events import DealEnded
from president_engine.narrate import counted, duration
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import ServiceError
from president_service.base.limits import Limits
from president_service.hosting.versions import Versions, account_of, player_name
from president_service.league.arena_challenges import Challenges
from president_service.league.arena_ratings import Board, Ratings, provisional, rank_key
from president_service.league.arena_settings import ArenaSettings as ArenaSettings
from president_service.play.accounts import Accounts
from president_service.play.match_request import MatchRequest
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import MatchKind, Statement
from president_service.play.registry import Registry
from president_service.play.session import Sessions
from president_service.play.session_writer import Session

log = logging.getLogger(__name__)


class CheckVerdict(StrEnum):
    """A check match's outcome for the new account, sent as `Notice.reason` (the strings are the wire's)."""

    PASSED = "CHECK_PASSED"
    FAILED = "CHECK_FAILED"


@dataclass(frozen=True, kw_only=True, slots=True)
class _HeldBack:
    """An account whose check match failed: its next one waits until `until` (loop time)."""

    session: Session
    """The Session it failed on; another Session of the account ends the wait."""
    failures: int
    """Check matches failed in a row on that Session."""
    until: float
    poke: asyncio.TimerHandle
    """Matches up again when the wait is over."""


class Arena:
    def __init__(self, registry: Registry, accounts: Accounts, sessions: Sessions, ratings: Ratings,
                 settings: ArenaSettings, limits: Limits, versions: Versions) -> None:
        self.settings = settings
        self.ratings = ratings
        self._registry = registry
        self._accounts = accounts
        self._sessions = sessions
        self._limits = limits
        self._versions = versions
        self._rng = random.Random()
        self._met: Counter[frozenset[str]] = Counter()
        self._waiting_since: dict[str, float] = {}
        self._challenges = Challenges(registry, accounts, sessions, settings, limits, self._rng)
        self._checking: set[str] = set()
        """Accounts whose check match is being played (one at a time)."""
        self._held: dict[str, _HeldBack] = {}
        """Accounts waiting for their next check match after a failed one."""
        self.reserved: Callable[[str], int] = lambda account: 0
        """Match slots of an account a tournament waits for (`Tournaments.reserved`): the arena leaves them."""
        self._poked = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        registry.finishing.append(self._finishing)
        registry.on_over.append(self._over)
        sessions.on_change.append(self.poke)
        sessions.on_request["challenge"] = self._challenges.challenge
        sessions.on_request["answer"] = self._challenges.answer

    def start(self) -> None:
        if self.settings.enabled:
            self._task = asyncio.get_running_loop().create_task(self._run())

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        for held in self._held.values():
            held.poke.cancel()

    def poke(self) -> None:
        """Something changed: match up again soon."""
        self._poked.set()

    async def _run(self) -> None:
        while True:
            await self._poked.wait()
            self._poked.clear()
            try:
                self.match_up()
            except Exception:
                log.exception("the arena could not match up; it tries again at the next change")

    # ------------------------------------------------------------------ pairing

    def _room(self, session: Session) -> int:
        """How many more matches the session's account may start now, less those a tournament waits for."""
        name = session.account.name
        live = len(self._registry.seats_of(name))
        return min(session.max_matches, self._limits.account_matches) - live - self.reserved(name)

    def _accepts(self, session: Session, board: Board) -> bool:
        appetite = session.appetite
        return appetite.arena and (not appetite.presets or board[0] in appetite.presets) and (
            not appetite.players or board[1] in appetite.players)

    def match_up(self) -> None:
        """Form every match the connected, willing accounts allow now, one at a time, each for the account that
        has waited longest whatever its queue (see Pairing above)."""
        now = time.monotonic()
        for name in self._sessions.by_account:
            self._waiting_since.setdefault(name, now)
        for name, held in list(self._held.items()):
            if self._sessions.by_account.get(name) is not held.session:  # a new Session: the bot may be fixed
                held.poke.cancel()
                del self._held[name]
        left_out: set[str] = set()
        """Accounts a match could not be started for (its limits): the others go on without them."""
        while (found := self._next_table(left_out, now)) is not None:
            board, table = found
            kind = MatchKind.ARENA if table[0].checked else MatchKind.CHECK
            try:
                self._start(board, table, kind)
            except ServiceError as exc:
                log.warning("the arena could not start a %s match of %s: %s", board[0],
                            ", ".join(s.account.name for s in table), exc)
                named = exc.metadata.get("account", "")
                if named not in {s.account.name for s in table}:
                    return  # not one account's limit (the server's): wait for a change
                left_out.add(named)

    def _next_table(self, left_out: set[str], now: float) -> tuple[Board, list[Session]] | None:
        """The table of the longest-waiting account that can have one now, in the first of its queues that
        seats it."""
        waiting = sorted((s for s in self._sessions.by_account.values()
                          if not s.ending and s.account.name not in left_out
                          and self._versions.current.get(s.account.name, "") == s.version),
                         key=lambda s: self._waiting_since.get(s.account.name, now))
        pools = {board: [s for s in waiting if self._accepts(s, board)
                         and self._room(s) >= (board[1] if self.settings.duplicate else 1)]
                 for board in self.settings.queues}
        checked = {s.account.name for s in waiting if s.checked}
        for first in waiting:
            if first.account.house:
                continue
            for board, pool in pools.items():
                if first in pool and (table := self._table(first, pool, board[1], checked)) is not None:
                    return board, table
        return None

    def _table(self, first: Session, pool: Sequence[Session], players: int, checked: set[str]) -> list[Session] | None:
        """`first`'s table from `pool`: the house bots for its check match, else the accounts it has met least."""
        name = first.account.name
        if name not in checked:
            houses = [s for s in pool if s.account.house]
            held = self._held.get(name)
            if (len(houses) >= players - 1 and name not in self._checking
                    and (held is None or held.until <= asyncio.get_running_loop().time())):
                return [first, *houses[:players - 1]]
            return None
        table = [first]
        others = [s for s in pool if s is not first and s.account.name in checked]
        while len(table) < players and others:
            best = min(others, key=lambda s: sum(self._met[frozenset((s.account.name, t.account.name))]
                                                 for t in table))
            table.append(best)
            others.remove(best)
        return table if len(table) == players else None

    def _start(self, board: Board, table: list[Session], kind: MatchKind) -> None:
        """Start the table's match (a board of them with `duplicate`); ServiceError if the registry refuses.
        Each seat is named by its player (`player_name` for a hosted version)."""
        preset, players = board
        rules = Rules.preset(preset, players=players, deals=self.settings.deals)
        seats = [(s.account.name, player_name(s.account.name, s.version) if s.version else s.account.name)
                 for s in table]
        self._rng.shuffle(seats)
        accounts = [account for account, _ in seats]
        seed = secrets.randbelow(2**63 - 1)
        seatings = [seats]
        hands: tuple[tuple[CardSet, ...], ...] = ()
        if self.settings.duplicate and kind is MatchKind.ARENA:
            seatings = [seats[-r:] + seats[:-r] for r in range(players)]
            hands = board_hands(rules, seed)
        for seating in seatings:
            self._registry.create(MatchRequest(
                preset=preset, rules=rules, seed=seed, hands=hands, clock=self.settings.clock,
                names=tuple(name for _, name in seating), open_seats=False,
                accounts=tuple(account for account, _ in seating), kind=kind))
        if kind is MatchKind.CHECK:
            self._checking.update(a for a in accounts if not self._accounts.get(a).house)
        now = time.monotonic()
        for a in accounts:
            self._waiting_since[a] = now
            for b in accounts:
                if a < b:
                    self._met[frozenset((a, b))] += 1

    # ------------------------------------------------------------------ results

    def _finishing(self, runner: MatchRunner) -> Sequence[Statement]:
        """Rating statements for an arena match, committed with its result: by player, which is each seat's name
        in an arena match (`_start`)."""
        if runner.kind is not MatchKind.ARENA:
            return ()
        orders = [[runner.names[p] for p in e.places] for e in runner.match.events if isinstance(e, DealEnded)]
        if not runner.given_keys:
            return self.ratings.rate(runner.match_id, _board(runner), orders)
        store = self._registry.store
        twins = store.query(  # the board's other seatings not over (`_start`: its seed, given hands)
            "SELECT id FROM matches WHERE seed = ? AND kind = ? AND hands IS NOT NULL AND id != ? AND record IS NULL",
            (runner.match.seed, MatchKind.ARENA.value, runner.match_id))
        live = any(not store.is_unreadable("match", twin) for twin, in twins)  # a marked one is never played
        return self.ratings.rate_seating(runner.match_id, _board(runner), orders, seed=runner.match.seed,
                                         twins_live=live)

    def _over(self, runner: MatchRunner) -> None:
        if runner.kind is MatchKind.ARENA:
            self.ratings.reload(_board(runner), runner.names)
        elif runner.kind is MatchKind.CHECK:
            self._verdict(runner)
        if runner.accounts:
            self._waiting_since.update(dict.fromkeys(runner.accounts, time.monotonic()))
            self.poke()

    def _verdict(self, runner: MatchRunner) -> None:
        """A check match: the new account (or version) passed if nothing went wrong for it."""
        for player, name in enumerate(runner.accounts):
            account = self._accounts.get(name)
            if account.house:
                continue
            version = account_of(runner.names[player])[1]
            self._checking.discard(name)
            faults = runner.faults[player]
            counts = {"error": faults[Fault.ERROR], "time-out": faults[Fault.TIMEOUT] + runner.clock.strikes[player],
                      "illegal answer": faults[Fault.INVALID]}
            wrong = ", ".join(counted(n, what) for what, n in counts.items() if n)
            session = self._sessions.by_account.get(name)
            if wrong:
                wait = self._hold_back(name, session)
                message = (f"check match {runner.match_id} failed: {wrong}; not rated yet: the next check match"
                           f" starts in {duration(wait)}, or fix the bot and reconnect")
                verdict = CheckVerdict.FAILED
            else:
                if version:
                    self._versions.mark_checked(version)
                else:
                    self._accounts.mark_checked(name)
                if session is not None and session.version == version:
                    session.checked = True
                held = self._held.pop(name, None)
                if held is not None:
                    held.poke.cancel()
                message = (f"check match {runner.match_id} passed: the arena rates"
                           f" {f'version {version}' if version else 'this account'} now")
                verdict = CheckVerdict.PASSED
            if session is not None:
                asyncio.get_running_loop().create_task(session.tell(pb.SessionResponse(notice=pb.Notice(
                    reason=verdict, message=message, match_id=runner.match_id))))

    def _hold_back(self, name: str, session: Session | None) -> float:
        """Delay the account's next check match after a failed one; returns the wait in seconds."""
        held = self._held.pop(name, None)
        failures = 1
        if held is not None:
            held.poke.cancel()
            if held.session is session:
                failures = held.failures + 1
        wait = min(self.settings.check_retry_s * 2.0 ** (failures - 1), self.settings.check_retry_max_s)
        if session is not None:  # without one, the account's next Session is new: it waits for nothing
            loop = asyncio.get_running_loop()
            self._held[name] = _HeldBack(session=session, failures=failures, until=loop.time() + wait,
                                         poke=loop.call_later(wait, self.poke))
        return wait

    def next_check_at(self, account: str) -> float | None:
        """When (wall clock) the account's next check match may start, while one waits after a failed one; None
        when none waits."""
        held = self._held.get(account)
        if held is None or self._sessions.by_account.get(account) is not held.session:
            return None
        return time.time() + max(0.0, held.until - asyncio.get_running_loop().time())

    # ------------------------------------------------------------------ the leaderboard

    def leaderboard(self, board: Board) -> pb.GetLeaderboardResponse:
        players = board[1]
        entries = []
        for standing in self.ratings.board(board):
            name, version = account_of(standing.account)
            try:
                if version and self._versions.get(version, None).state == pb.VERSION_STATE_RETIRED:
                    continue  # a retired version's records stay; the leaderboard shows the versions that play
                account = self._accounts.get(name)
            except ServiceError:  # its version or account is a stored row this server cannot read (marked)
                continue
            place = standing.place(players)
            entries.append(pb.LeaderboardEntry(
                account=name, version_id=version, mu=standing.mu, sigma=standing.sigma, ordinal=standing.ordinal,
                matches=standing.matches, deals=standing.deals, mean_place=place.mean, mean_place_low=place.low,
                mean_place_high=place.high, provisional=provisional(standing.sigma),
                house=account.house))
        entries.sort(key=lambda e: rank_key(rating=e.ordinal, mean_place=e.mean_place,
                                              name=f"{e.account}@{e.version_id}"))
        return pb.GetLeaderboardResponse(entries=entries, preset=board[0], players=players)


def _board(runner: MatchRunner) -> Board:
    return runner.preset, runner.match.rules.players
