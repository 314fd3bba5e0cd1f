"""Hosted bots: the jail (`sandbox`: seccomp, cgroup, quota), the builder of submitted archives and the host."""
