"""The SQL both databases run alike, by role: `statements/` (the tables, column types and statement forms),
`writers/` (the units of work that change rows), `readers/` (the reads), `stores/` (the store classes the
composition root builds); beside them the `Database` handle, the backends' hooks (`dialect.SqlDialect`)
and record (`backend.Backend`), and migrations with the schema facade."""
