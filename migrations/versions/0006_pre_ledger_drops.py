"""account for exchanges forgotten before the ledger: drop rows with the reason `pre_ledger`

A database written before 0005 has exchanges that were folded into a summary and later forgotten (aged
out, truncated, dropped by the model) with no `exchange_drops` row saying so; the ledger would show them
as `unaccounted`. This data migration gives each such exchange (evicted, folded, cited by no item of its
agent's current summary, without a drop row) one row with the reason `pre_ledger`, the agent's current
summary version (or the version that folded it, when the agent has no summary row) and a detail saying
that the true reason was not recorded. Nothing in the schema changes; downgrading deletes those rows.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 13:30:00
"""

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import groupby
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

REASON = "pre_ledger"
DETAIL = "forgotten before the provenance ledger was kept (database upgraded from before it): reason not recorded"
CHUNK = 1000

exchanges = sa.table(
    "exchanges",
    sa.column("agent_id", sa.String),
    sa.column("id", sa.Integer),
    sa.column("evicted_at", sa.DateTime(timezone=True)),
    sa.column("summarized_in_version", sa.Integer),
)
summaries = sa.table(
    "summaries",
    sa.column("agent_id", sa.String),
    sa.column("version", sa.Integer),
    sa.column("items", sa.JSON),
)
exchange_drops = sa.table(
    "exchange_drops",
    sa.column("agent_id", sa.String),
    sa.column("exchange_id", sa.Integer),
    sa.column("version", sa.Integer),
    sa.column("reason", sa.String),
    sa.column("item_id", sa.String),
    sa.column("detail", sa.Text),
    sa.column("dropped_at", sa.DateTime(timezone=True)),
)


def _cited(items: Any) -> set[int]:
    if isinstance(items, str):
        items = json.loads(items)
    return {int(x) for item in items or () for x in item.get("exchange_ids", ())}


def upgrade() -> None:
    conn = op.get_bind()
    has_drop = (
        sa.select(sa.literal(1))
        .where(exchange_drops.c.agent_id == exchanges.c.agent_id)
        .where(exchange_drops.c.exchange_id == exchanges.c.id)
        .exists()
    )
    folded = conn.execute(
        sa.select(exchanges.c.agent_id, exchanges.c.id, exchanges.c.summarized_in_version)
        .where(exchanges.c.evicted_at.is_not(None))
        .where(exchanges.c.summarized_in_version.is_not(None))
        .where(~has_drop)
        .order_by(exchanges.c.agent_id, exchanges.c.id)
    ).all()
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    for agent_id, group in groupby(folded, key=lambda r: r.agent_id):
        summary = conn.execute(
            sa.select(summaries.c.version, summaries.c["items"]).where(summaries.c.agent_id == agent_id)
        ).first()
        cited = _cited(summary[1]) if summary is not None else set()
        for _, exchange_id, folded_in in group:
            if exchange_id in cited:
                continue
            rows.append(
                {
                    "agent_id": agent_id,
                    "exchange_id": exchange_id,
                    "version": summary.version if summary is not None else folded_in,
                    "reason": REASON,
                    "item_id": None,
                    "detail": DETAIL,
                    "dropped_at": now,
                }
            )
        if len(rows) >= CHUNK:
            conn.execute(exchange_drops.insert(), rows)
            rows = []
    if rows:
        conn.execute(exchange_drops.insert(), rows)


def downgrade() -> None:
    op.execute(exchange_drops.delete().where(exchange_drops.c.reason == REASON))
