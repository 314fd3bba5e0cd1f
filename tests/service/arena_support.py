"""What the arena's tests share: its settings with a fast clock, and the appetite of a bot that plays in it."""

from __future__ import annotations

import asyncio

from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.league.arena import ArenaSettings
from president_service.play.clock import ClockSettings
from session_support import SessionBot, new_account

FAST = ClockSettings(move_ms=300, bank_ms=0, max_strikes=2)
QUEUE = (("cardverse", 4),)
ARENA = pb.Appetite(max_matches=4, arena=True, presets=["cardverse"], players=[4])


def arena_settings(**changes: object) -> ArenaSettings:
    settings: dict[str, object] = {"enabled": True, "queues": QUEUE, "clock": FAST}
    settings.update(changes)
    return ArenaSettings(**settings)  # type: ignore[arg-type]


async def house_bots(stub: pb_grpc.PresidentServiceAsyncStub,
                     count: int = 3) -> tuple[list[SessionBot], list[asyncio.Task[None]]]:
    """`count` house accounts playing in the arena (their bots, and the tasks running them)."""
    houses = [SessionBot(stub, await new_account(stub, f"house-{i}", house=True), accepts=ARENA)
              for i in range(count)]
    return houses, [asyncio.create_task(h.run()) for h in houses]
