"""The sandbox against hostile bots: each attack runs in a real jail (bubblewrap) beside a real server on a Unix
socket, and while it runs a normal bot in another jail plays a match to its end.

Each hostile program is written by its test into its own folder; it prints what each attempt gave, and the test
reads that from the jail's log.  Without bubblewrap (or user namespaces) the suite is skipped here with one line,
and fails in CI, which installs bubblewrap (.ci/run).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from president_harness.sandbox import MB
from sandbox_support import ADMIN, WALL_S, Host, require_sandbox


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    require_sandbox()
    running = Host(tmp_path_factory.mktemp("redteam"))
    yield running
    running.close()


def _processes() -> int:
    return sum(1 for entry in os.listdir("/proc") if entry.isdigit())


FORK_BOMB = """
    import os, time
    refused = 0
    while True:
        try:
            os.fork()
        except OSError:
            refused += 1
            if refused == 1:
                print("fork refused", flush=True)
            time.sleep(0.01)
"""


def test_a_fork_bomb_is_held_to_the_process_limit(host: Host) -> None:
    before = _processes()
    peak = 0
    done = threading.Event()

    def watch() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _processes())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    attacked = host.attack("forkbomb", FORK_BOMB, slot=1, processes=16)
    done.set()
    watcher.join()
    assert "fork refused" in attacked.output
    assert attacked.exit.reason == f"killed at the wall clock ({WALL_S:g} s)"
    assert peak - before < 16 + 60, (before, peak)  # the bomb's 16, the match's jail and what else the machine runs


def test_a_memory_balloon_fails_at_the_address_space_limit(host: Host) -> None:
    attacked = host.attack("balloon", """
        held = []
        while True:
            held.append(b"x" * (16 << 20))
            print(len(held) * 16, "MB", flush=True)
    """, slot=2, memory_bytes=256 * MB)
    assert "MemoryError" in attacked.output
    assert attacked.exit.reason.startswith("out of memory (the limit is 256 MB a process)")
    assert max(int(line.split()[0]) for line in attacked.output.splitlines() if line.endswith(" MB")) < 256


def test_a_disk_filler_meets_the_file_size_limit_and_the_tmpfs_size(host: Host) -> None:
    attacked = host.attack("filler", """
        import errno, os
        def fill(folder, files, mb_each):
            written = 0
            try:
                for i in range(files):
                    with open(f"{folder}/fill{i}", "wb") as out:
                        for _ in range(mb_each):
                            out.write(b"x" * (1 << 20))
                            written += 1
                return "no limit"
            except OSError as exc:
                return f"{errno.errorcode[exc.errno]} after {written} MB"
        print("one big file:", fill(os.environ["HOME"], 1, 64))
        print("many files:", fill("/tmp", 100, 4))
        for folder in ("/bot", "/", "/usr", "/dev/shm", "/run"):
            try:
                open(f"{folder}/planted", "w").write("x")
                print(folder, "writable")
            except OSError as exc:
                print(folder, errno.errorcode[exc.errno])
    """, slot=3, file_bytes=8 * MB, tmpfs_bytes=24 * MB)
    output = attacked.output
    assert "one big file: EFBIG after 8 MB" in output, output
    assert "many files: ENOSPC after" in output, output
    assert int(output.split("many files: ENOSPC after ")[1].split()[0]) <= 24
    assert "writable" not in output and output.count("EROFS") == 5, output
    assert attacked.exit.status == 0


def test_an_output_flood_is_cut_at_the_cap(host: Host) -> None:
    attacked = host.attack("flood", """
        import sys
        line = b"flood " * 1000 + b"\\n"
        for _ in range(8000):
            sys.stdout.buffer.write(line)
        print("done", flush=True)
    """, slot=4, output_bytes=64 * 1024)
    assert attacked.exit.output_bytes > 40 * MB and attacked.exit.status == 0
    assert len(attacked.output) < 64 * 1024 + 200
    assert attacked.output.rstrip().endswith("more bytes dropped]"), attacked.output[-300:]


def test_a_cpu_hog_is_killed_at_its_cpu_seconds(host: Host) -> None:
    attacked = host.attack("hog", """
        while True:
            pass
    """, slot=5, cpu_s=1)
    assert attacked.exit.reason == "killed by the CPU limit (1 s a process)"


SPINNER = """
    import sys, threading, time
    def spin():
        while True:
            pass
    for _ in range(4):
        threading.Thread(target=spin, daemon=True).start()
    time.sleep(float(sys.argv[1]))
    print("cpu", time.process_time(), flush=True)
