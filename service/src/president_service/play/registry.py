"""The matches a server holds: creating them, finding them by id or by seat token, restoring them at start.

Live matches stay in memory; a finished match is dropped from it and loaded
again from the store (replaying its log) when someone asks for it, with a
few recent ones kept in a small cache.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence

from president_engine import DealError, Match
from president_engine.narrate import counted

from president_service.base.auth import bearer_token, new_token, token_hash
from president_service.base.errors import Reason, ServiceError
from president_service.base.limits import RETRY_FULL_S, Limits
from president_service.play.accounts import Accounts
from president_service.play.dev_seats import DevSeats
from president_service.play.match_request import MAX_SEED, MatchRequest, check_name, shorten
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import FinishedSummary, MatchStore, Statement, StoredMatch
from president_service.play.turns import DealKey

log = logging.getLogger(__name__)

_FINISHED_CACHE = 16
_MAX_ID_CHARS = 64
"""Longer match ids are unknown without a look-up (ours are 16 hex characters)."""

Metadata = Iterable[tuple[str, str | bytes]] | None


Seated = Callable[[str, MatchRunner, int], None]
"""Told when an account is seated in a new live match: (account, match, player)."""
Finishing = Callable[[MatchRunner], Sequence[Statement]]
"""Asked, as a match ends, for statements to commit with its result (a rating update, a tournament's result)."""
_DAY_S = 24 * 3600.0


class Registry:
    def __init__(self, store: MatchStore, limits: Limits, accounts: Accounts, *, start_grace_s: float,
                 absence_s: float) -> None:
        self.store = store
        self.limits = limits
        self.accounts = accounts
        self._grace_s = start_grace_s
        self._absence_s = absence_s
        self.on_seated: list[Seated] = []
        self.on_over: list[Callable[[MatchRunner], None]] = []
        """Told when a live match has ended (after its result is stored)."""
        self.finishing: list[Finishing] = []
        """Asked as a match ends (the arena's ratings, a tournament's results)."""
        self._by_account: dict[str, dict[str, tuple[MatchRunner, int]]] = {}
        """Account -> its live matches (match id -> the match and the account's player)."""
        self._started: dict[str, deque[float]] = {}
        """Account -> when its matches of the last 24 hours were created (loaded on first use)."""
        self.live: dict[str, MatchRunner] = {}
        self._live_deals: dict[DealKey, set[str]] = {}
        """What live matches deal (MatchRunner.deal_keys) -> the live matches that deal it."""
        self._by_token: dict[bytes, tuple[MatchRunner, int]] = {}
        self._finished: OrderedDict[str, MatchRunner] = OrderedDict()
        self._twinned: dict[str, set[DealKey]] = {}
        """Finished matches whose cards a live match still deals (a duplicate board's other seatings) -> what
        they show (kept while so, for `finished_in_play` without loading the match)."""
        self._live_given: dict[str, MatchRunner] = {}
        """The live matches given hands (see `_find_future_twins`)."""
        self._restored: set[str] = set()
        """The matches restored at start that are still live (the twins of a match finished before the restart
        are not known: `finished_in_play` assumes every such match may be one while any of these plays)."""
        self.started_at = time.time()
        self.dev_seats = DevSeats(store)

    def restore(self) -> int:
        """Rebuild every unfinished match from the store; returns how many are live again.

        The `on_over` listeners and `finishing` must be in place: a match found over is ended here."""
        def rebuild(stored: StoredMatch) -> None:
            runner = self._runner(stored)
            if runner.is_over:  # its last move was stored, its result not: end it as at the move
                runner.end()
            else:
                self._go_live(runner)
        self.store.load_each("match", self.store.unfinished(), lambda stored: stored.match_id, rebuild)
        self._restored = set(self.live)
        return len(self.live)

    def _runner(self, stored: StoredMatch) -> MatchRunner:
        return MatchRunner(stored, self.store, self.limits, self._grace_s, self._absence_s, self._over,
                           self._dealt, self._finishing)

    def _finishing(self, runner: MatchRunner) -> Sequence[Statement]:
        return [statement for finishing in self.finishing for statement in finishing(runner)]

    def _go_live(self, runner: MatchRunner) -> None:
        self.live[runner.match_id] = runner
        for player, account in enumerate(runner.accounts):
            if account:
                self._by_account.setdefault(account, {})[runner.match_id] = (runner, player)
        for key in runner.deal_keys:
            self._dealt(runner, key)
        self._find_future_twins(runner)
        if runner.given_keys:
            self._live_given[runner.match_id] = runner
        for player, digest in enumerate(runner.token_hashes):
            self._by_token[digest] = (runner, player)

    def _dealt(self, runner: MatchRunner, key: DealKey) -> None:
        self._live_deals.setdefault(key, set()).add(runner.match_id)

    def _over(self, runner: MatchRunner) -> None:
        self.live.pop(runner.match_id, None)
        for account in runner.accounts:
            if account:
                self._by_account.get(account, {}).pop(runner.match_id, None)
        for key in runner.deal_keys:
            twins = self._live_deals.get(key, set())
            twins.discard(runner.match_id)
            if not twins:
                self._live_deals.pop(key, None)
        for digest in runner.token_hashes:
            self._by_token.pop(digest, None)
        self._live_given.pop(runner.match_id, None)
        self._restored.discard(runner.match_id)
        self._twinned = {match_id: keys for match_id, keys in self._twinned.items()
                         if any(key in self._live_deals for key in keys)}
        if self.deal_in_play(runner):
            self._twinned[runner.match_id] = runner.shown_keys
        self._cache(runner)
        for listener in self.on_over:
            listener(runner)

    def _cache(self, runner: MatchRunner) -> None:
        self._finished[runner.match_id] = runner
        self._finished.move_to_end(runner.match_id)
        while len(self._finished) > _FINISHED_CACHE:
            self._finished.popitem(last=False)

    def create(self, request: MatchRequest) -> tuple[MatchRunner, list[str]]:
        """A new match, stored before it is announced; returns it and one token per player."""
        rules, seed, names = request.rules, request.seed, request.names
        if len(self.live) >= self.limits.max_matches:
            raise ServiceError(Reason.TOO_MANY_MATCHES,
                               f"this server plays at most {counted(self.limits.max_matches, 'match')}",
                               retry_after_s=RETRY_FULL_S)
        if seed is None:
            seed = secrets.randbelow(MAX_SEED)
        elif not 0 <= seed <= MAX_SEED:
            raise ServiceError(Reason.BAD_OPTION, f"seed: at most {MAX_SEED}", {"option": "seed"})
        frozen_hands, given_seats = request.hands or None, request.seats or None
        try:
            Match(rules, seed=seed, hands=frozen_hands, seats=given_seats, pass_orders=request.pass_orders)
        except DealError as exc:
            raise ServiceError(Reason.BAD_HANDS, str(exc)) from None
        players = rules.players
        if len(names) > players:
            raise ServiceError(Reason.MALFORMED, f"{len(names)} seat names for {players} players")
        self._check_accounts(request.accounts)
        names = tuple(name or account for name, account in zip(
            names + ("",) * (players - len(names)), request.accounts or ("",) * players, strict=True))
        named = tuple(bool(name) for name in names)
        tokens = [new_token() for _ in range(players)]
        match_id = request.match_id or secrets.token_hex(8)
        also = request.also
        dev_token, pointing = "", None
        if request.dev_seat:
            previous = self.dev_seats.current(request.dev_seat)
            if previous is not None and previous.match_id in self.live:
                raise ServiceError(Reason.SEAT_TAKEN, f"dev seat {shorten(request.dev_seat)} still plays match"
                                                      f" {previous.match_id}; create its next match when it is over")
            dev_token, pointing = self.dev_seats.point(request.dev_seat, match_id, 0)
            also = (*also, pointing)
        stored = StoredMatch(
            match_id=match_id,
            created_at=time.time(),
            preset=request.preset,
            rules=rules,
            seed=seed,
            hands=frozen_hands,
            seats=given_seats,
            pass_orders=request.pass_orders,
            clock=request.clock,
            names=tuple((names[p] if p < len(names) else "") or f"player {p}" for p in range(players)),
            open_seats=request.open_seats,
            token_hashes=tuple(token_hash(t) for t in tokens),
            claimed=tuple((not request.open_seats or p in request.reserved) and not (request.dev_seat and p == 0)
                          for p in range(players)),
            named=named,
            accounts=request.accounts,
            kind=request.kind,
            bot_seeds=request.bot_seeds,
        )
        self.store.create(stored, also)
        if pointing is not None:
            self.dev_seats.moved(pointing)
            tokens[0] = dev_token  # the seat's own token is never handed out: the dev seat's plays it
        runner = self._runner(stored)
        self._go_live(runner)
        for player, account in enumerate(request.accounts):
            if account:
                self._day_of(account, stored.created_at).append(stored.created_at)
                for listener in self.on_seated:
                    listener(account, runner, player)
        return runner, tokens

    def _check_accounts(self, accounts: Sequence[str]) -> None:
        """The seats' accounts exist, each holds one seat, and each has room under its limits."""
        seated = [a for a in accounts if a]
        if len(set(seated)) != len(seated):
            raise ServiceError(Reason.SEATED_TWICE, "one account may hold one seat of a match")
        now = time.time()
        for name in seated:
            self.accounts.usable(name)
            live = len(self._by_account.get(name, {}))
            if live >= self.limits.account_matches:
                raise ServiceError(Reason.ACCOUNT_LIMIT, f"{name} plays {counted(live, 'match')}, its limit at once",
                                   {"account": name}, retry_after_s=RETRY_FULL_S)
            started = self._day_of(name, now)
            if len(started) >= self.limits.account_matches_per_day:
                raise ServiceError(Reason.ACCOUNT_LIMIT, f"{name} started {counted(len(started), 'match')} in 24 hours,"
                                   " its limit", {"account": name}, retry_after_s=started[0] + _DAY_S - now)

    def _day_of(self, account: str, now: float) -> deque[float]:
        """When the account's matches of the last 24 hours started."""
        started = self._started.get(account)
        if started is None:
            started = self._started[account] = deque(sorted(row[0] for row in self.store.query(
                "SELECT matches.created_at FROM seats JOIN matches ON seats.match_id = matches.id"
                " WHERE seats.account = ? AND matches.created_at > ?", (account, now - _DAY_S))))
        while started and started[0] <= now - _DAY_S:
            started.popleft()
        return started

    def seat_of_account(self, account: str, match_id: str) -> tuple[MatchRunner, int] | None:
        """The account's live seat in match `match_id` (the match and its player), if it has one."""
        return self._by_account.get(account, {}).get(match_id)

    def seats_of(self, account: str) -> list[tuple[MatchRunner, int]]:
        """The account's live matches and its player in each, oldest first."""
        return sorted(self._by_account.get(account, {}).values(), key=lambda seat: seat[0].created_at)

    async def get(self, match_id: str) -> MatchRunner:
        """A match by id, live or finished; UNKNOWN_MATCH if there is none."""
        runner = self.live.get(match_id) or self._finished.get(match_id)
        if runner is not None:
            return runner
        unknown = ServiceError(Reason.UNKNOWN_MATCH, f"no match {shorten(match_id)}")
        if not 0 < len(match_id) <= _MAX_ID_CHARS:
            raise unknown
        if self.store.is_unreadable("match", match_id):
            raise ServiceError(Reason.UNKNOWN_MATCH, f"the stored match {match_id} cannot be read")
        try:
            stored = await self.store.load(match_id)
            if stored is None:
                raise unknown
            runner = self.live.get(match_id) or self._runner(stored)
        except ServiceError:
            raise
        except Exception as exc:  # a stored row the server cannot read never stops it
            self.store.mark_unreadable("match", match_id, exc)
            raise ServiceError(Reason.UNKNOWN_MATCH, f"the stored match {match_id} cannot be read") from None
        if runner.is_over:
            self._cache(runner)
        return runner

    async def seat(self, metadata: Metadata, *, stream: bool = False) -> tuple[MatchRunner, int]:
        """The match and player of the seat token in `metadata`; claims an open seat on first use.

        A dev seat's token between two matches: on a Play stream (`stream`) DEV_SEAT_WAITING, for its next match;
        a unary call sees the match it played last (GetTurn says it is over)."""
        digest = token_hash(bearer_token(metadata))
        found = self._by_token.get(digest)
        dev = self.dev_seats.find(digest) if found is None else None
        if dev is not None:
            runner = self.live.get(dev.match_id)
            if runner is None:
                if stream:
                    raise self.dev_seats.waiting(dev)
                return await self.get(dev.match_id), dev.player
            found = runner, dev.player
            digest = runner.token_hashes[dev.player]
        if found is None:
            place = await self.store.seat_of(digest)
            if place is None:
                raise ServiceError(Reason.BAD_TOKEN, "this token is not a seat of any match")
            return await self.get(place[0]), place[1]
        runner, player = found
        if not runner.claimed[player]:
            self.store.mark_claimed(digest)
            self._claimed(runner, player)
        return runner, player

    async def join(self, match_id: str, player: int | None, name: str) -> tuple[int, str]:
        """Claim an open seat: a fresh token replaces the one given at creation."""
        check_name(name, "name")
        runner = await self.get(match_id)
        if runner.is_over:
            raise ServiceError(Reason.MATCH_OVER, "the match is over")
        if not runner.open_seats:
            raise ServiceError(Reason.SEATS_NOT_OPEN, "this match was created without open seats")
        dev = self.dev_seats.current_of(runner.match_id)
        if player is None:
            player = next((p for p, claimed in enumerate(runner.claimed)
                           if not claimed and (dev is None or p != dev.player)), None)
            if player is None:
                raise ServiceError(Reason.NO_FREE_SEAT, "every seat of this match is claimed")
        elif not 0 <= player < len(runner.claimed) or runner.claimed[player]:
            raise ServiceError(Reason.SEAT_TAKEN, f"player {player} is taken or does not exist")
        if dev is not None and dev.player == player:
            raise ServiceError(Reason.SEAT_TAKEN, f"player {player} is the dev seat {shorten(dev.name)}'s")
        token = new_token()
        old, new = runner.token_hashes[player], token_hash(token)
        names = list(runner.names)
        names[player] = name or names[player]
        self.store.claim(match_id, old, new, tuple(names), named=bool(name))  # inline: no other join comes between
        runner.names = names
        runner.named[player] = runner.named[player] or bool(name)
        runner.token_hashes[player] = new
        del self._by_token[old]
        self._by_token[new] = (runner, player)
        self._claimed(runner, player)
        return player, token

    def name_seat(self, runner: MatchRunner, player: int, name: str) -> None:
        """The name a seat's bot gives itself (Hello.name): kept for a live seat that has none yet, so a bot
        playing a seat created without a name (an open seat, the demo's guest seat) shows as itself."""
        check_name(name, "Hello.name")
        if not name or runner.named[player] or runner.is_over:
            return
        names = list(runner.names)
        names[player] = name
        self.store.name_seat(runner.match_id, player, tuple(names))  # inline: no other Hello comes between
        runner.names = names
        runner.named[player] = True

    def _claimed(self, runner: MatchRunner, player: int) -> None:
        runner.claimed[player] = True
        if all(runner.claimed):
            runner.all_claimed()

    def cached(self, match_id: str) -> MatchRunner | None:
        """A finished match kept in memory, if this one is."""
        return self._finished.get(match_id)

    def finished_in_play(self, match_id: str, ended_at: float) -> bool:
        """`deal_in_play` of a finished match that ended at `ended_at`, without loading it."""
        keys = self._twinned.get(match_id)
        return ((keys is not None and any(key in self._live_deals for key in keys))
                or (ended_at < self.started_at and bool(self._restored)))

    def deal_in_play(self, runner: MatchRunner) -> bool:
        """Another live match deals hands this one shows, in any seating, or shuffles from the seed its replay
        shows: watching this one would tell that one's seats their opponents' hands (a duplicate board played in
        seatings at once, however each was created, and at whatever deal number)."""
        if runner.match_id not in self.live:  # a finished match's replay: its given deals against today's matches
            self._find_future_twins(runner)
        return any(self._live_deals.get(key, set()) - {runner.match_id} for key in runner.shown_keys)

    def _find_future_twins(self, runner: MatchRunner) -> None:
        """A deal given to one match that a live match will shuffle later, at whatever deal number, counts as dealt
        by the shuffling one from when it is found (as the later of the two goes live, or as a finished match is
        looked at), so that both are hidden."""
        pairs = [(runner, other) for other in self.live.values() if other is not runner and other.shuffles
                 ] if runner.given_keys else []
        if runner.shuffles:
            pairs += [(other, runner) for other in self._live_given.values() if other is not runner]
        for given, shuffling in pairs:
            for key in (given.given_keys & shuffling.future_deals()) - shuffling.deal_keys:
                shuffling.deal_keys.add(key)
                self._dealt(shuffling, key)

    async def finished(self, limit: int, offset: int, player: str) -> tuple[list[FinishedSummary], int]:
        """A page of the finished matches, newest first, and how many there are (`player`: only theirs)."""
        return await self.store.finished(limit, offset, player)

    def close(self) -> None:
        for runner in self.live.values():
            runner.close()
