"""`president new NAME --lang L` (issue 46): a bot folder from a starter kit, made in a temporary folder as an author
makes it, with the kit's source and no build output, the contract's copy where the kit reads it, a manifest that
`president submit` reads (and, for Python, a real server stores and `president builder` builds in the sandbox), and
a conformance.sh that passes the conformance suite (Python here; Go where its toolchain is installed, in the Go
kit's xdist group).  Bad names and existing folders are refused in one line, with nothing made."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit_support import GO, ROOT
from president_harness.cli import new_cli
from president_harness.cli.new_cli import LANGUAGES
from president_harness.cli.president_cli import main
from president_harness.hosting.bot_folder import read_manifest
from president_protocol.v1 import president_pb2 as pb
from sandbox_support import require_sandbox
from support import node_packages

PRESIDENT = Path(sys.executable).parent / "president"
ADMIN = "new-bot-admin-5c81"
RUNTIMES = {"python": pb.RUNTIME_PYTHON, "node": pb.RUNTIME_NODE, "go": pb.RUNTIME_BINARY,
            "cpp": pb.RUNTIME_BINARY, "java": pb.RUNTIME_JAVA}


def new(here: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`president new ARGS` run in `here`, as an author runs it."""
    return subprocess.run([str(PRESIDENT), "new", *args], cwd=here, capture_output=True, text=True, timeout=60,
                          check=False)


def files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_new_makes_a_folder_of_the_kit_with_its_manifest_and_the_next_commands(lang: str, tmp_path: Path) -> None:
    made = new(tmp_path, f"my{lang}", "--lang", lang)
    assert made.returncode == 0 and made.stderr == "", made.stdout + made.stderr
    folder = tmp_path / f"my{lang}"
    manifest = read_manifest(folder)
    assert manifest.name == f"my{lang}" and manifest.runtime == RUNTIMES[lang] and manifest.run, manifest
    kit = ROOT / "examples" / lang
    if (kit / "president-bot.toml").is_file():  # the kit's runtime, build and run, as the hosted kits' tests host them
        own = tomllib.loads((kit / "president-bot.toml").read_text())
        assert (manifest.build, manifest.run) == (own["build"], own["run"])
    got = files(folder)
    assert {"president-bot.toml", "conformance.sh"} <= got
    assert not {name for name in got if name.split("/")[0] in ("build", "bot", "node_modules")}, got
    if lang == "python":
        assert got == {"bot.py", "president-bot.toml", "conformance.sh"}
        assert (folder / "bot.py").read_text() == (kit / "first_bot.py").read_text()
    else:  # the kit's source, and the contract in the folder, where its build or its bot reads it
        source = {p.relative_to(kit).as_posix() for p in kit.rglob("*") if p.is_file()
                  and p.relative_to(kit).parts[0] not in ("build", "bot", "node_modules")} - {"README.md",
                                                                                                "president-bot.toml"}
        assert got == source | {"president-bot.toml", "conformance.sh", "protos/president/v1/president.proto"}
        assert (folder / "protos/president/v1/president.proto").read_bytes() == \
            (ROOT / "protos/president/v1/president.proto").read_bytes()
        for name in LANGUAGES[lang].contract_in:
            assert "../../protos" not in (folder / name).read_text() and "protos" in (folder / name).read_text()
    assert os.access(folder / "conformance.sh", os.X_OK)
    lines = made.stdout.splitlines()
    assert lines[0] == f"made my{lang}/: the {lang} kit's bot, its manifest (president-bot.toml) and conformance.sh"
    assert f"my{lang}/conformance.sh" in made.stdout
    submit = f"{PRESIDENT} submit my{lang}/ --server HOST:PORT --account-token TOKEN # a new version"
    assert " ".join(lines[-1].split()) == submit, lines


@pytest.mark.parametrize(("name", "message"), [
    ("taken", "president new: taken/ already exists: choose another name, or remove it"),
    ("../out", "president new: '../out' is not a bot name: a letter, then up to 63 letters, digits, - or _"),
    ("9lives", "president new: '9lives' is not a bot name: a letter, then up to 63 letters, digits, - or _"),
    ("a" * 65, f"president new: '{'a' * 65}' is not a bot name: a letter, then up to 63 letters, digits, - or _"),
], ids=["existing", "path", "digit-first", "too-long"])
def test_new_refuses_a_bad_name_or_an_existing_folder_in_one_line(name: str, message: str, tmp_path: Path) -> None:
    here = tmp_path / "here"
    (here / "taken").mkdir(parents=True)
    (here / "taken" / "mine.py").write_text("kept\n")
    refused = new(here, name, "--lang", "go")
    assert refused.returncode == 2 and refused.stdout == "" and refused.stderr == message + "\n", refused.stderr
    assert files(tmp_path) == {"here/taken/mine.py"} and (here / "taken" / "mine.py").read_text() == "kept\n"


def test_new_without_the_kits_says_where_to_get_them_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    refused = new(tmp_path, "mybot", "--lang", "python", "--from", str(tmp_path))
    assert refused.returncode == 2 and refused.stderr == (
        f"president new: {tmp_path} has no examples/python and protos/president/v1/president.proto: give --from a"
        " clone of the President repository\n"), refused.stderr
    assert not (tmp_path / "mybot").exists()
    # an installed harness (its source in site-packages, no clone around it) has no kits of its own
    installed = tmp_path / "site-packages" / "president_harness" / "cli" / "new_cli.py"
    monkeypatch.setattr(new_cli, "__file__", str(installed))
    monkeypatch.chdir(tmp_path)
    assert main(["new", "mybot", "--lang", "go"]) == 2
    assert capsys.readouterr().err == ("president new: this president is an installed harness, which ships no kits:"
                                       " give --from CLONE, a clone of the President repository\n")
    assert not (tmp_path / "mybot").exists()


