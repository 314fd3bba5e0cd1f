"""The seccomp filter of a bot's jail: the system calls no bot needs, which widen the kernel a jailed process can
reach, fail with EPERM (bubblewrap's ``--seccomp FD`` loads it).

The filter is compiled by libseccomp (``libseccomp.so.2``, which Debian installs with systemd and bubblewrap's
neighbours), called through ctypes: no BPF is written here.  It is a deny list in the manner of Docker's
default profile: every call stays allowed but those below, so any language's runtime works unchanged.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import tempfile
from functools import cache

DENIED = (
    # kernel keyrings, BPF programs, perf counters, userfaultfd, io_uring: large attack surfaces no bot needs
    "add_key", "request_key", "keyctl", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # namespaces, mounts and the root: the jail's own, never a bot's to change
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # memory no process maps, which the jail's memory cap (`jail_quota`) would not see: memfds, System V segments
    "memfd_create", "memfd_secret", "shmget",
    # tracing and other processes' memory
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # the machine's: modules, reboot, swap, clocks, accounting, quotas, the kernel log
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
    "swapoff", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "acct", "quotactl", "syslog",
    "sethostname", "setdomainname", "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie",
    "uselib", "vhangup", "nfsservctl",
)
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000


class SeccompError(RuntimeError):
    """No filter can be made here (no libseccomp)."""


@cache
def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        raise SeccompError("libseccomp is not installed (apt-get install libseccomp2)") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


@cache
def program() -> bytes:
    """The compiled filter (cBPF, for this machine's architecture), made once."""
    lib = _library()
    context = lib.seccomp_init(_ALLOW)
    if not context:
        raise SeccompError("libseccomp could not start a filter")
    try:
        for name in DENIED:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                continue  # not a call of this architecture
            if lib.seccomp_rule_add(context, _ERRNO | errno.EPERM, number, 0) < 0:
                raise SeccompError(f"libseccomp refused a rule for {name}")
        with tempfile.TemporaryFile() as out:
            if lib.seccomp_export_bpf(context, out.fileno()) < 0:
                raise SeccompError("libseccomp could not export the filter")
            out.seek(0)
            return out.read()
    finally:
        lib.seccomp_release(context)


def program_fd() -> int:
    """A new file descriptor (not inheritable: pass it with ``pass_fds``) holding the filter from its start, for
    bubblewrap's ``--seccomp``, which reads it once."""
    fd = os.memfd_create("president-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
