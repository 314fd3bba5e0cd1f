"""`make buf-breaking` (tools/buf_breaking.sh): skipped without an earlier contract, failing on a real break.

Each test builds a small git repository holding a copy of protos/ and runs the
script there, so the real history of this repository does not matter.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "buf_breaking.sh"
BUF = Path(sys.executable).parent / "buf"
PROTO = Path("protos") / "president" / "v1" / "president.proto"

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not BUF.exists(), reason="needs git and buf")


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, text=True, timeout=60, check=True,
    )
    return result.stdout


def check(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), str(BUF)], cwd=repo, capture_output=True, text=True, timeout=120, check=False)


def new_repo(path: Path, *, with_protos: bool) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "README").write_text("first\n")
    if with_protos:
        shutil.copytree(ROOT / "protos", path / "protos")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "first")
    return path


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def edit_proto(repo: Path, old: str, new: str) -> None:
    path = repo / PROTO
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_single_commit_is_skipped(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", with_protos=True)
    result = check(repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skipped: no previous protos" in result.stdout


def test_previous_commit_without_protos_is_skipped(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", with_protos=False)
    shutil.copytree(ROOT / "protos", repo / "protos")
    commit_all(repo, "contract")
    result = check(repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skipped: no previous protos" in result.stdout


def test_shallow_clone_is_skipped(tmp_path: Path) -> None:
    origin = new_repo(tmp_path / "origin", with_protos=True)
    (origin / "README").write_text("second\n")
    commit_all(origin, "second")
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", "shallow")
    result = check(tmp_path / "shallow")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skipped: no previous protos" in result.stdout
    assert "shallow" in result.stdout


def test_compatible_change_passes(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", with_protos=True)
    added = "message GetTurnRequest {\n  // A new optional hint.\n  string hint = 1;\n}"
    edit_proto(repo, "message GetTurnRequest {}", added)
    commit_all(repo, "add a field")
    result = check(repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skipped" not in result.stdout


def test_breaking_change_fails(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", with_protos=True)
    (repo / "README").write_text("second\n")
    commit_all(repo, "second")
    # An uncommitted change in the working tree is compared too.
    field = "  // The turn id from the prompt.\n  {} turn_id = 1;"
    edit_proto(repo, field.format("uint64"), field.format("uint32"))
    result = check(repo)
    assert result.returncode != 0, result.stdout + result.stderr
    assert "turn_id" in result.stdout + result.stderr
