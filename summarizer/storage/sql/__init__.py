"""The SQL both databases run alike: the tables, the statements of every unit of work, the shared
store (`store.SqlStore`), the conversation and alert stores, migrations and the schema facade."""
