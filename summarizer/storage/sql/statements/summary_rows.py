"""The one mapper between a `summaries` row and the engine's `Summary`, the only summary type.

Every read of a summary (the update's claim-and-read, the host's context, the CLI, aging) turns the row
into a `Summary` here, and every write (the update's commit, aging's swap) turns a `Summary` into the
row's values here.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from summarizer.engine.model import Summary, items_from_json, pins_from_json


def summary_from_row(agent_id: str, row: Any) -> Summary:
    """From any row holding the `summaries` columns as attributes (also the update's claim-and-read)."""
    return summary_from_content(agent_id, row, row.updated_at, row.last_aged_on)


def summary_from_content(
    agent_id: str, row: Any, updated_at: datetime | None, last_aged_on: date | None
) -> Summary:
    """From any row holding a summary's content columns (`version`, `items`, `token_count`,
    `covered_through_exchange_id`) as attributes, with its times given: a kept version's row
    (`summary_versions`) stands for the summary as it was made, at its `created_at`."""
    return Summary(
        agent_id=agent_id,
        version=row.version,
        items=items_from_json(row.items),
        covered_through_exchange_id=row.covered_through_exchange_id,
        token_count=row.token_count,
        updated_at=updated_at,
        last_aged_on=last_aged_on,
        pins=pins_from_json(row.items),
    )


def summary_values(summary: Summary) -> dict[str, Any]:
    """The `summaries` columns of a summary about to be stored (it must carry its `updated_at`); its pins
    travel in the `items` column, after the items."""
    if summary.updated_at is None:
        raise ValueError(f"summary of {summary.agent_id!r} v{summary.version} has no updated_at")
    return {
        "agent_id": summary.agent_id,
        "version": summary.version,
        "items": summary.items_to_json(),
        "token_count": summary.token_count,
        "covered_through_exchange_id": summary.covered_through_exchange_id,
        "last_aged_on": summary.last_aged_on,
        "updated_at": summary.updated_at,
    }
