"""What steers an agent's summary, as statements both databases run: its instructions, its choice for the
"Now" pin, and the two messages the "Now" pin is made of.

Pins need no statement of their own: they are part of the summary (`summaries.items`) and change through
the summary's compare-and-swap (`summaries.swap_summary`), as a rollback does.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    TextClause,
    bindparam,
    literal_column,
    select,
    text,
    union_all,
    update,
)

from summarizer.domain.kinds import Kind
from summarizer.storage.sql.readers.reading import message_from_row
from summarizer.storage.sql.statements.schema import TODO_CALLS, agents, messages
from summarizer.storage.values import AgentSteering, LatestTask


def load_steering(conn: Connection, agent_id: str) -> AgentSteering | None:
    row = conn.execute(
        select(agents.c.summary_instructions, agents.c.now_item).where(agents.c.id == agent_id)
    ).first()
    return None if row is None else AgentSteering(row.summary_instructions, row.now_item)


def store_instructions(conn: Connection, agent_id: str, instructions: str | None) -> bool:
    """Write the agent's instructions, and only them: a concurrent "Now" choice stays (False: no agent)."""
    stmt = update(agents).where(agents.c.id == agent_id).values(summary_instructions=instructions)
    return bool(conn.execute(stmt).rowcount)


def store_now_item(conn: Connection, agent_id: str, now_item: bool | None) -> bool:
    """Write the agent's "Now" choice, and only it: concurrent instructions stay (False: no agent)."""
    stmt = update(agents).where(agents.c.id == agent_id).values(now_item=now_item)
    return bool(conn.execute(stmt).rowcount)


def copy_instructions(conn: Connection, parent: str, child: str) -> None:
    """A fork starts with its parent's instructions and "Now" choice (as with its budget override)."""
    row = conn.execute(
        select(agents.c.summary_instructions, agents.c.now_item).where(agents.c.id == parent)
    ).first()
    if row is not None:
        both = {"summary_instructions": row.summary_instructions, "now_item": row.now_item}
        conn.execute(update(agents).where(agents.c.id == child).values(both))


def _newest(role: str, condition: ColumnElement[bool] | TextClause) -> Any:
    return (
        select(messages, literal_column(f"'{role}'").label("role"))
        .where(messages.c.agent_id == bindparam("lt_agent", type_=messages.c.agent_id.type), condition)
        .order_by(messages.c.seq.desc())
        .limit(1)
        .subquery()
    )


# Built once (no per-call construction or cache-key generation: this runs before every update). The todo
# predicate is literal text, so that both planners match it to the partial index.
_LATEST_TASK = union_all(
    *(
        select(part)
        for part in (
            _newest("request", messages.c.kind == Kind.USER.value),
            _newest("todos", text(TODO_CALLS)),
        )
    )
)


def latest_task(conn: Connection, agent_id: str) -> LatestTask:
    """The newest user message (the primary key read backwards) and the newest todo-list tool call (one probe
    of `ix_messages_todo_calls`), in one statement."""
    rows = conn.execute(_LATEST_TASK, {"lt_agent": agent_id}).all()
    # in_window is not needed by the "Now" pin: it reads the text, the time and the tool's input.
    found = {row.role: message_from_row(row, in_window=True) for row in rows}
    return LatestTask(found.get("request"), found.get("todos"))
