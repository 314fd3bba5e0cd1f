"""The matches a server holds: creating them, finding them by id or by seat token, restoring them at start.

Live matches stay in memory; a finished match is dropped from it and loaded
again from the store (replaying its log) when someone asks for it, with a
few recent ones kept in a small cache.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Iterable

from president_engine import DealError, Match

from president_service.auth import bearer_token, new_token, token_hash
from president_service.errors import Reason, ServiceError
from president_service.limits import RETRY_FULL_S, Limits
from president_service.match_request import MAX_NAME_CHARS, MatchRequest, shorten
from president_service.match_runner import MatchRunner
from president_service.match_store import FinishedSummary, MatchStore, StoredMatch

log = logging.getLogger(__name__)

_FINISHED_CACHE = 16
_MAX_ID_CHARS = 64
"""Longer match ids are unknown without a look-up (ours are 16 hex characters)."""
_MAX_SEED = 2**63 - 1
"""SQLite stores signed 64-bit integers."""

Metadata = Iterable[tuple[str, str | bytes]] | None


class Registry:
    def __init__(self, store: MatchStore, limits: Limits, *, start_grace_s: float) -> None:
        self.store = store
        self.limits = limits
        self._grace_s = start_grace_s
        self.live: dict[str, MatchRunner] = {}
        self._live_deals: dict[str, set[str]] = {}
        """Deal key -> the live matches that deal those cards."""
        self._by_token: dict[bytes, tuple[MatchRunner, int]] = {}
        self._finished: OrderedDict[str, MatchRunner] = OrderedDict()

    def restore(self) -> int:
        """Rebuild every unfinished match from the store; returns how many are live again."""
        for stored in self.store.unfinished():
            try:
                runner = self._runner(stored)
            except (ValueError, IndexError):
                log.exception("match %s cannot be rebuilt from its log; left as it is", stored.match_id)
                continue
            if runner.is_over:
                runner.save_result()
            else:
                self._go_live(runner)
        return len(self.live)

    def _runner(self, stored: StoredMatch) -> MatchRunner:
        return MatchRunner(stored, self.store, self.limits, self._grace_s, self._over)

    def _go_live(self, runner: MatchRunner) -> None:
        self.live[runner.match_id] = runner
        self._live_deals.setdefault(runner.deal_key, set()).add(runner.match_id)
        for player, digest in enumerate(runner.token_hashes):
            self._by_token[digest] = (runner, player)

    def _over(self, runner: MatchRunner) -> None:
        self.live.pop(runner.match_id, None)
        twins = self._live_deals.get(runner.deal_key, set())
        twins.discard(runner.match_id)
        if not twins:
            self._live_deals.pop(runner.deal_key, None)
        for digest in runner.token_hashes:
            self._by_token.pop(digest, None)
        self._cache(runner)

    def _cache(self, runner: MatchRunner) -> None:
        self._finished[runner.match_id] = runner
        self._finished.move_to_end(runner.match_id)
        while len(self._finished) > _FINISHED_CACHE:
            self._finished.popitem(last=False)

    def create(self, request: MatchRequest) -> tuple[MatchRunner, list[str]]:
        """A new match, stored before it is announced; returns it and one token per player."""
        rules, seed, names = request.rules, request.seed, request.names
        if len(self.live) >= self.limits.max_matches:
            raise ServiceError(Reason.TOO_MANY_MATCHES, f"this server plays at most {self.limits.max_matches} matches",
                               retry_after_s=RETRY_FULL_S)
        if seed is None:
            seed = secrets.randbelow(_MAX_SEED)
        elif not 0 <= seed <= _MAX_SEED:
            raise ServiceError(Reason.BAD_OPTION, f"seed: at most {_MAX_SEED}", {"option": "seed"})
        frozen_hands = request.hands or None
        try:
            Match(rules, seed=seed, hands=frozen_hands)
        except DealError as exc:
            raise ServiceError(Reason.BAD_HANDS, str(exc)) from None
        players = rules.players
        if len(names) > players:
            raise ServiceError(Reason.MALFORMED, f"{len(names)} seat names for {players} players")
        tokens = [new_token() for _ in range(players)]
        stored = StoredMatch(
            match_id=secrets.token_hex(8),
            created_at=time.time(),
            preset=request.preset,
            rules=rules,
            seed=seed,
            hands=frozen_hands,
            clock=request.clock,
            names=tuple((names[p] if p < len(names) else "") or f"player {p}" for p in range(players)),
            open_seats=request.open_seats,
            token_hashes=tuple(token_hash(t) for t in tokens),
            claimed=tuple(not request.open_seats or p in request.reserved for p in range(players)),
        )
        self.store.create(stored)
        runner = self._runner(stored)
        self._go_live(runner)
        return runner, tokens

    async def get(self, match_id: str) -> MatchRunner:
        """A match by id, live or finished; UNKNOWN_MATCH if there is none."""
        runner = self.live.get(match_id) or self._finished.get(match_id)
        if runner is not None:
            return runner
        stored = await self.store.load(match_id) if 0 < len(match_id) <= _MAX_ID_CHARS else None
        if stored is None:
            raise ServiceError(Reason.UNKNOWN_MATCH, f"no match {shorten(match_id)}")
        runner = self.live.get(match_id) or self._runner(stored)
        if runner.is_over:
            self._cache(runner)
        return runner

    async def seat(self, metadata: Metadata) -> tuple[MatchRunner, int]:
        """The match and player of the seat token in `metadata`; claims an open seat on first use."""
        digest = token_hash(bearer_token(metadata))
        found = self._by_token.get(digest)
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
        if len(name) > MAX_NAME_CHARS or not name.isprintable():
            raise ServiceError(Reason.MALFORMED, f"name: at most {MAX_NAME_CHARS} printable characters")
        runner = await self.get(match_id)
        if runner.is_over:
            raise ServiceError(Reason.MATCH_OVER, "the match is over")
        if not runner.open_seats:
            raise ServiceError(Reason.SEATS_NOT_OPEN, "this match was created without open seats")
        if player is None:
            player = next((p for p, claimed in enumerate(runner.claimed) if not claimed), None)
            if player is None:
                raise ServiceError(Reason.NO_FREE_SEAT, "every seat of this match is claimed")
        elif not 0 <= player < len(runner.claimed) or runner.claimed[player]:
            raise ServiceError(Reason.SEAT_TAKEN, f"player {player} is taken or does not exist")
        token = new_token()
        old, new = runner.token_hashes[player], token_hash(token)
        names = list(runner.names)
        names[player] = name or names[player]
        self.store.claim(match_id, old, new, tuple(names))  # inline: no other join can come in between
        runner.names = names
        runner.token_hashes[player] = new
        del self._by_token[old]
        self._by_token[new] = (runner, player)
        self._claimed(runner, player)
        return player, token

    def _claimed(self, runner: MatchRunner, player: int) -> None:
        runner.claimed[player] = True
        if all(runner.claimed):
            runner.all_claimed()

    def deal_in_play(self, runner: MatchRunner) -> bool:
        """Another live match deals the same cards: what this one shows would tell its seats their opponents'
        hands (a duplicate board played in seatings at once)."""
        return bool(self._live_deals.get(runner.deal_key, set()) - {runner.match_id})

    async def finished(self, limit: int) -> list[FinishedSummary]:
        return await self.store.finished(limit)

    def close(self) -> None:
        for runner in self.live.values():
            runner.close()
