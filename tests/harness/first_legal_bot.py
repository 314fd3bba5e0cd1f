"""A bot command for the ladder tests, written against the raw contract as a bot in any language would be.

Plays the first legal action through GetTurn/SubmitAction until the match is
over.  ``--seed`` must be a number (the ladder's ``{seed}``; unused: this bot
draws nothing).  ``--crash-file F``: exit with status 1 at once if F exists (and delete
it), so a test can make exactly one attempt fail.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc


def _claim(path: str) -> bool:
    """Delete the file if it is there: True for the one process that deleted it (two attempts may start at once)."""
    try:
        os.remove(path)
    except FileNotFoundError:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--crash-file")
    args = parser.parse_args()
    if args.crash_file and _claim(args.crash_file):
        print("crashing on purpose", file=sys.stderr)
        return 1
    metadata = (("authorization", f"Bearer {args.token}"),)
    with grpc.insecure_channel(args.server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        while True:
            turn = stub.GetTurn(pb.GetTurnRequest(), metadata=metadata, timeout=10)
            if turn.status == pb.MATCH_STATUS_OVER:
                return 0
            if turn.HasField("prompt"):
                action = turn.prompt.legal_actions[0]
                stub.SubmitAction(pb.SubmitActionRequest(turn_id=turn.prompt.turn_id, action=action),
                                  metadata=metadata, timeout=10)
            else:
                time.sleep(0.01)


if __name__ == "__main__":
    sys.exit(main())
