"""The database's write-ahead log stays bounded while the server runs (issue 44: an arena's WAL reached 346 MB in
2.5 minutes, emptied only at shutdown): matches played move by move through the real store, with the host's bot
output and the reads a server makes between them, never leave more than a bounded WAL on disk."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from google.protobuf.timestamp_pb2 import Timestamp
from president_engine import Match, MatchRecord, Rules, fallback_action
from president_protocol.v1 import president_pb2 as pb
from president_service.base.auth import new_token, token_hash
from president_service.hosting.bot_output import BotOutput
from president_service.play.clock import ClockSettings
from president_service.play.match_store import ActionRow, MatchKind, MatchResult, MatchStore, Source, StoredMatch

NAMES = ("ann", "bob", "cy", "dee")
WAL_BOUND = 8 * 1024 * 1024
"""Bytes: two checkpoints' worth of move commits is well under this; unchecked, the test leaves over 20 MB."""


def _line(text: str) -> pb.BotOutputLine:
    stamp = Timestamp()
    stamp.FromMicroseconds(round(time.time() * 1e6))
    return pb.BotOutputLine(at=stamp, text=text)


def test_the_wal_stays_bounded_while_matches_are_played_and_read(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    wal = Path(f"{db}-wal")
    largest = 0

    async def main() -> int:
        nonlocal largest
        store = MatchStore(str(db))
        try:
            output = BotOutput(store)
            rules = Rules.preset("cardverse", players=4, deals=3)
            commits = 0
            for number in range(1000):
                match_id = f"m{number}"
                store.create(StoredMatch(
                    match_id=match_id, created_at=time.time(), preset="cardverse", rules=rules, seed=number,
                    hands=None, clock=ClockSettings(), names=NAMES, open_seats=False,
                    token_hashes=tuple(token_hash(new_token()) for _ in NAMES), claimed=(True,) * 4,
                    named=(True,) * 4, accounts=NAMES, kind=MatchKind.ARENA))
                match, turn = Match(rules, seed=number), 1
                while not match.is_over:
                    player = match.to_act
                    assert player is not None
                    action = fallback_action(match.legal_actions())
                    store.append(match_id, ActionRow(turn=turn, player=player, action=str(action),
                                                     source=Source.SEAT, spent_ms=3))
                    match.apply(action)
                    turn += 1
                    if turn % 16 == 0:
                        output.report("v1", [_line(f"{match_id} thinking at {turn}")])
                        await store.load(match_id)  # a read on the store's thread, between the writes
                    largest = max(largest, wal.stat().st_size)
                store.finish(match_id, MatchResult.of(match), MatchRecord.from_match(match).dumps(indent=None))
                await store.finished(10)
                commits += turn + 1
                if commits > 12_000:
                    return commits
            return commits
        finally:
            store.close()

    commits = asyncio.run(main())
    assert commits > 12_000
    assert largest < WAL_BOUND, f"the WAL reached {largest} bytes after {commits} commits"
    assert not wal.exists() or os.path.getsize(wal) < WAL_BOUND
