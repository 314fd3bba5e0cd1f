"""The sandbox against hostile bots: each attack runs in a real jail (bubblewrap) beside a real server on a Unix
socket, and while it runs a normal bot in another jail plays a match to its end, with the result the same match
had before any attack.

Each hostile program is written by its test into its own folder; it prints what each attempt gave, and the test
reads that from the jail's log.  Without bubblewrap (or user namespaces) the suite is skipped here with one line,
and fails in CI, which installs bubblewrap (.ci/run).
"""

from __future__ import annotations

import os
import socket
import textwrap
import threading
import time
from collections.abc import Iterator

import pytest
from president_harness.hosting.jail_cgroup import cgroups
from president_harness.hosting.jail_quota import START_CPU_S
from president_harness.hosting.sandbox import MB
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


def test_a_balloon_over_many_processes_is_killed_at_the_jails_memory(host: Host) -> None:
    """Each process under its own address-space limit, together over the jail's: killed at the cap (by the kernel,
    in the jail's cgroup; within a sample or two without cgroups), and memory no process maps (a memfd, a System V
    segment) cannot be made at all."""
    attacked = host.attack("balloons", """
        import ctypes, mmap, os, time
        try:
            os.memfd_create("hoard")
            print("memfd made", flush=True)
        except OSError as exc:
            print("memfd refused", exc.errno, flush=True)
        libc = ctypes.CDLL(None, use_errno=True)
        made = libc.shmget(0, 64 << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        print("shmget", "made" if made >= 0 else f"refused {ctypes.get_errno()}", flush=True)
        for child in range(8):
            if os.fork() == 0:
                held = bytearray(48 << 20) if child % 2 else mmap.mmap(-1, 48 << 20, mmap.MAP_SHARED)
                held[::4096] = b"x" * len(range(0, len(held), 4096))
                print("child", child, "holds 48 MB", flush=True)
                time.sleep(60)
            time.sleep(0.3)
        print("all children hold their memory", flush=True)
        time.sleep(60)
    """, slot=13, memory_bytes=256 * MB, jail_memory_bytes=160 * MB)
    output = attacked.output
    assert "memfd refused 1" in output and "shmget refused 1" in output, output
    assert "all children hold their memory" not in output, output
    assert attacked.exit.reason.startswith("killed for using "), attacked.exit
    assert attacked.exit.reason.endswith("MB of memory in all its processes (the limit is 160 MB a jail)")
    if cgroups() is not None:  # the kernel holds it: its own peak, read by the host, never past the cap
        assert 150 * MB < attacked.exit.peak_memory_bytes <= 1.10 * 160 * MB, attacked.exit
        # the kernel kills one process at the cap; another may take its freed 48 MB before the host ends the jail
        assert output.count("holds 48 MB") <= 4, output
    else:  # sampled: killed within a sample or two past the cap
        assert 160 * MB < attacked.exit.peak_memory_bytes < (160 + 2 * 48 + 32) * MB, attacked.exit
        assert output.count("holds 48 MB") <= 5, output