def conformance(script: Path) -> subprocess.CompletedProcess[str]:
    """The folder's conformance.sh, with this checkout's president (as the next commands print it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRESIDENT_")} | {"PRESIDENT": str(PRESIDENT)}
    return subprocess.run([str(script)], capture_output=True, text=True, timeout=900, check=False, env=env)


def assert_all_passed(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stdout + done.stderr
    cases = re.findall(r"^(PASS|FAIL|SKIP)  ", done.stdout, re.M)
    assert len(cases) >= 17 and set(cases) == {"PASS"}, done.stdout


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """`president serve` on a Unix socket, with an admin token."""
    log = tmp_path / "server.log"
    with log.open("w") as out:
        process = subprocess.Popen([str(PRESIDENT), "serve", "--port", "0", "--unix", str(tmp_path / "s.sock"),
                                    "--db", str(tmp_path / "s.db")], env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN),
                                   stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "serving on" not in log.read_text():
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield f"unix:{tmp_path / 's.sock'}"
    finally:
        process.terminate()
        process.wait(20)


def run(*args: str, cwd: Path | None = None) -> str:
    """`president ARGS`, which must succeed; its output."""
    done = subprocess.run([str(PRESIDENT), *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_new_python_bot_passes_conformance_and_is_submitted_and_built(tmp_path: Path, server: str) -> None:
    assert new(tmp_path, "firstbot", "--lang", "python").returncode == 0
    folder = tmp_path / "firstbot"
    assert_all_passed(conformance(folder / "conformance.sh"))
    token = re.search(r"^token: (\S+)$", run("account", "create", "ada", "--owner", "Ada", "--server", server),
                      re.M).group(1)  # type: ignore[union-attr]
    submitted = run("submit", "firstbot/", "--server", server, "--account-token", token, cwd=tmp_path)
    version = re.match(r"version ([0-9a-f]{16}) of ada \(firstbot\): QUEUED$", submitted, re.M)
    assert version, submitted
    require_sandbox()
    built = run("builder", "--server", server, "--work", str(tmp_path / "work"), "--slot", "74", "--once",
                "--name", "tests")
    assert f"{version.group(1)} (ada: firstbot): READY after " in built, built


HOSTING_MD = (".venv/bin/president new gobot --lang go", "make -C gobot",
              "PRESIDENT=.venv/bin/president gobot/conformance.sh",
              ".venv/bin/president submit gobot/ --server unix:run/president.sock --account-token TOKEN")
"""docs/hosting.md's commands for a new Go bot, run here as written (in a folder with this checkout's .venv)."""


@pytest.mark.xdist_group("go-kit")
@GO.skip_unless_ci
def test_a_new_go_bot_builds_passes_conformance_and_is_submitted_as_hosting_md_says(tmp_path: Path,
                                                                                    server: str) -> None:
    hosting = (ROOT / "docs" / "hosting.md").read_text()
    assert all(command in hosting for command in HOSTING_MD)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    token = re.search(r"^token: (\S+)$", run("account", "create", "gopher", "--owner", "Go", "--server", server),
                      re.M).group(1)  # type: ignore[union-attr]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRESIDENT_")}
    out = []
    for command in HOSTING_MD:
        command = command.replace("unix:run/president.sock", server).replace("TOKEN", token)
        done = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=900,
                              check=False, env=env)
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
        out.append(done.stdout)
    made, _, checked, submitted = out
    assert [" ".join(line.split()) for line in made.splitlines()[1:]] == [
        "next:", "make -C gobot # builds gobot/bot",
        "gobot/bot --server localhost:50051 --token TOKEN # a seat of `make run`'s match",
        "PRESIDENT=.venv/bin/president gobot/conformance.sh # the conformance suite",
        ".venv/bin/president submit gobot/ --server HOST:PORT --account-token TOKEN # a new version"], made
    assert_all_passed(subprocess.CompletedProcess([], 0, checked, ""))
    assert re.match(r"version [0-9a-f]{16} of gopher \(gobot\): QUEUED$", submitted, re.M), submitted


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the Node kit needs Node 18+")
def test_a_new_node_bot_passes_conformance_and_reads_the_hosts_variables(tmp_path: Path, server: str) -> None:
    assert new(tmp_path, "nodebot", "--lang", "node").returncode == 0
    folder = tmp_path / "nodebot"
    (folder / "node_modules").symlink_to(node_packages().parent / "node_modules")  # `npm ci`, done once for the kit
    assert_all_passed(conformance(folder / "conformance.sh"))
    # as a host runs its manifest's `run`: the server and the account's token only in PRESIDENT_SERVER and
    # PRESIDENT_ACCOUNT_TOKEN (a token the server does not know, so the bot reaches it and is refused)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRESIDENT_")}
    hosted = subprocess.run(read_manifest(folder).run.split(), cwd=folder, capture_output=True, text=True,
                            timeout=60, check=False,
                            env=env | {"PRESIDENT_SERVER": server, "PRESIDENT_ACCOUNT_TOKEN": "not-a-token"})
    assert hosted.returncode == 1 and hosted.stderr == (
        "node-bot: error: UNAUTHENTICATED BAD_TOKEN: this token is not an account's (or it was rotated)\n"), hosted
