"""Helpers of the conversation store: agent rows <-> the window planner's state, evictions by exchange,
an agent's range of exchange rows."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, RowMapping, bindparam

from summarizer.domain.window import Eviction, EvictReason, WindowState
from summarizer.storage.sql.statements.schema import exchanges

LOOKUP_CHUNK = 64


def state_from_row(row: RowMapping, default_budget: int) -> WindowState:
    budget = row["window_budget"]
    return WindowState(
        budget=default_budget if budget is None else budget,
        preamble_tokens=row["preamble_tokens"],
        window_tokens=row["window_tokens"],
        next_message_seq=row["next_message_seq"],
        last_exchange=row["last_exchange"],
        window_start=row["window_start"],
        current_complete=row["current_complete"],
        current_tool_calls=list(row["current_tool_calls"] or []),
        last_created_at=row["last_created_at"],
        unsummarized=row["unsummarized"],
    )


def state_values(state: WindowState) -> dict[str, Any]:
    return {
        "preamble_tokens": state.preamble_tokens,
        "window_tokens": state.window_tokens,
        "next_message_seq": state.next_message_seq,
        "last_exchange": state.last_exchange,
        "window_start": state.window_start,
        "current_complete": state.current_complete,
        "current_tool_calls": state.current_tool_calls,
        "last_created_at": state.last_created_at,
        "unsummarized": state.unsummarized,
    }


def eviction_covering(evictions: list[Eviction], number: int) -> Eviction | None:
    """The eviction range holding exchange `number` (ranges are sorted and disjoint)."""
    index = bisect_right(evictions, number, key=lambda ev: ev.first) - 1
    if index >= 0 and evictions[index].last >= number:
        return evictions[index]
    return None


def eviction_times(evictions: list[Eviction], numbers: Iterable[int]) -> dict[int, datetime]:
    times: dict[int, datetime] = {}
    for number in numbers:
        ev = eviction_covering(evictions, number)
        if ev is not None:
            times[number] = ev.at
    return times


def reason_for(evictions: list[Eviction], number: int) -> EvictReason | None:
    ev = eviction_covering(evictions, number)
    return ev.reason if ev else None


def exchange_range(prefix: str) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """The conditions picking one agent's exchange rows `first`..`last`, bound as `<prefix>_agent`,
    `<prefix>_first` and `<prefix>_last` (for a statement built once and run with many ranges)."""
    return (
        exchanges.c.agent_id == bindparam(f"{prefix}_agent", type_=exchanges.c.agent_id.type),
        exchanges.c.id.between(
            bindparam(f"{prefix}_first", type_=exchanges.c.id.type),
            bindparam(f"{prefix}_last", type_=exchanges.c.id.type),
        ),
    )
