"""Challenges: an account proposes a match to named, connected accounts over its Session; each answers; when all
accept the match starts, and an unanswered challenge expires after `ArenaSettings.challenge_timeout_s`.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections import deque
from dataclasses import dataclass

from president_engine import PRESETS, Rules, RulesError
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.base.limits import Limits
from president_service.league.arena_settings import ArenaSettings
from president_service.play.accounts import Accounts
from president_service.play.match_request import MatchRequest, rules_from_request
from president_service.play.match_store import MatchKind
from president_service.play.registry import Registry
from president_service.play.session import Sessions
from president_service.play.session_writer import Session, notice


@dataclass(kw_only=True)
class _Challenge:
    challenge_id: str
    accounts: tuple[str, ...]
    """Challenger first."""
    preset: str
    rules: Rules
    accepted: set[str]
    expiry: asyncio.TimerHandle | None = None


class Challenges:
    """The open challenges, and each account's challenges of the last minute; the arena answers its Sessions'
    ChallengeRequests and ChallengeAnswers with these."""

    def __init__(self, registry: Registry, accounts: Accounts, sessions: Sessions, settings: ArenaSettings,
                 limits: Limits, rng: random.Random) -> None:
        self.settings = settings
        self._registry = registry
        self._accounts = accounts
        self._sessions = sessions
        self._limits = limits
        self._rng = rng
        self._challenges: dict[str, _Challenge] = {}
        self._challenged: dict[str, deque[float]] = {}

    async def challenge(self, session: Session, request: pb.SessionRequest) -> None:
        try:
            challenge = self._new_challenge(session.account.name, request.challenge)
        except ServiceError as exc:
            await session.send(notice(exc))
            return
        offer = pb.ChallengeOffer(challenge_id=challenge.challenge_id, accounts=challenge.accounts,
                                  preset=challenge.preset, rules=convert.rules_to_proto(challenge.rules),
                                  **{"from": session.account.name})
        for name in challenge.accounts[1:]:
            other = self._sessions.by_account.get(name)
            if other is not None:
                await other.tell(pb.SessionResponse(challenge=offer))

    def _new_challenge(self, name: str, request: pb.ChallengeRequest) -> _Challenge:
        now = time.monotonic()
        recent = self._challenged.setdefault(name, deque())
        while recent and recent[0] <= now - 60:
            recent.popleft()
        limit = self._limits.account_challenges_per_minute
        if len(recent) >= limit:
            raise ServiceError(Reason.ACCOUNT_LIMIT, f"at most {limit} challenges a minute",
                               retry_after_s=recent[0] + 60 - now)
        try:
            rules = rules_from_request(request.preset, request.rules) if request.preset in PRESETS else None
        except RulesError as exc:
            raise ServiceError(Reason.BAD_OPTION, str(exc), {"option": exc.option}) from None
        if rules is None:
            raise ServiceError(Reason.BAD_OPTION, f"preset: known presets are {', '.join(PRESETS)}",
                               {"option": "preset"})
        opponents = tuple(request.opponents)
        if len(opponents) != rules.players - 1 or len(set(opponents)) != len(opponents) or name in opponents:
            raise ServiceError(Reason.MALFORMED, f"name {rules.players - 1} other accounts, each once")
        for other in opponents:
            self._accounts.usable(other)
            if other not in self._sessions.by_account:
                raise ServiceError(Reason.UNKNOWN_ACCOUNT, f"{other} is not connected")
        recent.append(now)
        challenge = _Challenge(challenge_id=secrets.token_hex(8), accounts=(name, *opponents), preset=request.preset,
                               rules=rules, accepted={name})
        challenge.expiry = asyncio.get_running_loop().call_later(
            self.settings.challenge_timeout_s, self._expire, challenge.challenge_id)
        self._challenges[challenge.challenge_id] = challenge
        return challenge

    def _expire(self, challenge_id: str) -> None:
        challenge = self._challenges.get(challenge_id)
        if challenge is not None:
            silent = [a for a in challenge.accounts if a not in challenge.accepted]
            asyncio.get_running_loop().create_task(self._settle(challenge, "", f"no answer from {', '.join(silent)}"))

    async def answer(self, session: Session, request: pb.SessionRequest) -> None:
        answer = request.answer
        challenge = self._challenges.get(answer.challenge_id)
        name = session.account.name
        if challenge is None or name not in challenge.accounts:
            await session.send(notice(ServiceError(Reason.MALFORMED, "no open challenge of this account has that id")))
            return
        if not answer.accept:
            await self._settle(challenge, "", f"{name} declined")
            return
        challenge.accepted.add(name)
        if len(challenge.accepted) < len(challenge.accounts):
            return
        accounts = list(challenge.accounts)
        self._rng.shuffle(accounts)
        try:
            runner, _ = self._registry.create(MatchRequest(
                preset=challenge.preset, rules=challenge.rules, seed=None, hands=(), clock=self.settings.clock,
                names=(), open_seats=False, accounts=tuple(accounts), kind=MatchKind.CHALLENGE))
        except ServiceError as exc:
            await self._settle(challenge, "", exc.message)
            return
        await self._settle(challenge, runner.match_id, "")

    async def _settle(self, challenge: _Challenge, match_id: str, why: str) -> None:
        if self._challenges.pop(challenge.challenge_id, None) is None:
            return
        if challenge.expiry is not None:
            challenge.expiry.cancel()
        settled = pb.ChallengeSettled(challenge_id=challenge.challenge_id, accepted=bool(match_id),
                                      match_id=match_id, reason=why)
        for name in challenge.accounts:
            session = self._sessions.by_account.get(name)
            if session is not None and not session.ending:
                await session.tell(pb.SessionResponse(settled=settled))
