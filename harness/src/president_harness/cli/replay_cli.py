"""``president replay``: a finished match from a server, as a replay file that needs no server, or as its record.

    president replay MATCH_ID --server localhost:50051 --html replay.html
    president replay MATCH_ID --json record.json        (the record: python -m president_engine replay checks it)

The HTML file is the server's replay page with the match written into it:
it opens from disk, offline, and plays the match step by step with every
hand face up or through one seat's eyes.  While another live match deals
the same cards (a duplicate board) the server shows the replay only with
the admin token: --admin-token or PRESIDENT_ADMIN_TOKEN, when set.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.server.serve_cli import ADMIN_TOKEN_ENV

from president_harness.rpc_errors import describe_rpc_error


def add_replay_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    replay = commands.add_parser("replay", help="save a finished match as a replay file (HTML) or its record (JSON)",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument("match_id", metavar="MATCH_ID")
    replay.add_argument("--server", default="localhost:50051", help="HOST:PORT (default localhost:50051)")
    replay.add_argument("--html", type=Path, metavar="FILE", help="write a self-contained HTML replay to FILE")
    replay.add_argument("--json", metavar="FILE", help="write the match record (JSON) to FILE; - for standard output")
    replay.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV}); needed only"
                                              " while another live match deals the same cards")
    replay.set_defaults(handler=replay_command)


def replay_command(args: argparse.Namespace) -> int:
    from president_engine import RecordError
    from president_protocol import convert
    from president_protocol.replay_page.replay_file import replay_html
    from president_protocol.replay_page.replay_frames import FramesError, replay_frames

    if args.html is None and args.json is None:
        print("president replay: give --html FILE, --json FILE, or both", file=sys.stderr)
        return 2
    token = args.admin_token or os.environ.get(ADMIN_TOKEN_ENV, "")
    with grpc.insecure_channel(args.server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            found = stub.GetReplay(pb.GetReplayRequest(match_id=args.match_id),
                                   metadata=(("authorization", f"Bearer {token}"),) if token else None, timeout=30)
            summary = stub.GetMatch(pb.GetMatchRequest(match_id=args.match_id), timeout=30).match
        except grpc.RpcError as exc:
            print(f"president replay: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    try:
        record = convert.replay_from_proto(found.replay)
        outputs: list[tuple[str, str]] = []
        if args.json is not None:
            outputs.append((args.json, record.dumps() + "\n"))
        if args.html is not None:
            frames = replay_frames(record, list(found.replay.names), match_id=args.match_id,
                                   summaries=summary.players)
            outputs.append((str(args.html), replay_html(frames)))
    except (convert.WireError, RecordError, FramesError) as exc:
        print(f"president replay: the server's record of {args.match_id} does not replay: {exc}", file=sys.stderr)
        return 1
    for path, text in outputs:
        if path == "-":
            sys.stdout.write(text)
            continue
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"president replay: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"president replay: wrote {path}", file=sys.stderr)
    return 0