"""


def test_a_busy_looping_bot_is_held_to_its_cpu_share(host: Host) -> None:
    """Four threads spinning, on and off its turn: the jail is stopped whenever it is past its share, so over its
    run it uses about its share (a burst of one second's share, plus a sampling period's overshoot, on top) while
    the normal bot's match is played to its end."""
    started = time.monotonic()
    attacked = host.attack("spinner", SPINNER, "3", slot=6, cpu_cores=0.2)
    lived = time.monotonic() - started
    used = float(attacked.output.split("cpu ")[-1])
    assert attacked.exit.status == 0 and attacked.exit.throttled_s > 0, attacked
    assert used <= 0.2 * lived + 0.2 + 4 * 0.2, (used, lived)  # unheld, four spinning threads take whole cores


def test_no_network_but_the_servers_socket(host: Host) -> None:
    with socket.socket() as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        udp.bind(("127.0.0.1", 0))
        tcp.setblocking(False)
        udp.setblocking(False)
        attacked = host.attack("egress", """
            import socket, sys
            tcp_port, udp_port, server_port = map(int, sys.argv[1:])
            for name, address in (("host", ("127.0.0.1", tcp_port)), ("server", ("127.0.0.1", server_port)),
                                  ("outside", ("1.1.1.1", 443))):
                try:
                    socket.create_connection(address, timeout=2).close()
                    print("tcp", name, "connected")
                except OSError as exc:
                    print("tcp", name, "failed", type(exc).__name__)
            for name, address in (("host", ("127.0.0.1", udp_port)), ("outside", ("8.8.8.8", 53))):
                try:
                    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as out:
                        out.sendto(b"exfiltrated", address)
                    print("udp", name, "sent")
                except OSError as exc:
                    print("udp", name, "failed", type(exc).__name__)
            try:
                socket.getaddrinfo("example.org", 443)
                print("dns resolved")
            except OSError as exc:
                print("dns failed", type(exc).__name__)
        """, str(tcp.getsockname()[1]), str(udp.getsockname()[1]), str(host.tcp_port), slot=6)
        with pytest.raises(BlockingIOError):
            tcp.accept()
        with pytest.raises(BlockingIOError):  # sent on the jail's own loopback, it never reached the host's
            udp.recvfrom(100)
    output = attacked.output
    for failed in ("tcp host failed", "tcp server failed", "tcp outside failed", "udp outside failed", "dns failed"):
        assert failed in output, output
    assert attacked.exit.status == 0


