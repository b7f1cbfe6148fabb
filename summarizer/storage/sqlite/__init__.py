"""The SQLite backend: its database handle (WAL, BEGIN IMMEDIATE) and its hot path (`SqliteStore`)."""
