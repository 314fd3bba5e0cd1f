"""Every command the README and the docs show runs as written, from a shell with no activated environment.

The commands are read from the ```sh blocks of the docs.  Each one is either
run here, exactly as written, in a copy of the repository that shares this
checkout's `.venv` (a placeholder such as SEAT_TOKEN is replaced by the value
the command before it printed, as a reader would paste it), or named in
COVERED with the test that runs it instead and why.  A command added to a doc
without either fails `test_every_doc_command_is_run_or_covered`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "sdk/README.md", "examples/node/README.md", "examples/go/README.md", "examples/java/README.md",
        "examples/cpp/README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")))

HOSTED_FLOW = "tests/harness/test_hosted_versions.py runs the organiser's flow with these commands"
TOURNAMENT_FLOW = "tests/harness/test_tournament_flow.py runs the organiser's flow with these commands (free ports)"
UECDA_FLOW = "tests/harness/test_uecda_cli.py runs the contest's flow with these commands (free ports, 3 games)"
EVENT_FLOW = "tests/harness/test_organiser_event.py runs the open event with these commands (free ports)"
EVALUATE = "tests/sdk/test_evaluate.py runs these commands as written (in a folder holding examples/ and .venv)"
NEW_BOT = "tests/harness/test_new_bot.py runs these as written, in a folder with this .venv (its server, its token)"
COVERED = {
    ".venv/bin/president-bot examples/python/first_bot.py --local --matches 8 --opponents random easy --workers 2"
    " --replay replays": EVALUATE,
    ".venv/bin/president new gobot --lang go": NEW_BOT,
    "make -C gobot": NEW_BOT,
    "PRESIDENT=.venv/bin/president gobot/conformance.sh": NEW_BOT,
    ".venv/bin/president submit gobot/ --server unix:run/president.sock --account-token TOKEN": NEW_BOT,
    ".venv/bin/president tournament create spring --format swiss --rounds 2 --players 3 --duplicate --entrants"
    " ada,bob,cy --builtin hard,normal,easy --server localhost:50051 --admin-token SECRET": EVENT_FLOW,
    ".venv/bin/president uecda serve --games 1000": UECDA_FLOW,
    ".venv/bin/president-bot examples/python/first_bot.py --uecda 127.0.0.1:42485":
        "tests/sdk/test_uecda_client.py runs it as written but for a free port, against a server that sends the"
        " reference server's tables, to the end flag",
    ".venv/bin/president-bot builtin:expert --uecda 127.0.0.1:42485": UECDA_FLOW,
    ".venv/bin/president-bot builtin:normal --uecda 127.0.0.1": UECDA_FLOW,
    ".venv/bin/president uecda serve --games 100 --seat builtin:expert --seat builtin:hard": UECDA_FLOW,
    ".venv/bin/president uecda serve --scenario reference.log --log ours.log": UECDA_FLOW,
    ".venv/bin/president uecda compare ours.log reference.log": UECDA_FLOW,
    "make test": "CI runs it (.ci/run) on a fresh machine",
    "make venv": "every `make test` starts with it",
    "python3 -m venv .venv": "a second environment beside the shared one; `make venv` installs the same",
    ".venv/bin/pip install ./engine ./protocol ./sdk": "a new environment's install (not the shared .venv):"
                                                     " tests/engine/test_wheel.py and tests/sdk/test_sdk_wheel.py"
                                                     " build and install the same wheels",
    ".venv/bin/python examples/learning/train.py --out trained.npz": "minutes of training; tests/learn trains a few"
                                                                    " matches through the same code",
    ".venv/bin/python examples/learning/evaluate.py --weights trained.npz": "needs the file training writes;"
                                                                          " tests/learn plays the shipped weights",
    ".venv/bin/president ladder examples/ladder.toml --ray local": "starts Ray (tests/harness/test_ray.py plays"
                                                                    " a ladder on a local Ray instance)",
    "make bench-expert": "about 45 minutes on 2 cores; tests/tools/test_bench_scripts.py runs the same script on a"
                         " tiny workload",
    "make bench-bots": "minutes; tests/tools/test_bench_scripts.py runs the same script on a tiny workload",
    '.venv/bin/president ladder examples/expert-ladders/cardverse.toml --expect "expert > hard"':
        "minutes of 100 ms decisions; tests/harness/test_config.py loads every expert ladder file, and this"
        " scenario runs `president ladder` with a gate on examples/ladder.toml",
    '.venv/bin/president ladder examples/expert-ladders/workers.toml --expect "expert > alone"':
        "minutes of 100 ms decisions (and a claim meant to fail); tests/harness/test_config.py loads the file",
    "make bench-playouts": "tests/tools/test_bench_scripts.py runs the same script on a tiny workload",
    "make bench-expert-ladders": "about 30 minutes on 2 cores: the commands above for each preset and deeper.toml",
    '.venv/bin/president ladder examples/expert-ladders/deeper.toml --expect "expert > before"':
        "minutes of 100 ms decisions; tests/harness/test_config.py loads the file and its bot",
    '.venv/bin/president ladder examples/expert-ladders/beyond.toml --expect "expert > one-deal"':
        "about 20 minutes of 100 ms decisions; tests/harness/test_config.py loads the file and its bot",
    "make bench-engine": "compiles the engine, then minutes of timing; tests/tools/test_bench_scripts.py runs the"
                         " script, tests/engine/test_build.py the compiled build",
    ".venv/bin/python benchmarks/engine_bench.py --profile": "tests/tools/test_bench_scripts.py",
    "make node-deps": "tests/node/test_node_bot.py installs the Node packages the same way",
    "node examples/node/bot.js --server localhost:50051 --token SEAT_TOKEN": "tests/node/test_node_bot.py",
    "node examples/node/bot.js --server localhost:50051 --account-token ACCOUNT_TOKEN": "tests/node/test_node_bot.py",
    ".venv/bin/president replay MATCH_ID --server localhost:50051 --html run/replay.html --json run/record.json":
        "tests/harness/test_replay_cli.py runs it on a finished match",
    ".venv/bin/president-bot president_learn.policy_bot:TrainedBot --server localhost:50051 --token SEAT_TOKEN":
        "the same runner as the first bot's --token command, run here",
    "sudo apt-get install golang-go golang-google-grpc-dev protoc-gen-go-grpc golang-goprotobuf-dev protobuf-compiler":
        ".ci/run installs the same packages on a fresh machine",
    "make -C examples/go": "tests/go/test_go_kit.py builds a clean copy of the kit with it",
    "examples/go/bot --server localhost:50051 --token TOKEN": "tests/go/test_go_kit.py runs the built bot so"
                                                              " against the conformance suite's server",
    "examples/go/bot --server localhost:50051 --token TOKEN --again": "tests/go/test_go_kit.py runs the built bot"
                                                                      " so on a dev seat, two matches",
    "examples/cpp/bot --server localhost:50051 --token TOKEN --again": "tests/cpp/test_cpp_kit.py runs the built bot"
                                                                       " so on a dev seat, two matches",
    "node examples/node/bot.js --server localhost:50051 --token SEAT_TOKEN --again": "tests/node/test_node_bot.py"
                                                                                     " runs it on a dev seat",
    "examples/go/bot --server localhost:50051 --account-token TOKEN --arena": "tests/go/test_go_kit.py runs the"
                                                                              " built bot on a Session so",
    ".venv/bin/president conformance -- examples/go/bot --server {server} --token {token}": "tests/go/test_go_kit.py",
    ".venv/bin/president conformance -- examples/go/bot --server {server} --account-token {account_token}":
        "tests/go/test_go_kit.py",
    "sudo apt-get install default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java"
    " libprotobuf-java libgoogle-common-protos-java libguava-java libnetty-java libperfmark-java libgoogle-gson-java":
        ".ci/run installs the same packages on a fresh machine",
    "make -C examples/java": "tests/java/test_java_kit.py builds a clean copy of the kit with it",
    "examples/java/bot --server localhost:50051 --token TOKEN --again": "tests/java/test_java_kit.py runs the built"
                                                                        " bot so on a dev seat, two matches",
    "examples/java/bot --server localhost:50051 --token TOKEN": "tests/java/test_java_kit.py runs the built bot so"
                                                                " against the conformance suite's server",
    "examples/java/bot --server 127.0.0.1:50051 --account-token TOKEN --arena": "tests/java/test_java_kit.py runs"
                                                                               " the built bot so (both modes)",
    ".venv/bin/president conformance -- examples/java/bot --server {server} --token {token}":
        "tests/java/test_java_kit.py",
    ".venv/bin/president conformance -- examples/java/bot --server {server} --account-token {account_token}":
        "tests/java/test_java_kit.py",
    "sudo apt-get install g++ make pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc":
        ".ci/run installs the same packages on a fresh machine",
    "make -C examples/cpp": "tests/cpp/test_cpp_kit.py builds a clean copy of the kit with it",
    "examples/cpp/bot --server localhost:50051 --token TOKEN": "tests/cpp/test_cpp_kit.py runs the built bot so"
                                                               " against the conformance suite's server",
    "examples/cpp/bot --server localhost:50051 --account-token TOKEN --arena": "tests/cpp/test_cpp_kit.py runs"
                                                                               " the built bot on a Session so",
    ".venv/bin/president conformance -- examples/cpp/bot --server {server} --token {token}":
        "tests/cpp/test_cpp_kit.py",
    ".venv/bin/president conformance -- examples/cpp/bot --server {server} --account-token {account_token}":
        "tests/cpp/test_cpp_kit.py",
    ".venv/bin/president doctor --db run/event.db --port 50051 --port 8080": "tests/harness/test_doctor.py runs it"
                                                                              " (on a free port: tests/docs takes"
                                                                              " these two)",
    "PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president serve --db run/president.db --arena --unix run/president.sock":
        "tests/harness/test_host_cli.py serves on a Unix socket the same way (on a free TCP port beside it)",
    '.venv/bin/president account create theirbot --owner "Ada" --server unix:run/president.sock'
    " --admin-token SECRET": "the scenario runs `president account create` over TCP; a unix: target is read by grpc"
                               " (tests/harness/test_host_cli.py's server listens on one)",
    "PRESIDENT_ACCOUNT_TOKEN=TOKEN .venv/bin/president host --server unix:run/president.sock --bot theirbot/"
    ' --run "president-bot bot.py --arena" --slot 1': "tests/harness/test_host_cli.py hosts a bot folder so and"
                                                    " plays its match",
    ".venv/bin/president submit theirbot/ --server unix:run/president.sock --account-token TOKEN":
        "tests/harness/test_submissions.py submits bot folders so to a server on a Unix socket",
    ".venv/bin/president versions --server unix:run/president.sock --account-token TOKEN":
        "tests/harness/test_submissions.py lists an account's versions so",
    ".venv/bin/president build-log VERSION --server unix:run/president.sock --account-token TOKEN":
        "tests/harness/test_submissions.py reads a READY and a FAILED version's log so",
    "PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president builder --server unix:run/president.sock --work run/builds/"
    " --slot 2": "tests/harness/test_submissions.py runs the builder so (with --admin-token and --once)",
    "PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president versions --all --server unix:run/president.sock":
        "tests/service/test_version_listing.py lists every account's versions so (the admin token from the"
        " environment; over TCP)",
    ".venv/bin/president submit examples/go --server localhost:50051 --account-token TOKEN":
        "tests/harness/test_hosted_kits.py submits a built copy of the kit so to `president arena` (free ports)",
    ".venv/bin/president versions --server localhost:50051 --account-token TOKEN":
        "tests/harness/test_hosted_kits.py lists the kit's version so once it is checked",
    ".venv/bin/president submit examples/java --server HOST:PORT --account-token TOKEN":
        "tests/harness/test_hosted_kits.py submits a built copy of the kit so to `president arena` (free ports)",
    ".venv/bin/president submit examples/cpp --server localhost:50051 --account-token TOKEN":
        "tests/harness/test_hosted_kits.py submits the Go kit so, whose manifest is the same (a second C++ build"
        " does not fit the CI budget)",
    ".venv/bin/president arena --admin-token SECRET --db run/event.db": HOSTED_FLOW + " (on free ports)",
    '.venv/bin/president account create ada --owner "Ada" --server localhost:50051 --admin-token SECRET':
        HOSTED_FLOW,
    ".venv/bin/president submit adabot/ --server localhost:50051 --account-token TOKEN": HOSTED_FLOW,
    "PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president builder --server localhost:50051 --work run/builds/ --slot 2":
        HOSTED_FLOW + " (with --once)",
    "PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president host --server localhost:50051 --versions --work run/builds/"
    " --slot 10 --bots 8": HOSTED_FLOW,
    "PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president serve --db run/event.db --http-port 8080": TOURNAMENT_FLOW,
    '.venv/bin/president account create alice --owner "Alice" --admin-token SECRET': TOURNAMENT_FLOW,
    ".venv/bin/president-bot examples/python/first_bot.py --account-token TOKEN --max-matches 8": TOURNAMENT_FLOW,
    ".venv/bin/president house hard,normal,easy,random --admin-token SECRET": TOURNAMENT_FLOW,
    ".venv/bin/president tournament create spring --format swiss --rounds 3 --duplicate --entrants alice"
    " --unchecked alice --builtin hard,normal,easy,random --admin-token SECRET": TOURNAMENT_FLOW,
    ".venv/bin/president tournament start ID --admin-token SECRET": TOURNAMENT_FLOW,
    ".venv/bin/president tournament create open --format swiss --rounds 3 --entrants ada,bob,cy --builtin"
    " easy,random --admin-token SECRET": "tests/harness/test_tournament_faults.py runs it beside the arena (its own"
    " names, the broken entrants named with --unchecked after the refusal)",
    ".venv/bin/president tournament status ID --watch": TOURNAMENT_FLOW,
    ".venv/bin/president tournament export ID --as md --out spring.md": TOURNAMENT_FLOW,
}


def _strip(line: str) -> str:
    return re.sub(r"\s+#.*$", "", line).strip()


def doc_commands() -> list[tuple[str, str]]:
    """(doc, command) for every command line of every ```sh block, comments dropped."""
    out = []
    for doc in DOCS:
        for block in re.findall(r"```(?:sh|bash|shell)\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.S):
            for line in block.splitlines():
                command = _strip(line)
                if command and not command.startswith("#"):
                    out.append((doc, command))
    return out


