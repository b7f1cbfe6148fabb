"""The tables, the column types and the statement forms every unit of work builds on: upserts, bulk
inserts, the hot statements psycopg runs directly, the row mappers, the commit's guards and
the queue row's moves."""
