"""Kept summary versions and the ledger of dropped exchanges: what a new version writes besides itself.

Every committed version is copied into `summary_versions`, and every exchange that version forgot gets an
`exchange_drops` row with its reason, in the same commit as the `summaries` row (the update's commit,
aging's swap, a rollback), as two more statements of its transaction. PostgreSQL's update commit carries
the same two writes in its one statement (storage/postgres/commit.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Connection,
    Integer,
    Text,
    bindparam,
    delete,
    func,
    insert,
    select,
    true,
    update,
)

from summarizer.engine.model import Summary
from summarizer.engine.provenance import Forgotten
from summarizer.storage.sql.statements.schema import agents, exchange_drops, summary_versions
from summarizer.storage.sql.statements.summary_rows import summary_from_content
from summarizer.storage.sql.writers.summaries import SUMMARY_VALUE_PARAMS, swap_params
from summarizer.storage.values import DropRecord, KeptVersion, VersionWrite


def drop_rows(drops: Sequence[Forgotten]) -> list[dict[str, Any]]:
    """One JSON-safe row per forgotten exchange."""
    return [
        {"x": x, "reason": d.reason, "item_id": d.item_id, "detail": d.detail}
        for d in drops
        for x in d.exchange_ids
    ]


# ----- the statements (built once; the summary's own values reuse the swap's bind parameters) ---------
_KV = {
    "kv_made_by": bindparam("kv_made_by", type_=summary_versions.c.made_by.type),
    "kv_run_path": bindparam("kv_run_path", type_=summary_versions.c.run_path.type),
    "kv_worker": bindparam("kv_worker", type_=summary_versions.c.worker.type),
}
_KEEP_VALUES = {
    "agent_id": SUMMARY_VALUE_PARAMS["agent_id"],
    "version": SUMMARY_VALUE_PARAMS["version"],
    "items": SUMMARY_VALUE_PARAMS["items"],
    "token_count": SUMMARY_VALUE_PARAMS["token_count"],
    "covered_through_exchange_id": SUMMARY_VALUE_PARAMS["covered_through_exchange_id"],
    "created_at": SUMMARY_VALUE_PARAMS["updated_at"],
    "made_by": _KV["kv_made_by"],
    "run_path": _KV["kv_run_path"],
    "worker": _KV["kv_worker"],
}
KEEP_VERSION = insert(summary_versions).values(**_KEEP_VALUES)
_RECORD_DROP = insert(exchange_drops).values(
    agent_id=bindparam("dr_agent", type_=exchange_drops.c.agent_id.type),
    exchange_id=bindparam("dr_x", type_=Integer),
    version=bindparam("dr_version", type_=Integer),
    reason=bindparam("dr_reason", type_=exchange_drops.c.reason.type),
    item_id=bindparam("dr_item_id", type_=exchange_drops.c.item_id.type),
    detail=bindparam("dr_detail", type_=Text),
    dropped_at=bindparam("dr_at", type_=exchange_drops.c.dropped_at.type),
)


def write_version(conn: Connection, summary: Summary, write: VersionWrite) -> None:
    """Keep `summary` and record what it forgot (SQLite, and every non-hot path): inside the caller's
    transaction, after the swap succeeded."""
    write_versions(conn, [(summary, write)])


def write_versions(conn: Connection, kept: Sequence[tuple[Summary, VersionWrite]]) -> None:
    """`write_version` for many summaries at once: one executemany for the kept copies and one for the
    drop rows, so an aging page costs the same statements for 3 agents or 500."""
    if not kept:
        return
    conn.execute(
        KEEP_VERSION,
        [
            {
                **swap_params(summary, 0),
                "kv_made_by": write.made_by,
                "kv_run_path": write.run_path,
                "kv_worker": write.worker,
            }
            for summary, write in kept
        ],
    )
    drops = [
        {
            "dr_agent": summary.agent_id,
            "dr_x": r["x"],
            "dr_version": summary.version,
            "dr_reason": r["reason"],
            "dr_item_id": r["item_id"],
            "dr_detail": r["detail"],
            "dr_at": summary.updated_at,
        }
        for summary, write in kept
        for r in drop_rows(write.drops)
    ]
    if drops:
        conn.execute(_RECORD_DROP, drops)


# ----- reads ---------------------------------------------------------------------------------------
def _kept(agent_id: str, row: Any) -> KeptVersion:
    summary = summary_from_content(agent_id, row, row.created_at, None)
    return KeptVersion(summary, row.made_by, row.run_path, row.created_at)


def load_version(conn: Connection, agent_id: str, version: int) -> KeptVersion | None:
    row = conn.execute(
        select(summary_versions).where(
            summary_versions.c.agent_id == agent_id, summary_versions.c.version == version
        )
    ).first()
    return None if row is None else _kept(agent_id, row)


def list_versions(conn: Connection, agent_id: str) -> list[KeptVersion]:
    rows = conn.execute(
        select(summary_versions)
        .where(summary_versions.c.agent_id == agent_id)
        .order_by(summary_versions.c.version)
    )
    return [_kept(agent_id, row) for row in rows]


def load_drops(
    conn: Connection, agent_id: str, between: tuple[int, int] | None = None
) -> tuple[DropRecord, ...]:
    """The agent's drop rows (with `between`, of the exchanges whose id is in that closed range)."""
    stmt = select(exchange_drops).where(exchange_drops.c.agent_id == agent_id)
    if between is not None:
        stmt = stmt.where(exchange_drops.c.exchange_id.between(*between))
    rows = conn.execute(stmt.order_by(exchange_drops.c.exchange_id, exchange_drops.c.version))
    return tuple(
        DropRecord(r.exchange_id, r.version, r.reason, r.item_id, r.detail, r.dropped_at) for r in rows
    )


def prune_versions(conn: Connection, agent_id: str | None, keep: int) -> int:
    """Delete all but the newest `keep` kept versions of each agent (or of one); returns how many went."""
    newest = (
        select(
            summary_versions.c.agent_id,
            summary_versions.c.version,
            func.row_number()
            .over(partition_by=summary_versions.c.agent_id, order_by=summary_versions.c.version.desc())
            .label("rank"),
        )
        .where(true() if agent_id is None else summary_versions.c.agent_id == agent_id)
        .subquery()
    )
    doomed = select(newest.c.agent_id, newest.c.version).where(newest.c.rank > keep)
    gone = 0
    for name, version in conn.execute(doomed).all():
        gone += int(
            conn.execute(
                delete(summary_versions).where(
                    summary_versions.c.agent_id == name, summary_versions.c.version == version
                )
            ).rowcount
        )
    return gone


# ----- resummarize ---------------------------------------------------------------------------------
def request_rebuild(conn: Connection, agent_id: str, now: datetime) -> bool:
    """Flag the agent's summary for a rebuild; False for an unknown agent."""
    result = conn.execute(update(agents).where(agents.c.id == agent_id).values(rebuild_requested_at=now))
    return bool(result.rowcount)


def clear_rebuild(conn: Connection, agent_id: str) -> None:
    conn.execute(update(agents).where(agents.c.id == agent_id).values(rebuild_requested_at=None))