RUN: set[str] = set()
"""The commands the scenario below runs (filled as it runs them; checked by the coverage test)."""


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's files (as git lists them, times kept so `make` sees them installed) with this `.venv`."""
    target = tmp_path_factory.mktemp("newcomer")
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(ROOT / ".venv")
    return target


class Shell:
    """Commands as a reader types them, in the copy; background ones until their server says it is ready."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        self.env["PATH"] = ":".join(p for p in self.env.get("PATH", "").split(":") if ".venv" not in p)

    def run(self, command: str, *, timeout: float = 300, values: dict[str, str] | None = None) -> str:
        RUN.add(command)
        done = subprocess.run(["bash", "-c", _fill(command, values)], cwd=self.cwd, env=self.env, text=True,
                              capture_output=True, timeout=timeout, check=False)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    @contextmanager
    def background(self, command: str, ready: str, *, timeout: float = 120,
                   values: dict[str, str] | None = None) -> Iterator[list[str]]:
        """`command` (its trailing `&` dropped) until `ready` appears in its output; yields the lines so far."""
        RUN.add(command)
        process = subprocess.Popen(["bash", "-c", _fill(command.removesuffix("&").strip(), values)], cwd=self.cwd,
                                   env=self.env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        lines: list[str] = []

        def drain() -> None:  # keep reading, so that a chatty server never blocks on a full pipe
            assert process.stdout is not None
            lines.extend(process.stdout)

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            deadline = time.monotonic() + timeout
            while not any(re.search(ready, line) for line in list(lines)):
                assert process.poll() is None or reader.is_alive(), f"{command} ended:\n{''.join(lines)}"
                assert time.monotonic() < deadline, f"{command}: not ready in {timeout} s:\n{''.join(lines)}"
                time.sleep(0.1)
            yield lines
        finally:
            _stop_group(process)


def _stop_group(process: subprocess.Popen[str]) -> None:
    """Ctrl-C to the command and everything it started; wait until all of them are gone (their ports free)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    deadline = time.monotonic() + 30
    while True:
        process.poll()  # reap the command itself: a zombie still counts as a member of its group
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        time.sleep(0.1)


