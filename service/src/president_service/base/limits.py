"""Server-wide limits, so that no client can make the server grow without bound."""

from __future__ import annotations

from dataclasses import dataclass

RETRY_FULL_S = 5.0
"""The retry hint sent with a refusal because the server is full: about how soon a match or stream ends."""
RETRY_BUILD_S = 60.0
"""The retry hint sent with a refusal because an account's builds are waiting: about how long a build takes."""


REPORT_LINES = 1000
"""The most lines one ReportBotOutput carries (`bot_output`; the host splits its reports by it)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Limits:
    max_matches: int = 1000
    """Matches being played at once (finished ones do not count)."""
    max_streams_per_seat: int = 2
    """Two, so that a reconnecting seat is not refused while its dead stream is not yet noticed."""
    max_spectators: int = 64
    """Spectator streams per match."""
    max_receive_bytes: int = 64 * 1024
    """Largest message a client may send; an action or a match request is far smaller."""
    max_streams: int = 20_000
    """Play and Spectate streams open at once on the whole server; more are refused with a retry hint."""
    max_health_watches: int = 1_000
    """Health Watch streams open at once."""
    max_opening_streams: int = 256
    """Play streams opening at once (taken by the server, their Welcome not yet sent); more are refused at once with
    a retry hint, so that a burst of new streams cannot hold the server's loop."""
    max_opening_per_peer: int = 64
    """Play streams and Sessions one client address (an IPv6 client's /64) holds opening at once (taken, their hello
    not yet read); more are refused at once with a retry hint, so that one client cannot fill `max_opening_streams`
    for the others (a quarter of it: an honest client's streams are opening for milliseconds each). Clients on the
    server's Unix socket (a host's sandboxed bots) are the host's own and not bounded here."""
    hello_window_s: float = 5.0
    """How long a new Play stream or Session has to send its hello; then it is closed (MALFORMED, saying so)."""
    max_loop_lag_s: float = 0.5
    """How far behind the event loop may run before new Play streams are refused at once with a retry hint: a loop
    that far behind is busy with more than it can do (gRPC takes about one new call a loop cycle then), and a new
    stream would wait seconds for its Welcome, or be cancelled by gRPC after 30 s untaken."""
    max_pending_requests: int = 20_000
    """Calls gRPC may hold before the server takes them (its default, 1000, cancels bursts of new streams)."""
    account_matches: int = 100
    """Live matches one account may sit in at once."""
    account_matches_per_day: int = 20_000
    """Matches one account may start in 24 hours."""
    account_challenges_per_minute: int = 10
    """Challenges one account may make a minute."""
    archive_bytes: int = 8 * 1024 * 1024
    """Largest bot archive SubmitBot takes; more is refused (TOO_LARGE) and nothing is stored."""
    max_uploads: int = 8
    """SubmitBot calls at once on the whole server (each holds its archive in memory until it is whole)."""
    built_archive_bytes: int = 64 * 1024 * 1024
    """Largest built folder's archive UploadBuild takes (a builder unpacks at most 64 MB of a folder, and a gzipped
    tar of it is rarely larger); more is refused (TOO_LARGE) and nothing is stored."""
    account_queued_builds: int = 2
    """An account's versions waiting for a build (queued or building) at once; more wait for those."""
    account_versions_per_day: int = 20
    """New versions one account may submit in 24 hours (each holds up to `archive_bytes` of the database)."""
    build_lease_s: float = 900.0
    """How long a builder's lease on a version lasts; then another builder may lease it."""
    account_active_versions: int = 3
    """An account's READY versions kept at once (its current one and the last ones before it); a newer READY one
    retires the oldest."""
    host_lease_s: float = 60.0
    """How long a host's lease on a version lasts unrenewed; then another host may run it."""
