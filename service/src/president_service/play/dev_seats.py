"""Development seats: one token, bound to a name, that plays player 0 of each new match created for that name.

A bot author runs the same command match after match (``president-bot BOT
--token TOKEN --again``): the token is made with the name's first match and
re-pointed to each later one.  Like every token only its SHA-256 hash is kept
(table ``dev_seats``), so a restart keeps the seat and the database never holds
a usable token; the token reaches only the seat it points to now.
"""

from __future__ import annotations

from dataclasses import dataclass

from president_service.base.auth import new_token, token_hash
from president_service.base.errors import Reason, ServiceError
from president_service.play.match_request import check_name, shorten
from president_service.play.match_store import MatchStore, Statement


@dataclass(frozen=True, slots=True)
class DevSeat:
    name: str
    match_id: str
    """The match the token plays now (the last one created for the name)."""
    player: int


class DevSeats:
    """The server's development seats, by token hash and by name (loaded from the store at start)."""

    def __init__(self, store: MatchStore) -> None:
        self._store = store
        self._by_hash: dict[bytes, DevSeat] = {}
        self._hash_of: dict[str, bytes] = {}
        for name, digest, match_id, player in store.query("SELECT name, token_hash, match_id, player FROM dev_seats"):
            self._by_hash[bytes(digest)] = DevSeat(name, match_id, player)
            self._hash_of[name] = bytes(digest)

    def find(self, digest: bytes) -> DevSeat | None:
        """The development seat of a token hash, if it is one."""
        return self._by_hash.get(digest)

    def current(self, name: str) -> DevSeat | None:
        """The seat of `name`, if it has one."""
        digest = self._hash_of.get(name)
        return None if digest is None else self._by_hash[digest]

    def current_of(self, match_id: str) -> DevSeat | None:
        """The development seat that plays in match `match_id` now, if one does."""
        return next((seat for seat in self._by_hash.values() if seat.match_id == match_id), None)

    def point(self, name: str, match_id: str, player: int) -> tuple[str, Statement]:
        """The token (empty when the name has one already) and the statement that points `name` at the match;
        `moved` must be called once that statement is committed."""
        check_name(name, "dev_seat")
        if not name:
            raise ServiceError(Reason.MALFORMED, "dev_seat: a name, not an empty string")
        digest = self._hash_of.get(name)
        token = ""
        if digest is None:
            token = new_token()
            digest = token_hash(token)
        return token, ("INSERT INTO dev_seats (name, token_hash, match_id, player) VALUES (?,?,?,?)"
                       " ON CONFLICT (name) DO UPDATE SET match_id = excluded.match_id, player = excluded.player",
                       (name, digest, match_id, player))

    def moved(self, statement: Statement) -> None:
        """Keep in memory what a committed `point` statement stored."""
        name, digest, match_id, player = statement[1]
        stored = self._hash_of.setdefault(name, digest)
        self._by_hash[stored] = DevSeat(name, match_id, player)

    def revoke(self, name: str) -> bool:
        """Forget the seat of `name` (its token is refused from now on); False when there is none."""
        digest = self._hash_of.pop(name, None)
        if digest is None:
            return False
        self._store.write([("DELETE FROM dev_seats WHERE name = ?", (name,))])
        del self._by_hash[digest]
        return True

    @staticmethod
    def waiting(seat: DevSeat) -> ServiceError:
        """The refusal of a token whose last match is over, before the next one is created."""
        return ServiceError(Reason.DEV_SEAT_WAITING,
                            f"dev seat {shorten(seat.name)} waits for its next match (match {seat.match_id} is over)",
                            {"dev_seat": seat.name}, retry_after_s=1.0)