def _fill(command: str, values: dict[str, str] | None) -> str:
    """The placeholders (whole words: PRESIDENT_ACCOUNT_TOKEN is not ACCOUNT_TOKEN) replaced by their values."""
    for name, value in (values or {}).items():
        command = re.sub(rf"(?<![A-Z_]){name}(?![A-Z_])", value, command)
    return command


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and "node_modules" not in p.parts}


def test_the_commands_run_as_written(copy: Path) -> None:
    sh = Shell(copy)
    examples_before = _files(copy / "examples")
    # make run: a match shown live; then the seat it prints for the reader's bot, played as the SDK guide says
    with sh.background("make run", r"--token [0-9a-f]{64}", timeout=180) as lines:
        text = "".join(lines)
        assert "serving on localhost:50051" in text, text
        assert not re.search(r"^(UV_PROJECT_ENVIRONMENT|mkdir|test -x|\S*python\S* -m pip|\.venv/bin/)", text,
                             re.MULTILINE), text  # make's own command lines do not open the first screen
        assert "== deal 1:" in text and "== match over" in text
        token = re.findall(r"--token ([0-9a-f]{64})", text)[-1]
        out = sh.run("PRESIDENT_TOKEN=SEAT_TOKEN .venv/bin/president-bot examples/python/first_bot.py"
                     " --server localhost:50051", values={"SEAT_TOKEN": token})
        assert "match over" in out
    with sh.background("make run", r"--token [0-9a-f]{64}", timeout=180) as lines:
        token = re.findall(r"--token ([0-9a-f]{64})", "".join(lines))[-1]
        assert "match over" in sh.run(".venv/bin/president-bot examples/python/first_bot.py --server"
                                      " localhost:50051 --token SEAT_TOKEN", values={"SEAT_TOKEN": token})
        # the dev seat: the same token again, played match after match by one --again process
        with sh.background(".venv/bin/president-bot examples/python/first_bot.py --server localhost:50051 --token"
                           " SEAT_TOKEN --again", r"^match over: ", values={"SEAT_TOKEN": token}) as played:
            deadline = time.monotonic() + 120
            while sum(line.startswith("match over: ") for line in list(played)) < 2:
                assert time.monotonic() < deadline, "".join(played)
                time.sleep(0.2)
        shown = "".join(lines)
        assert re.findall(r"--token ([0-9a-f]{64})", shown).count(token) >= 3, shown  # one token, match after match
        assert len(re.findall(r"its replay: http://localhost:\d+/matches/[0-9a-f]{16}/replay", shown)) >= 3, shown
    with sh.background("make run", r"--token [0-9a-f]{64}", timeout=180) as lines:
        token = re.findall(r"--token ([0-9a-f]{64})", "".join(lines))[-1]
        sh.run(".venv/bin/president-bot president_learn.policy_bot:TrainedBot --server localhost:50051 --token"
               " SEAT_TOKEN", values={"SEAT_TOKEN": token})
    # local play
    for command in (".venv/bin/president-bot examples/python/first_bot.py --local",
                    ".venv/bin/president-bot examples/python/first_bot.py --local --preset norwegian --deals 5"
                    " --opponents hard,hard,normal",
                    ".venv/bin/president-bot president_learn.policy_bot:TrainedBot --local",
                    ".venv/bin/president-bot president_learn.policy_bot:TrainedBot --local --opponents"
                    " random,easy,normal"):
        assert "winner" in sh.run(command)
    # the README's first bot: a folder from the Python kit, its strength against every level, its replays
    assert "made mybot/" in sh.run(".venv/bin/president new mybot --lang python")
    out = sh.run(".venv/bin/president-bot mybot/bot.py --local --matches 20 --opponents random easy normal hard"
                 " --workers 2 --replay replays")
    for level in ("random", "easy", "normal", "hard"):
        assert re.search(rf"^{level} +5 +20 +\d\.\d\d \[\d\.\d\d, \d\.\d\d\]", out, re.M), out
    assert "replays: 80 matches in replays (HTML and JSON)" in out, out
    assert "made gobot/" in sh.run(".venv/bin/president new gobot --lang go")
    if shutil.which("go"):
        sh.run("make -C gobot")
        assert (copy / "gobot" / "bot").is_file()
    # a server, a match on it
    with sh.background("PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president serve --port 50051 --db"
                       " run/president.db &", "serving on"):
        out = sh.run("PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president match create --server localhost:50051"
                     " --preset norwegian --deals 3")
        assert re.search(r"player 4: [0-9a-f]{64}", out) is None and re.search(r"player 3: [0-9a-f]{64}", out)
    with sh.background(".venv/bin/president serve --db run/web.db --admin-token SECRET --http-port 8080 &",
                       "web pages on"):
        assert "<html" in sh.run("python3 -c \"import urllib.request; print(urllib.request.urlopen("
                                 "'http://127.0.0.1:8080/').read().decode())\"").lower()
    # the arena, and a bot account joining it
    with sh.background(".venv/bin/president arena", r"--account-token \S+", timeout=180) as lines:
        account = re.findall(r"--account-token (\S+)", "".join(lines))[-1]
        for command in (".venv/bin/president-bot examples/python/first_bot.py --server 127.0.0.1:50051"
                        " --account-token TOKEN --arena",
                        ".venv/bin/president-bot examples/python/first_bot.py --server localhost:50051"
                        " --account-token ACCOUNT_TOKEN",
                        ".venv/bin/president-bot examples/python/first_bot.py --server localhost:50051"
                        " --account-token ACCOUNT_TOKEN --arena --max-matches 8",
                        "PRESIDENT_ACCOUNT_TOKEN=ACCOUNT_TOKEN .venv/bin/president-bot examples/python/first_bot.py"
                        " --server localhost:50051 --arena"):
            with sh.background(command, r"^match [0-9a-f]+: ", timeout=120,
                               values={"ACCOUNT_TOKEN": account, "TOKEN": account}):
                pass
        # the README's first bot in the arena, then the two folders sent as versions of its account
        sh.run("export PRESIDENT_ACCOUNT_TOKEN=TOKEN", values={"TOKEN": account})
        sh.env["PRESIDENT_ACCOUNT_TOKEN"] = account  # as the line leaves it in the reader's shell
        with sh.background(".venv/bin/president-bot mybot/bot.py --server 127.0.0.1:50051 --arena",
                           r"^match [0-9a-f]+: ", timeout=120):
            pass
        for bot in ("mybot", "gobot"):
            out = sh.run(f".venv/bin/president submit {bot}/ --server 127.0.0.1:50051")
            assert re.match(rf"version [0-9a-f]{{16}} of newcomer \({bot}\): QUEUED$", out, re.M), out
        del sh.env["PRESIDENT_ACCOUNT_TOKEN"]
    with sh.background("PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president serve --port 50051 --db run/arena.db"
                       " --arena --arena-queue cardverse:4", "serving on"):
        pass
    # ladders
    out = sh.run(".venv/bin/president ladder examples/ladder.toml", timeout=600)
    assert "Ladder example: 120/120 matches" in out
    out = sh.run(".venv/bin/president ladder examples/ladder.toml --expect \"normal > first\" --junit run/report.xml")
    assert "PASS  normal > first" in out and (copy / "run" / "report.xml").is_file()
    with sh.background("PRESIDENT_ADMIN_TOKEN=SECRET .venv/bin/president serve --port 50051 --db run/l.db &",
                       "serving on"):
        sh.run(".venv/bin/president ladder examples/ladder.toml --server localhost:50051 --admin-token SECRET")
    out = sh.run(".venv/bin/president ladder examples/uecda-ladder.toml", timeout=600)
    assert "Ladder uecda: 25/25 matches" in out and "contest-easy" in out
    assert "[1.00, 5.00]" not in out  # five boards: an interval says something (one board left them all open)
    # what the commands write goes to run/ (ignored by git), never beside the examples
    assert _files(copy / "examples") == examples_before, "the commands left files in examples/"


def test_every_doc_command_is_run_or_covered() -> None:
    """Runs after the scenario (same module, in order): nothing shown in a doc is left unchecked."""
    if not RUN:
        pytest.skip("the scenario did not run")
    missing = [(doc, command) for doc, command in doc_commands()
               if command not in RUN and command not in COVERED]
    assert missing == [], "doc commands neither run by test_the_commands_run_as_written nor in COVERED"
