"""The SQLite backend: its database handle (WAL, BEGIN IMMEDIATE), its hot path (`SqliteStore`), its
statement pieces (`dialect.SQLITE`) and its record for the factory (`backend.BACKEND`)."""
