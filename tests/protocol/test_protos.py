"""The president.v1 contract: lint clean, generated code up to date, and its documented lists complete."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from president_engine import IllegalReason
from president_protocol.v1 import president_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "protos" / "president" / "v1" / "president.proto"
GENERATED = ROOT / "protocol" / "src" / "president_protocol" / "v1"
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_buf_lint_passes() -> None:
    buf = Path(sys.executable).parent / "buf"
    result = subprocess.run([str(buf), "lint"], cwd=ROOT / "protos", capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_make
def test_committed_generated_code_is_what_make_protos_writes(tmp_path: Path) -> None:
    result = run("make", "--no-print-directory", "check-protos", f"PROTO_CHECK={tmp_path / 'check'}")
    assert result.returncode == 0, result.stdout + result.stderr


@needs_make
def test_check_protos_fails_with_a_clear_message_on_stale_code(tmp_path: Path) -> None:
    stale = tmp_path / "v1"
    shutil.copytree(GENERATED, stale, ignore=shutil.ignore_patterns("__pycache__"))
    (stale / "president_pb2.py").write_text("# edited by hand\n")
    result = run("make", "--no-print-directory", "check-protos", f"PROTO_OUT={stale}",
                 f"PROTO_CHECK={tmp_path / 'check'}")
    assert result.returncode != 0
    assert "run 'make protos'" in result.stderr


def test_generated_modules_import_each_other_relatively() -> None:
    paths = sorted(GENERATED.glob("*_grpc.py*"))
    assert paths
    for path in paths:
        text = path.read_text()
        assert "from president.v1 import" not in text, path
        assert "from . import president_pb2 " in text, path


def test_error_reasons_cover_the_required_list() -> None:
    names = {name.removeprefix("ERROR_REASON_") for name in pb.ErrorReason.DESCRIPTOR.values_by_name}
    assert names >= {"NOT_YOUR_TURN", "ILLEGAL_ACTION", "STALE_TURN", "DUPLICATE_ACTION", "UNKNOWN_MATCH",
                     "BAD_TOKEN", "MISSING_TOKEN", "NOT_ADMIN", "BAD_OPTION", "BAD_HANDS", "TOO_MANY_MATCHES",
                     "TOO_MANY_STREAMS", "MATCH_OVER", "MATCH_NOT_OVER", "MALFORMED", "NO_FREE_SEAT"}


def test_illegal_action_documents_every_engine_illegal_reason() -> None:
    text = PROTO.read_text()
    doc = re.search(r"((?:\s*//[^\n]*\n)+)\s*ERROR_REASON_ILLEGAL_ACTION = ", text)
    assert doc is not None
    # MATCH_OVER and NOT_YOUR_TURN have error reasons of their own.
    documented = set(re.findall(r"[A-Z_]{4,}", doc.group(1)))
    expected = {r.value for r in IllegalReason} - {"MATCH_OVER", "NOT_YOUR_TURN"}
    assert expected <= documented
