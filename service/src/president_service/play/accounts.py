"""Bot accounts: a name, an owner, a token stored hashed, revocable and rotatable.

An account is a player that stays: it holds seats in many matches and plays
them over one Session.  Its token works like a seat token (the server keeps
only the SHA-256 hash, compared with `hmac.compare_digest`).  Accounts live
in the match database and in memory (a few per bot author).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from president_service.base.auth import bearer_token, new_token, token_hash
from president_service.base.errors import Reason, ServiceError
from president_service.play.match_store import MatchStore

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS accounts (name TEXT PRIMARY KEY, owner TEXT NOT NULL, token_hash BLOB NOT NULL,"
    " created_at REAL NOT NULL, revoked INTEGER NOT NULL, house INTEGER NOT NULL, checked INTEGER NOT NULL)",
)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
"""An account name: what a command line, a URL and a log line take without quoting."""
MAX_OWNER_CHARS = 128


@dataclass(frozen=True, kw_only=True, slots=True)
class Account:
    name: str
    owner: str
    created_at: float
    revoked: bool = False
    house: bool = False
    """A house bot (a built-in level put in the arena by the organiser): rated, no check match."""
    checked: bool = False
    """Passed the arena's check match (house bots need none)."""


class Accounts:
    """Every account, by its exact name.

    A new name may not differ from an existing one only in case (`Bob` beside `bob` reads as one bot on a
    leaderboard), but lookups stay exact: a database may already hold two such accounts, made before this
    rule, and an exact name keeps each of them reachable and unambiguous (seats, ratings and records name an
    account exactly as it was created).
    """

    def __init__(self, store: MatchStore) -> None:
        self._store = store
        store.write([(sql, ()) for sql in _SCHEMA])
        self._by_name: dict[str, Account] = {}
        self._by_folded: dict[str, str] = {}
        """Case-folded name -> an account of that name, to refuse a new name differing from it only in case."""
        self._by_token: dict[bytes, str] = {}
        store.load_each("account", store.query("SELECT name, owner, token_hash, created_at, revoked, house, checked"
                                               " FROM accounts"), lambda row: row[0], self._load)

    def _load(self, row: tuple[object, ...]) -> None:
        """One stored account; ValueError for a row that is not one."""
        name, owner, digest, created_at, revoked, house, checked = row
        if not isinstance(name, str) or not name or not isinstance(owner, str) or not isinstance(digest, bytes) \
                or not isinstance(created_at, (int, float)):
            raise ValueError("not an account: a name, owner, token hash or creation time is not one")
        account = Account(name=name, owner=owner, created_at=float(created_at), revoked=bool(revoked),
                          house=bool(house), checked=bool(checked))
        self._by_name[name] = account
        self._by_folded.setdefault(name.casefold(), name)
        self._by_token[digest] = name

    def create(self, name: str, owner: str, *, house: bool = False) -> tuple[Account, str]:
        """A new account and its token (returned this once)."""
        if not NAME.match(name):
            raise ServiceError(Reason.MALFORMED, "an account name is 1 to 32 letters, digits, '-', '_' or '.',"
                                                 " starting with a letter or digit")
        if len(owner) > MAX_OWNER_CHARS or not owner.isprintable():
            raise ServiceError(Reason.MALFORMED, f"owner: at most {MAX_OWNER_CHARS} printable characters")
        existing = self._by_folded.get(name.casefold())
        if existing is not None:
            twin = "" if existing == name else " (names that differ only in case are one name)"
            raise ServiceError(Reason.ACCOUNT_EXISTS, f"an account named {existing} exists already{twin}")
        token = new_token()
        account = Account(name=name, owner=owner, created_at=time.time(), house=house, checked=house)
        digest = token_hash(token)
        self._store.write([("INSERT INTO accounts VALUES (?,?,?,?,?,?,?)", (
            name, owner, digest, account.created_at, 0, int(house), int(account.checked)))])
        self._by_name[name] = account
        self._by_folded[name.casefold()] = name
        self._by_token[digest] = name
        return account, token

    def get(self, name: str) -> Account:
        """The account named `name`, revoked or not; UNKNOWN_ACCOUNT if there is none."""
        account = self._by_name.get(name)
        if account is None:
            raise ServiceError(Reason.UNKNOWN_ACCOUNT, f"no account named {name[:40]!r}")
        return account

    def usable(self, name: str) -> Account:
        """The account, which must not be revoked (to seat it)."""
        account = self.get(name)
        if account.revoked:
            raise ServiceError(Reason.UNKNOWN_ACCOUNT, f"the account {name} is revoked")
        return account

    def rotate(self, name: str) -> str:
        """A new token for the account; the old one stops working."""
        self.get(name)
        token = new_token()
        digest = token_hash(token)
        self._store.write([("UPDATE accounts SET token_hash = ? WHERE name = ?", (digest, name))])
        self._by_token = {d: n for d, n in self._by_token.items() if n != name}
        self._by_token[digest] = name
        return token

    def revoke(self, name: str) -> Account:
        account = replace(self.get(name), revoked=True)
        self._store.write([("UPDATE accounts SET revoked = 1 WHERE name = ?", (name,))])
        self._by_name[name] = account
        return account

    def mark_checked(self, name: str) -> Account:
        account = replace(self.get(name), checked=True)
        self._store.write([("UPDATE accounts SET checked = 1 WHERE name = ?", (name,))])
        self._by_name[name] = account
        return account

    def all(self) -> list[Account]:
        return sorted(self._by_name.values(), key=lambda a: a.name)

    def authenticate(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Account:
        """The account of the ``authorization: Bearer`` token; BAD_TOKEN when there is none or it is revoked."""
        name = self._by_token.get(token_hash(bearer_token(metadata)))
        if name is None:
            raise ServiceError(Reason.BAD_TOKEN, "this token is not an account's (or it was rotated)")
        account = self._by_name[name]
        if account.revoked:
            raise ServiceError(Reason.BAD_TOKEN, f"the account {name} is revoked")
        return account

    def holds_token(self, name: str, metadata: Iterable[tuple[str, str | bytes]] | None) -> bool:
        """Whether `metadata` still carries the account's current token (it may have been rotated since)."""
        return self._by_token.get(token_hash(bearer_token(metadata))) == name
