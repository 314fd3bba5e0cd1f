"""Ladders and tournaments: `president ladder ladder.toml`.

A ladder plays a schedule of matches between bots (commands in any language,
or built-in levels) on a game server, stores every match in SQLite so an
interrupted run resumes, rates the bots with OpenSkill (Plackett-Luce), and
checks claims such as ``mybot > normal`` for CI.  See docs/ladder.md.
"""
