"""Alembic environment: one URL, from `-x url=`, the config's `sqlalchemy.url`, or the settings."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from summarizer.storage.sql.statements.schema import compared, metadata


def _url() -> str:
    x_args = context.get_x_argument(as_dictionary=True)
    url = x_args.get("url") or context.config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from summarizer.composition.environment import load

    return load().resolved_database_url()


def run_offline() -> None:
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(_url(), poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=metadata,
        render_as_batch=True,
        compare_type=True,
        include_name=compared,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
