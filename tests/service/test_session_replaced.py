"""A Session replaced by a newer one of its account ends quietly (issue 44: the server logged "Future exception
was never retrieved ... SessionGoneError" at ERROR as a bot's new Session replaced its old one mid-play)."""

from __future__ import annotations

import asyncio
import gc
import logging
from pathlib import Path

import pytest
from president_protocol.v1 import president_pb2 as pb
from service_support import ADMIN, auth, client, running
from session_support import SessionBot, new_account

NAMES = ("twice", "ann", "bob", "cy")


def test_a_session_replaced_mid_play_logs_no_unretrieved_error(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        async with running(tmp_path / "r.db") as server, client(server.port) as stub:
            bots = {name: SessionBot(stub, await new_account(stub, name)) for name in NAMES}
            playing = {name: asyncio.create_task(bot.run()) for name, bot in bots.items()}
            while len(server.servicer.sessions.by_account) < len(NAMES):
                await asyncio.sleep(0.01)
            for seed in range(20):
                await stub.CreateMatch(pb.CreateMatchRequest(
                    preset="cardverse", seed=seed, seat_accounts=list(NAMES), rules=pb.Rules(deals=50)),
                    metadata=auth(ADMIN))
            older = bots["twice"]
            for replaced in range(4):  # each time, the older Session has writes in flight as it is replaced
                while sum(len(m) for m in older.messages.values()) < 300:
                    await asyncio.sleep(0.01)
                newer = SessionBot(stub, older.token)
                playing[f"newer{replaced}"] = asyncio.create_task(newer.run())
                await asyncio.wait_for(playing.pop("twice" if replaced == 0 else f"newer{replaced - 1}"), 20)
                assert older.error is not None, "the newer Session ends the older one"
                older = newer
            await asyncio.sleep(0.5)
            gc.collect()
            await asyncio.sleep(0.1)
            for task in playing.values():
                task.cancel()

    with caplog.at_level(logging.INFO):
        asyncio.run(main())
        gc.collect()
    unretrieved = [r.getMessage() for r in caplog.records if "never retrieved" in r.getMessage()]
    assert not unretrieved, unretrieved
