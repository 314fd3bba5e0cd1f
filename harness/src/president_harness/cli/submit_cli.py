"""``president submit``, ``president versions``, ``president build-log``: an author's bot versions on a server.

    president submit mybot/ --server localhost:50051 --account-token TOKEN
    president versions --server localhost:50051 --account-token TOKEN [--current VERSION]
    president versions --all --server localhost:50051 --admin-token SECRET
    president build-log VERSION --server localhost:50051 --account-token TOKEN
    president bot-output VERSION [--match MATCH] --server localhost:50051 --account-token TOKEN

``submit`` packs the folder (with its manifest, president-bot.toml) as a gzipped tar, the same bytes for the
same files, and streams it to the server, which keeps it as a new version of the account (the same content
again is the same version).  A builder (``president builder``) then builds it in its sandbox.  The manifest:

    name = "mybot"                      # for people: 1 to 64 characters
    runtime = "python"                  # python, node, binary or java
    build = "python -m compileall -q ." # optional: run once, in the sandbox, with no network (no shell)
    run = "president-bot bot.py --arena"

The account token comes from --account-token or PRESIDENT_ACCOUNT_TOKEN.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_metadata
from president_harness.hosting.bot_folder import CHUNK_BYTES, MANIFEST, ManifestError, pack, read_manifest
from president_harness.rpc_errors import describe_rpc_error

ACCOUNT_TOKEN_ENV = "PRESIDENT_ACCOUNT_TOKEN"
STATES = {pb.VERSION_STATE_QUEUED: "QUEUED", pb.VERSION_STATE_BUILDING: "BUILDING",
          pb.VERSION_STATE_READY: "READY", pb.VERSION_STATE_FAILED: "FAILED", pb.VERSION_STATE_RETIRED: "RETIRED"}


def add_submit_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", required=True, help="the server: HOST:PORT or unix:PATH")
    common.add_argument("--account-token", help=f"the account's token (or set {ACCOUNT_TOKEN_ENV})")
    submit = commands.add_parser("submit", parents=[common], help="submit a bot folder as a new version",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    submit.add_argument("folder", type=Path, metavar="DIR", help=f"the bot's folder, with its {MANIFEST}")
    submit.set_defaults(handler=submit_command)
    versions = commands.add_parser("versions", parents=[common], help="an account's versions and their states"
                                   " (--all: every account's, for the organiser)",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    versions.add_argument("--current", metavar="VERSION", help="first make VERSION (READY, or RETIRED to bring it"
                          " back) the account's current version: the one hosts run and the arena seats")
    versions.add_argument("--all", action="store_true", help="the organiser's view, with the admin token: every"
                          " account's versions, their builds, check matches, fault rates and last errors")
    versions.add_argument("--admin-token", help=f"the server's admin token, for --all (or set {ADMIN_TOKEN_ENV})")
    versions.set_defaults(handler=versions_command)
    build_log = commands.add_parser("build-log", parents=[common], help="a version's build log",
                                    description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build_log.add_argument("version", help="the version's id (see president versions)")
    build_log.set_defaults(handler=build_log_command)
    output = commands.add_parser("bot-output", parents=[common], help="what a hosted version's bot printed",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    output.add_argument("version", help="the version's id (see president versions)")
    output.add_argument("--match", default="", help="a finished match it played (default: what it printed while"
                                                    " it played no match)")
    output.set_defaults(handler=bot_output_command)


def _requests(manifest: pb.BotManifest, archive: bytes) -> Iterator[pb.SubmitBotRequest]:
    """The manifest with the archive's size and SHA-256 (the server stores nothing else), then its chunks."""
    yield pb.SubmitBotRequest(manifest=manifest, archive_bytes=len(archive),
                              archive_sha256=hashlib.sha256(archive).hexdigest())
    for at in range(0, len(archive), CHUNK_BYTES):
        yield pb.SubmitBotRequest(chunk=archive[at:at + CHUNK_BYTES])


