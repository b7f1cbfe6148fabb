"""The PostgreSQL backend: its database handle (two pools, `run_hot`) and its hot path (`PostgresStore`:
the one-statement claim-and-read and commit)."""
