"""PostgreSQL's form of a new version's two further writes (storage/sql/writers/versions.py): the kept copy and the
drop rows, as data-modifying CTEs of the update's one-statement commit (storage/postgres/commit.py).

Their values travel as JSONB parameters unpacked by `jsonb_populate_record[set]`, so the commit stays
short enough for psycopg's query cache (4,096 characters). A kept version that already exists is a
stale commit: it must reach the version guard, not a key violation, hence ON CONFLICT DO NOTHING.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, literal_column, select
from sqlalchemy.dialects import postgresql

from summarizer.engine.model import Summary
from summarizer.storage.sql.statements.schema import exchange_drops, summary_versions
from summarizer.storage.sql.statements.types import Json
from summarizer.storage.sql.writers.summaries import SUMMARY_VALUE_PARAMS
from summarizer.storage.sql.writers.versions import drop_rows
from summarizer.storage.values import VersionWrite

# The kept copy's columns travel as one JSONB object; its items are the swap's own parameter, sent once.
_KEEP_ROW = func.jsonb_populate_record(
    literal_column("NULL::summary_versions"),
    bindparam("kv_row", type_=Json).op("||")(
        func.jsonb_build_object(literal_column("'items'"), SUMMARY_VALUE_PARAMS["items"])
    ),
)
_KEEP_VERSION_PG: Any = (
    postgresql.insert(summary_versions)
    .from_select([c.name for c in summary_versions.c], select(literal_column("*")).select_from(_KEEP_ROW))
    .on_conflict_do_nothing()
    .returning(literal_column("1"))
)


def _record_drops_pg() -> Any:
    # Every column travels in the JSONB rows: the statement stays short enough for psycopg's query cache.
    rows = func.jsonb_populate_recordset(
        literal_column("NULL::exchange_drops"), bindparam("dr_rows", type_=Json)
    )
    return (
        postgresql.insert(exchange_drops)
        .from_select([c.name for c in exchange_drops.c], select(literal_column("*")).select_from(rows))
        .on_conflict_do_nothing()
        .returning(literal_column("1"))
    )


_RECORD_DROPS_PG = _record_drops_pg()


def keep_version_cte() -> Any:
    return _KEEP_VERSION_PG.cte("kv")


def record_drops_cte() -> Any:
    return _RECORD_DROPS_PG.cte("dr")


def version_params(summary: Summary, write: VersionWrite) -> dict[str, Any]:
    """The CTEs' own parameters (the kept copy takes the summary's values from the swap's `sv_*`)."""
    assert summary.updated_at is not None
    at = summary.updated_at.isoformat()
    return {
        "kv_row": {
            "agent_id": summary.agent_id,
            "version": summary.version,
            "token_count": summary.token_count,
            "covered_through_exchange_id": summary.covered_through_exchange_id,
            "made_by": write.made_by,
            "run_path": write.run_path,
            "worker": write.worker,
            "created_at": at,
        },
        "dr_rows": [
            {
                "agent_id": summary.agent_id,
                "exchange_id": r.pop("x"),
                "version": summary.version,
                "dropped_at": at,
                **r,
            }
            for r in drop_rows(write.drops)
        ],
    }