def _token(args: argparse.Namespace, command: str) -> tuple[tuple[str, str], ...] | None:
    token = args.account_token or os.environ.get(ACCOUNT_TOKEN_ENV, "")
    if not token:
        print(f"president {command}: give --account-token or set {ACCOUNT_TOKEN_ENV}", file=sys.stderr)
        return None
    return (("authorization", f"Bearer {token}"),)


def submit_command(args: argparse.Namespace) -> int:
    if (metadata := _token(args, "submit")) is None:
        return 2
    try:
        manifest = read_manifest(args.folder)
        archive = pack(args.folder)
    except (ManifestError, OSError) as exc:
        print(f"president submit: {exc}", file=sys.stderr)
        return 2
    with grpc.insecure_channel(args.server) as channel:
        try:
            answer = pb_grpc.PresidentServiceStub(channel).SubmitBot(_requests(manifest, archive),
                                                                     metadata=metadata, timeout=120)
        except grpc.RpcError as exc:
            print(f"president submit: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    version = answer.version
    again = " (the same content as before: nothing new stored)" if answer.existed else ""
    print(f"version {version.version_id} of {version.account} ({version.manifest.name}):"
          f" {STATES.get(version.state, '?')}{again}")
    print(f"sha256 {version.sha256}, {version.archive_bytes} bytes")
    return 0


def versions_command(args: argparse.Namespace) -> int:
    if args.all and args.current is not None:
        print("president versions: --current is the author's (with the account token), --all the organiser's:"
              " give one", file=sys.stderr)
        return 2
    if args.all:
        if (metadata := admin_metadata(args.admin_token, "versions --all")) is None:
            return 2
    elif (metadata := _token(args, "versions")) is None:
        return 2
    with grpc.insecure_channel(args.server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            if args.current is not None:
                chosen = stub.SetCurrentVersion(pb.SetCurrentVersionRequest(version_id=args.current),
                                                metadata=metadata, timeout=10).version
                print(f"version {chosen.version_id} is current" if chosen.current else
                      f"version {chosen.version_id} is chosen: it becomes current when the running tournament that"
                      f" holds {chosen.account} at its version ends")
            listed = stub.ListVersions(pb.ListVersionsRequest(), metadata=metadata, timeout=10)
        except grpc.RpcError as exc:
            print(f"president versions: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    if args.all:
        _organiser_table(listed)
    else:
        _table(listed)
    return 0


def _table(listed: pb.ListVersionsResponse) -> None:
    if not listed.versions:
        print("no versions")
        return
    print(f"{'VERSION':<16}  {'STATE':<10}  {'SUBMITTED (UTC)':<16}  {'SHA256':<12}  NAME")
    for v in listed.versions:
        submitted = datetime.fromtimestamp(v.created_at.ToSeconds(), UTC).strftime("%Y-%m-%d %H:%M")
        state = STATES.get(v.state, "?") + (" *" if v.current else "")
        check = f"  ({check_text(v, without_arena=listed.without_arena)})" if v.player else ""
        print(f"{v.version_id:<16}  {state:<10}  {submitted:<16}  {v.sha256[:12]:<12}  {v.manifest.name}"
              + (f"  ({v.reason})" if v.reason else "") + check)
    print("* the account's current version, which a host runs and the arena seats: the one chosen last"
          " (--current), unless a newer version became READY since")


def _organiser_table(listed: pb.ListVersionsResponse) -> None:
    """Every account's versions: build state, check matches, faults per move and the last error."""
    if not listed.versions:
        print("no versions on this server")
        return
    if listed.without_arena:
        print("this server runs without the arena: no check match comes (president serve --arena runs it)")
    width = max(7, *(len(v.account) for v in listed.versions))
    print(f"{'ACCOUNT':<{width}}  {'VERSION':<16}  {'STATE':<10}  {'CHECKS':<18}  {'FAULTS':<24}  NAME")
    for v in listed.versions:
        state = STATES.get(v.state, "?") + (" *" if v.current else "")
        record = v.record
        checks = (f"{record.check_matches - record.checks_failed} passed, {record.checks_failed} failed"
                  if record.check_matches else "none")
        print(f"{v.account:<{width}}  {v.version_id:<16}  {state:<10}  {checks:<18}  {fault_rate(record):<24}"
              f"  {v.manifest.name}")
        if v.player:
            print(f"{'':<{width}}  check: {check_text(v, without_arena=listed.without_arena)}")
        if error := last_error(v):
            print(f"{'':<{width}}  last error: {error}")
    print("* the account's current version, which a host runs and the arena seats; CHECKS: its check matches"
          " against the house bots; FAULTS: errors, time-outs, illegal answers and strikes per move played in its"
          " finished matches")


def fault_rate(record: pb.VersionRecord) -> str:
    """Its faults over the moves it was to make, as a count and a share ("-" before any move)."""
    if not record.moves:
        return "-"
    from president_engine.narrate import counted

    faults = record.faults
    total = faults.errors + faults.timeouts + faults.invalid + faults.strikes
    return f"{total} in {counted(record.moves, 'move')} ({total / record.moves:.1%})"


def last_error(v: pb.BotVersion) -> str:
    """Why its build failed, else its last fault (empty: neither)."""
    if v.state == pb.VERSION_STATE_FAILED:
        return f"build failed: {v.reason}"
    return v.record.last_fault


def check_text(v: pb.BotVersion, *, without_arena: bool) -> str:
    """What became of a built version's check matches, and what comes next, in one line."""
    from president_engine.narrate import counted, duration

    record = v.record
    if v.checked:
        return "check match passed" + (f" after {counted(record.checks_failed, 'failed one')}"
                                       if record.checks_failed else "")
    if without_arena:
        return "no check match on this server: it runs without the arena"
    if record.checks_failed:
        said = f"check failed {counted(record.checks_failed, 'time')}" + (
            f" of {record.check_matches}" if record.check_matches > record.checks_failed else "")
        if record.last_check_failed and record.last_fault.startswith(f"check match {record.last_check_id}:"):
            said += f"; the last, {record.last_fault}"
    else:
        said = "check match to come"
    if v.state != pb.VERSION_STATE_READY:
        return said + "; retired: it plays no more"
    if not v.current:
        return said + "; not current: the arena checks its account's current version only"
    if v.HasField("next_check_at"):
        wait = max(0.0, v.next_check_at.ToMicroseconds() / 1e6 - time.time())
        return said + f"; next check in {duration(wait)}, or sooner if its bot reconnects"
    return said + ("; next check as soon as its host plays it" if record.checks_failed else "")


def build_log_command(args: argparse.Namespace) -> int:
    if (metadata := _token(args, "build-log")) is None:
        return 2
    with grpc.insecure_channel(args.server) as channel:
        try:
            got = pb_grpc.PresidentServiceStub(channel).GetBuildLog(pb.GetBuildLogRequest(version_id=args.version),
                                                                    metadata=metadata, timeout=10)
        except grpc.RpcError as exc:
            print(f"president build-log: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    version = got.version
    print(f"version {version.version_id}: {STATES.get(version.state, '?')}"
          + (f": {version.reason}" if version.reason else ""))
    sys.stdout.write(got.log or "(no build log yet)\n")
    return 0


def bot_output_command(args: argparse.Namespace) -> int:
    if (metadata := _token(args, "bot-output")) is None:
        return 2
    with grpc.insecure_channel(args.server) as channel:
        try:
            got = pb_grpc.PresidentServiceStub(channel).GetBotOutput(
                pb.GetBotOutputRequest(version_id=args.version, match_id=args.match), metadata=metadata, timeout=10)
        except grpc.RpcError as exc:
            print(f"president bot-output: {describe_rpc_error(exc, args.server)}", file=sys.stderr)
            return 1
    during = f"during match {args.match}" if args.match else "outside its matches"
    more = "".join(f", {n} {what}" for n, what in ((got.held_back, "held back until the matches they were printed"
                                                                      " in are over"),
                                                     (got.dropped, "older ones left out")) if n)
    from president_engine.narrate import counted
    print(f"{got.version.player or got.version.version_id} {during}: {counted(len(got.lines), 'line')}{more}")
    for line in got.lines:
        print(datetime.fromtimestamp(line.at.ToMicroseconds() / 1e6, UTC).strftime("%H:%M:%S.%f")[:-3], line.text)
    return 0
