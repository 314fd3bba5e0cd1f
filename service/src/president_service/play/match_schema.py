"""The match database's tables, and the columns added to them since the first schema."""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    preset TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed INTEGER NOT NULL,
    hands TEXT,
    deal_seats TEXT,
    pass_orders TEXT,
    clock TEXT NOT NULL,
    names TEXT NOT NULL,
    open_seats INTEGER NOT NULL,
    result TEXT,
    record TEXT,
    kind TEXT NOT NULL DEFAULT '',
    ended_at REAL
);
CREATE TABLE IF NOT EXISTS seats (
    token_hash BLOB PRIMARY KEY,
    match_id TEXT NOT NULL,
    player INTEGER NOT NULL,
    claimed INTEGER NOT NULL,
    account TEXT NOT NULL DEFAULT '',
    bot_seed INTEGER,
    named INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS seats_by_match ON seats (match_id);
CREATE TABLE IF NOT EXISTS dev_seats (
    name TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,
    match_id TEXT NOT NULL,
    player INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS unreadable (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    error TEXT NOT NULL,
    marked_at REAL NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX IF NOT EXISTS matches_by_creation ON matches (created_at);
CREATE TABLE IF NOT EXISTS actions (
    match_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    player INTEGER NOT NULL,
    action TEXT NOT NULL,
    source INTEGER NOT NULL,
    spent_ms INTEGER NOT NULL,
    fault INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, turn)
) WITHOUT ROWID;
"""
MIGRATIONS = (
    ("actions", "fault", "ALTER TABLE actions ADD COLUMN fault INTEGER NOT NULL DEFAULT 0"),
    ("seats", "account", "ALTER TABLE seats ADD COLUMN account TEXT NOT NULL DEFAULT ''"),
    ("matches", "kind", "ALTER TABLE matches ADD COLUMN kind TEXT NOT NULL DEFAULT ''"),
    ("seats", "bot_seed", "ALTER TABLE seats ADD COLUMN bot_seed INTEGER"),
    ("seats", "named", "ALTER TABLE seats ADD COLUMN named INTEGER NOT NULL DEFAULT 1"),
    ("matches", "ended_at", "ALTER TABLE matches ADD COLUMN ended_at REAL"),
    ("matches", "deal_seats", "ALTER TABLE matches ADD COLUMN deal_seats TEXT"),
    ("matches", "pass_orders", "ALTER TABLE matches ADD COLUMN pass_orders TEXT"),
)
"""Columns added since the first schema: (table, column, how to add it to an older database)."""


def create_or_migrate(db: sqlite3.Connection) -> None:
    """Create the tables `db` lacks, and add to older ones the columns added since."""
    db.executescript(SCHEMA)
    for table, column, add in MIGRATIONS:
        if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(add)
