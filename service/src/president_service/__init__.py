"""President game server: gRPC seats, spectators and replays over a crash-safe SQLite log.

Run it with ``president serve --port 50051 --db president.db --admin-token ...``.
"""
