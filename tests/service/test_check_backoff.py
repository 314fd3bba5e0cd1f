"""A failed arena check match: the notice says in words what went wrong and when the next check match starts,
the next one waits (twice as long after each further failure on the same Session), and a new Session ends the
wait."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from arena_support import ARENA, arena_settings, house_bots
from president_protocol.v1 import president_pb2 as pb
from service_support import client, running
from session_support import SessionBot, new_account


async def _faulty(bot: SessionBot) -> None:
    """Play every match with the lowest action, its first act reported as a fallback for an illegal answer."""
    bot.first_fault = pb.BOT_FAULT_INVALID
    await bot.run()


async def _verdicts(bot: SessionBot, count: int) -> list[pb.Notice]:
    while len(failed := bot.notices("CHECK_FAILED")) < count:
        await asyncio.sleep(0.02)
    return failed


async def _matches(bot: SessionBot, count: int) -> None:
    while len(bot.messages) < count:
        await asyncio.sleep(0.02)


def test_the_next_check_match_waits_and_a_new_session_ends_the_wait(tmp_path: Path) -> None:
    async def main() -> None:
        settings = arena_settings(check_retry_s=600.0, check_retry_max_s=3600.0)
        async with running(tmp_path / "b.db", arena=settings) as server, \
                client(server.port) as stub:
            _, tasks = await house_bots(stub)
            broken = SessionBot(stub, await new_account(stub, "broken"), accepts=ARENA)
            first = asyncio.create_task(_faulty(broken))
            [failed] = await asyncio.wait_for(_verdicts(broken, 1), 60)
            assert failed.message == (f"check match {failed.match_id} failed: 1 illegal answer; not rated yet:"
                                      " the next check match starts in 10 min, or fix the bot and reconnect")
            await asyncio.sleep(1.0)  # the house bots are free: before the wait, a new check match came at once
            assert list(broken.messages) == [failed.match_id]
            first.cancel()
            again = asyncio.create_task(_faulty(broken))  # reconnected: a new Session
            await asyncio.wait_for(_matches(broken, 2), 60)  # a new check match, at once
            again.cancel()
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def test_each_further_failure_on_one_session_doubles_the_wait_up_to_its_cap(tmp_path: Path) -> None:
    async def main() -> None:
        arena = arena_settings(check_retry_s=1.0, check_retry_max_s=2.0)
        async with running(tmp_path / "d.db", arena=arena) as server, client(server.port) as stub:
            _, tasks = await house_bots(stub)
            broken = SessionBot(stub, await new_account(stub, "broken"), accepts=ARENA)
            playing = asyncio.create_task(_faulty(broken))
            failed = await asyncio.wait_for(_verdicts(broken, 3), 60)
            waits = [re.search(r"the next check match starts in (.+), or fix the bot and reconnect$", n.message)
                     for n in failed]
            assert [w.group(1) if w else n.message for w, n in zip(waits, failed, strict=True)] == ["1 s", "2 s", "2 s"]
            assert len({n.match_id for n in failed}) == 3
            playing.cancel()
            for task in tasks:
                task.cancel()
    asyncio.run(main())