def test_a_fast_balloon_is_stopped_within_a_tenth_over_the_jails_memory(host: Host) -> None:
    """One process taking 96 MB at a time, its address space far over the jail's memory: its peak, as the host
    reads it from the jail's cgroup, stays within 1.10 times the cap (the kernel holds it; a sample every 0.1 s
    could see it only at its third 96 MB, 298 MB and more)."""
    if cgroups() is None:
        pytest.skip("no cgroups here: a jail's memory is sampled, not held within 10% (docs/status.md)")
    attacked = host.attack("fastballoon", """
        held = []
        while True:
            chunk = bytearray(96 << 20)
            chunk[::4096] = b"x" * (len(chunk) // 4096)  # every page touched: resident
            held.append(chunk)
            print(len(held) * 96, "MB", flush=True)
    """, slot=14, memory_bytes=1024 * MB, jail_memory_bytes=256 * MB)
    assert attacked.exit.reason.endswith("MB of memory in all its processes (the limit is 256 MB a jail)"), attacked
    assert attacked.exit.peak_memory_bytes <= 1.10 * 256 * MB, attacked.exit
    assert max(int(line.split()[0]) for line in attacked.output.splitlines() if line.endswith(" MB")) <= 256


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
    """Four threads spinning, on and off its turn, under a cap of 0.2 cores: held back whenever it is past its cap
    (its cgroup's ``cpu.max``; without cgroups, stopped after its start-up's `START_CPU_S`), so over its run it uses
    about its cap (a burst of one second's cap and a sampling period's overshoot on top), while the normal bot's
    match is played to its end."""
    started = time.monotonic()
    attacked = host.attack("spinner", SPINNER, "3", slot=6, cpu_cores=0.2)
    lived = time.monotonic() - started
    used = float(attacked.output.split("cpu ")[-1])
    start_s = 0.0 if cgroups() is not None else START_CPU_S
    assert attacked.exit.status == 0, attacked
    assert attacked.exit.throttled_s > 0 or used <= start_s + 0.2 * lived + 0.2, attacked
    assert used <= start_s + 0.2 * lived + 0.2 + 4 * 0.2, (used, lived)  # unheld, four threads take whole cores


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
    assert output.count("ptrace failed: Operation not permitted") == 2, output  # the seccomp filter's EPERM
    assert "worked" not in output and output.count(" failed") == 9, output
    assert host.process.poll() is None
    assert attacked.exit.reason.startswith("killed by SIGKILL"), attacked.exit


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the system call numbers below are x86-64's")
def test_the_kernels_widest_calls_are_refused_by_the_seccomp_filter(host: Host) -> None:
    """Calls no bot needs (keyrings, BPF, perf counters, userfaultfd, io_uring, mounts, modules) fail with EPERM;
    the bot itself runs on, and the normal bot's match is played to its end."""
    attacked = host.attack("syscalls", """
        import ctypes, errno
        libc = ctypes.CDLL(None, use_errno=True)
        calls = {"add_key": 248, "keyctl": 250, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
                 "io_uring_setup": 425, "mount": 165, "init_module": 175, "kexec_load": 246, "setns": 308}
        for name, number in calls.items():
            ctypes.set_errno(0)
            result = libc.syscall(number, 0, 0, 0, 0, 0)
            print(name, "refused" if result == -1 and ctypes.get_errno() == errno.EPERM else
                  f"gave {result} errno {ctypes.get_errno()}")
        print("still running", flush=True)
    """, slot=12)
    output = attacked.output
    assert output.count(" refused") == 10 and "still running" in output, output
    assert attacked.exit.status == 0


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


FLOOD = textwrap.dedent("""
    held = [connect() for _ in range(200)]
    time.sleep(1)
    still_open = 0
    for s in held:
        s.setblocking(False)
        try:
            still_open += s.recv(1) != b""
        except BlockingIOError:
            still_open += 1
    print("open:", still_open, flush=True)
""")
"""200 connections through `connect()`, held for a second: how many the relay keeps open."""


def test_a_flood_of_connections_on_its_socket_is_capped(host: Host) -> None:
    attacked = host.attack("connections", textwrap.dedent("""
        import socket, time
        def connect():
            held = socket.socket(socket.AF_UNIX)
            held.connect("/run/president.sock")
            return held
    """) + FLOOD, slot=10)
    assert 0 < int(attacked.output.split("open: ", 1)[1].split()[0]) <= 16, attacked.output
    assert attacked.exit.status == 0


def test_the_loopback_relay_reaches_only_the_server_under_the_jails_limits_and_ends_the_jail(host: Host) -> None:
    attacked = host.attack("loopback", textwrap.dedent("""
        import os, signal, socket, sys, time
        import grpc
        from president_protocol.v1 import president_pb2 as pb, president_pb2_grpc as pb_grpc
        server = os.environ["PRESIDENT_SERVER"]
        with grpc.insecure_channel(server) as channel:
            pb_grpc.PresidentServiceStub(channel).ListMatches(pb.ListMatchesRequest(), timeout=10)
            print("reached the server at", server)
        try:
            socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
            print("tcp server connected")
        except OSError as exc:
            print("tcp server failed", type(exc).__name__)
        limits = [open(f"/proc/{pid}/limits").read() for pid in (os.getpid(), os.getppid())]
        print("relay's limits are the bot's:", limits[0] == limits[1], open(f"/proc/{os.getppid()}/cmdline").read())
        def connect():
            return socket.create_connection(("127.0.0.1", 50051))
    """) + FLOOD + textwrap.dedent("""
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(3)
        print("outlived the relay")
    """), str(host.tcp_port), slot=11, loopback=True)
    output = attacked.output
    assert "reached the server at 127.0.0.1:50051" in output and "tcp server failed" in output, output
    assert "relay's limits are the bot's: True" in output and "president_harness.hosting.sandbox" in output, output
    assert 0 < int(output.split("open: ", 1)[1].split()[0]) <= 16, output
    assert "outlived the relay" not in output and "wall clock" not in attacked.exit.reason, (attacked.exit, output)
