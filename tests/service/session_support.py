"""A bot account's client on the Session stream, as a test drives it: plays every match it gets, records it all."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, auth, lowest

Policy = Callable[[pb.Prompt], pb.Action]


async def new_account(stub: pb_grpc.PresidentServiceAsyncStub, name: str, *, house: bool = False) -> str:
    created = await stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="tests", house=house),
                                       metadata=auth(ADMIN))
    return str(created.token)


@dataclass
class SessionBot:
    """Plays each of its matches with `policy` (the lowest legal action by default) over one Session."""

    stub: pb_grpc.PresidentServiceAsyncStub
    token: str
    accepts: pb.Appetite = field(default_factory=lambda: pb.Appetite(max_matches=20))
    policy: Policy = lowest
    accept_challenges: bool = True
    messages: dict[str, list[pb.PlayResponse]] = field(default_factory=dict)
    """Everything received per match, in order."""
    other: list[pb.SessionResponse] = field(default_factory=list)
    """Welcome, notices, challenges and their outcomes."""
    sent: dict[tuple[str, int], pb.Action] = field(default_factory=dict)
    outbox: asyncio.Queue[pb.SessionRequest | None] = field(default_factory=asyncio.Queue)
    error: grpc.aio.AioRpcError | None = None
    stop_after: int | None = None
    """Stop answering prompts (and end the session) after this many acts, to test resuming."""
    defer: bool = False
    """SessionHello.defer_events."""
    batch: bool = False
    """SessionHello.batch_matches; the acts decided on one message go back in one MatchActs."""
    first_fault: pb.BotFault.ValueType = pb.BOT_FAULT_UNSPECIFIED
    """Reported with the first act of each match (Act.fault), as a client does whose bot failed there."""
    updates: int = 0
    """MatchUpdates received."""
    batches: list[int] = field(default_factory=list)
    """How many updates each MatchUpdates held."""
    hold: Callable[[str], bool] = lambda match_id: False
    """Whether to leave a match's prompts unanswered (by match id): without a clock, the match waits."""

    def last_seq(self, match_id: str) -> int:
        return max((m.event.seq for m in self.messages.get(match_id, []) if m.HasField("event")), default=0)

    def over(self) -> set[str]:
        return {m for m, msgs in self.messages.items() if any(x.HasField("match_over") for x in msgs)}

    async def run(self, *, resume: bool = False, until: Callable[[SessionBot], bool] = lambda bot: False) -> None:
        """Play until `until` holds, the server ends the session, or `stop_after` acts."""
        cursors = [pb.MatchCursor(match_id=m, last_seq=self.last_seq(m)) for m in self.messages] if resume else []
        self.outbox = asyncio.Queue()
        await self.outbox.put(pb.SessionRequest(hello=pb.SessionHello(accepts=self.accepts, resume=cursors,
                                                                      defer_events=self.defer,
                                                                      batch_matches=self.batch)))

        async def requests() -> AsyncIterator[pb.SessionRequest]:
            while (item := await self.outbox.get()) is not None:
                yield item

        call = self.stub.Session(requests(), metadata=auth(self.token))
        acts = 0
        try:
            async for response in call:
                kind = response.WhichOneof("kind")
                if kind not in ("match", "updates"):
                    self.other.append(response)
                    if kind == "challenge":
                        await self.outbox.put(pb.SessionRequest(answer=pb.ChallengeAnswer(
                            challenge_id=response.challenge.challenge_id, accept=self.accept_challenges)))
                    continue
                updates = [response.match] if kind == "match" else list(response.updates.updates)
                if kind == "updates":
                    self.batches.append(len(updates))
                decided = []
                for update in updates:
                    match_id = update.match_id
                    self.updates += 1
                    for message in update.messages:
                        self.messages.setdefault(match_id, []).append(message)
                        if message.HasField("prompt") and not self.hold(match_id):
                            if self.stop_after is not None and acts >= self.stop_after:
                                return
                            acts += 1
                            prompt = message.prompt
                            first = not any(key[0] == match_id for key in self.sent)
                            action = self.sent[(match_id, prompt.turn_id)] = self.policy(prompt)
                            fault = self.first_fault if first else pb.BOT_FAULT_UNSPECIFIED
                            decided.append(pb.MatchAct(match_id=match_id, act=pb.Act(
                                turn_id=prompt.turn_id, action=action, fault=fault)))
                if self.batch and len(decided) > 1:
                    await self.outbox.put(pb.SessionRequest(acts=pb.MatchActs(acts=decided)))
                else:
                    for act in decided:
                        await self.outbox.put(pb.SessionRequest(act=act))
                if until(self):
                    return
        except grpc.aio.AioRpcError as exc:
            self.error = exc
        finally:
            await self.outbox.put(None)
            call.cancel()

    def notices(self, reason: str) -> list[pb.Notice]:
        return [r.notice for r in self.other if r.HasField("notice") and r.notice.reason == reason]