def test_no_view_of_other_bots_the_database_the_admin_token_or_other_tokens(host: Host) -> None:
    attacked = host.attack("snoop", """
        import os, sys, time
        time.sleep(2)  # while the normal bot's jail runs
        for path in sys.argv[1:]:
            try:
                open(path, "rb").read()
                print("read", path)
            except OSError as exc:
                print("hidden", type(exc).__name__, path)
        print("root:", " ".join(sorted(os.listdir("/"))))
        pids = sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())
        print("pids:", " ".join(map(str, pids)))
        print("environment:", dict(os.environ))
        for pid in pids:
            for what in ("environ", "cmdline"):
                try:
                    print(f"/proc/{pid}/{what}:", open(f"/proc/{pid}/{what}", "rb").read())
                except OSError as exc:
                    print(f"/proc/{pid}/{what}:", type(exc).__name__)
    """, str(host.normal_bot / "bot.py"), str(host.db), str(host.admin_file), str(host.socket), "/etc/passwd",
        f"/proc/{os.getpid()}/environ", slot=7)
    output = attacked.output
    assert "read " not in output and output.count("hidden FileNotFoundError") == 6, output
    assert ADMIN not in output
    assert [token for token in host.tokens if token in output] == [attacked.token]  # its own, nobody else's
    root = set(output.split("root: ", 1)[1].splitlines()[0].split())
    assert {"etc", "var", "srv", "mnt", "opt"}.isdisjoint(root), root
    assert max(map(int, output.split("pids: ", 1)[1].splitlines()[0].split())) < 10  # its own pid namespace
    assert attacked.exit.status == 0


def test_no_signals_ptrace_or_new_namespaces_outside_its_jail(host: Host) -> None:
    attacked = host.attack("escape", """
        import ctypes, os, signal, sys
        libc = ctypes.CDLL(None, use_errno=True)
        for pid in map(int, sys.argv[1:]):
            try:
                os.kill(pid, signal.SIGKILL)
                print("killed", pid)
            except OSError as exc:
                print("kill failed", type(exc).__name__)
            attached = libc.ptrace(16, pid, None, None) == 0  # PTRACE_ATTACH
            print("ptrace", "attached" if attached else f"failed: {os.strerror(ctypes.get_errno())}")
        for flag, name in ((0x10000000, "user"), (0x00020000, "mount"), (0x40000000, "net")):
            print("unshare", name, "worked" if libc.unshare(flag) == 0 else "failed")
        try:
            os.chroot("/tmp")
            print("chroot worked")
        except OSError as exc:
            print("chroot failed", type(exc).__name__)
        print("setuid(0)", "worked" if libc.setuid(0) == 0 else "failed", flush=True)
        os.kill(-1, signal.SIGKILL)  # every process it may signal: its own jail's, itself included
    """, str(os.getpid()), str(host.process.pid), slot=8)
    output = attacked.output
    assert output.count("kill failed ProcessLookupError") == 2, output
    assert output.count("ptrace failed: No such process") == 2, output
    assert "worked" not in output and output.count(" failed") == 9, output
    assert host.process.poll() is None
    assert attacked.exit.reason.startswith("killed by SIGKILL"), attacked.exit


def test_a_forged_token_is_refused_by_the_server(host: Host) -> None:
    attacked = host.attack("forger", """
        import asyncio, os
        from president_sdk import builtin_bot
        from president_sdk.runner_errors import RunnerError
        from president_sdk.session_client import SessionClient
        forged = os.environ["PRESIDENT_ACCOUNT_TOKEN"][::-1]
        try:
            asyncio.run(SessionClient(lambda seed: builtin_bot("easy"), forged,
                                      server=os.environ["PRESIDENT_SERVER"]).run())
        except RunnerError as exc:
            print("refused:", exc.reason)
    """, slot=9)
    assert "refused: BAD_TOKEN" in attacked.output, attacked.output
    assert attacked.exit.status == 0


def test_a_flood_of_connections_on_its_socket_is_capped(host: Host) -> None:
    attacked = host.attack("connections", """
        import socket, time
        held = []
        for _ in range(200):
            held.append(socket.socket(socket.AF_UNIX))
            held[-1].connect("/run/president.sock")
        time.sleep(1)
        still_open = 0
        for s in held:
            s.setblocking(False)
            try:
                still_open += s.recv(1) != b""
            except BlockingIOError:
                still_open += 1
        print("open:", still_open)
    """, slot=10)
    assert 0 < int(attacked.output.split("open: ", 1)[1].split()[0]) <= 16, attacked.output
    assert attacked.exit.status == 0
