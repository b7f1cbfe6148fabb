"""The PostgreSQL backend: its database handle (two pools, `run_hot`), its hot path (`PostgresStore`: the
one-statement claim-and-read and commit), its statement pieces (`dialect.POSTGRES`) and its record for
the factory (`backend.BACKEND`)."""
