"""`MatchWatch`: learning that a ladder's matches are over without a stream per match.

The ladder's built-in bots see each of their matches end (`over`, called by
their client at once); for matches without one, a thread asks the server for
its running matches (one `ListMatches` for all of them) every `POLL_S`, and
a match no longer running is over.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)
POLL_S = 0.1
_REMEMBERED = 1000
"""Matches told over that nobody waits for (yet, or any more), kept at most."""


class MatchWatch:
    def __init__(self, stub: pb_grpc.PresidentServiceStub) -> None:
        self._stub = stub
        self._waiting: dict[str, threading.Event] = {}
        self._done: OrderedDict[str, None] = OrderedDict()
        """Matches told over that nobody waited for (yet)."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="match-watch", daemon=True)
        self._thread.start()

    def expect(self, match_id: str) -> threading.Event:
        """An event set once `match_id` is over (call `forget` when done with it)."""
        with self._lock:
            event = self._waiting.setdefault(match_id, threading.Event())
            if self._done.pop(match_id, False) is None:
                event.set()
        return event

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._waiting.pop(match_id, None)

    def over(self, match_id: str) -> None:
        """A client saw `match_id` end."""
        with self._lock:
            event = self._waiting.get(match_id)
            if event is not None:
                event.set()
                return
            self._done[match_id] = None
            while len(self._done) > _REMEMBERED:
                self._done.popitem(last=False)

    def _poll(self) -> None:
        while not self._stop.wait(POLL_S):
            with self._lock:
                pending = [m for m, e in self._waiting.items() if not e.is_set()]
            if not pending:
                continue
            try:
                running = self._stub.ListMatches(pb.ListMatchesRequest(status=pb.MATCH_STATUS_RUNNING), timeout=30)
            except grpc.RpcError as exc:
                log.debug("ListMatches failed (%s); asking again", exc.code() if isinstance(exc, grpc.Call) else exc)
                continue
            live = {m.match_id for m in running.matches}
            with self._lock:
                for match_id in pending:
                    if match_id not in live and match_id in self._waiting:
                        self._waiting[match_id].set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
