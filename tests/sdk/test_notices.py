"""How the SDK prints a server's Notice: the server's sentence as it is, without the reason code programs read."""

from __future__ import annotations

import logging

import pytest
from president_protocol.v1 import president_pb2 as pb
from president_sdk.session_client import _log_notice


def test_a_notice_is_printed_as_the_servers_sentence_without_its_code(caplog: pytest.LogCaptureFixture) -> None:
    failed = pb.Notice(reason="CHECK_FAILED", match_id="ab12", message="check match ab12 failed: 1 illegal answer;"
                       " not rated yet: the next check match starts in 5 s, or fix the bot and reconnect")
    refused = pb.Notice(reason="UNKNOWN_MATCH", match_id="cd34", message="this account has no seat in that match")
    with caplog.at_level(logging.INFO, logger="president.session"):
        _log_notice(failed)
        _log_notice(refused)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, failed.message),
        (logging.WARNING, "this account has no seat in that match (match cd34)")]
