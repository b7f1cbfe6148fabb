"""Writing a summary version: one compare-and-swap transaction with everything that depends on it.

A new version commits together with the exchanges it folded in (marked `summarized_in_version`), the
agent's count of unsummarized exchanges, and the run record. The swap is guarded twice: the summary row
must still carry the version the update started from, and every exchange of the batch must still be
unsummarized. Either guard failing raises `StaleSummary`, the transaction rolls back whole, and so an
exchange is folded in exactly once however often the same update runs.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, Update, and_, bindparam, case, insert, select, update

from summarizer.engine.model import Summary
from summarizer.storage.sql.dialect import SqlDialect
from summarizer.storage.sql.statements.constants import inline
from summarizer.storage.sql.statements.schema import agents, exchanges, summaries, summary_runs
from summarizer.storage.sql.statements.summary_rows import summary_values
from summarizer.storage.sql.statements.upserts import for_connection, per_database
from summarizer.storage.sql.statements.window_rows import exchange_range
from summarizer.storage.values import RecentRun, RunRecord, StaleSummary

# The statements of an update's commit, built once with bind parameters: constructing them and generating
# their cache keys on every call cost more CPU than PostgreSQL spent running them (SQLAlchemy memoizes the
# cache key on a statement object, so a module-level statement pays it once).
SUMMARY_VALUE_PARAMS = {
    name: bindparam(f"sv_{name}", type_=summaries.c[name].type)
    for name in (
        "agent_id",
        "version",
        "items",
        "token_count",
        "covered_through_exchange_id",
        "last_aged_on",
        "updated_at",
    )
}
"""The bind parameters of a summary's columns (`sv_<column>`), shared by every statement that writes them."""
_SUMMARY_VALUES = {name: p for name, p in SUMMARY_VALUE_PARAMS.items() if name != "agent_id"}
_SWAP_UPDATE = (
    update(summaries)
    .where(
        summaries.c.agent_id == SUMMARY_VALUE_PARAMS["agent_id"],
        summaries.c.version == bindparam("sv_from_version", type_=summaries.c.version.type),
    )
    .values(**_SUMMARY_VALUES)
    .returning(summaries.c.version)
)
# rowcount is not reliable for INSERT ... ON CONFLICT on every driver; RETURNING is.
_SWAP_INSERT = per_database(
    lambda insert: (
        insert(summaries)
        .values(**SUMMARY_VALUE_PARAMS)
        .on_conflict_do_nothing(index_elements=[summaries.c.agent_id])
        .returning(summaries.c.agent_id)
    )
)


def swap_params(new: Summary, from_version: int) -> dict[str, Any]:
    params = {f"sv_{name}": value for name, value in summary_values(new).items()}
    if from_version:
        params["sv_from_version"] = from_version
    return params


def swap_statement(dialect: SqlDialect, from_version: int) -> Any:
    """The compare-and-swap: an UPDATE guarded by the version, or for a first version an INSERT that a
    concurrent first version makes a no-op; either returns one row when it swapped."""
    if from_version == 0:
        return _SWAP_INSERT.built_for(dialect)
    return _SWAP_UPDATE


def swap_summary(conn: Connection, new: Summary, from_version: int) -> None:
    """Store `new` if the stored version is still `from_version` (0: no summary row yet)."""
    stmt = for_connection(conn, _SWAP_INSERT) if from_version == 0 else _SWAP_UPDATE
    if conn.execute(stmt, swap_params(new, from_version)).first() is None:
        raise StaleSummary(f"summary of {new.agent_id!r} is no longer at version {from_version}")


def _take_off_statement() -> Update:
    left = agents.c.unsummarized - bindparam("to_count", type_=agents.c.unsummarized.type)
    return (
        update(agents)
        .where(agents.c.id == bindparam("to_agent", type_=agents.c.id.type))
        .values(
            unsummarized=case((left > inline(0), left), else_=inline(0)),
            unsummarized_since=case(
                (left > inline(0), bindparam("to_now", type_=agents.c.unsummarized_since.type)),
                else_=inline(None),
            ),
        )
        .returning(agents.c.unsummarized)
    )


TAKE_OFF = _take_off_statement()


def take_off_unsummarized(conn: Connection, agent_id: str, count: int, now: datetime) -> int:
    """Take `count` folded exchanges off the agent's unsummarized count; returns what is left.

    The first write of an update's commit: it locks the agent row before the queue row, the same order as
    the conversation store, so a summary commit and an ingest of the same agent can never deadlock on
    PostgreSQL. The oldest remaining unsummarized exchange is taken to have waited since `now` (it arrived
    while this update ran, or did not fit its batch and is re-queued at once).
    """
    remaining = conn.execute(TAKE_OFF, take_off_params(agent_id, count, now)).scalar()
    return int(remaining or 0)


def take_off_params(agent_id: str, count: int, now: datetime) -> dict[str, Any]:
    return {"to_agent": agent_id, "to_count": count, "to_now": now}


MARK_FOLDED = (
    update(exchanges)
    .where(
        *exchange_range("mf"),
        exchanges.c.evicted_at.is_not(None),
        exchanges.c.summarized_in_version.is_(None),
    )
    .values(summarized_in_version=bindparam("mf_version", type_=exchanges.c.summarized_in_version.type))
)


def mark_folded_params(agent_id: str, first: int, last: int, version: int) -> dict[str, Any]:
    return {"mf_agent": agent_id, "mf_first": first, "mf_last": last, "mf_version": version}


def mark_folded(conn: Connection, agent_id: str, first: int, last: int, version: int) -> int:
    """Mark the still-unsummarized evicted exchanges first..last as folded into `version`; returns how
    many (the commit's guard compares it with the batch's size)."""
    return int(conn.execute(MARK_FOLDED, mark_folded_params(agent_id, first, last, version)).rowcount)


# Every column but the id, always all of them, so the compiled INSERT is the same on every call. The
# parameters are numbered, not named after their columns: the commit statement that embeds this INSERT
# must stay under psycopg's statement cache limit.
_RUN_COLUMNS = tuple(c.name for c in summary_runs.c if c.name != "id")
RECORD_RUN = insert(summary_runs).values(
    {name: bindparam(f"rr{i}", type_=summary_runs.c[name].type) for i, name in enumerate(_RUN_COLUMNS)}
)


def run_params(run: RunRecord) -> dict[str, Any]:
    """RECORD_RUN's parameters: RunRecord has an attribute for every column but the id."""
    return {f"rr{i}": getattr(run, name) for i, name in enumerate(_RUN_COLUMNS)}


def record_run(conn: Connection, run: RunRecord) -> None:
    conn.execute(RECORD_RUN, run_params(run))


def recent_runs(conn: Connection, agent_id: str, limit: int) -> list[RecentRun]:
    """The agent's latest runs, newest first (index on agent_id, finished_at)."""
    r = summary_runs.c
    stmt = (
        select(r.outcome, r.path, r.finished_at)
        .where(r.agent_id == agent_id)
        .order_by(r.finished_at.desc(), r.id.desc())
        .limit(limit)
    )
    return [RecentRun(row.outcome, row.path, row.finished_at) for row in conn.execute(stmt)]


def agents_due_for_aging(conn: Connection, today: date, limit: int, after: str = "") -> list[str]:
    """Agents with a summary not yet aged on `today`, in id order from `after` (for paging)."""
    stmt = (
        select(summaries.c.agent_id)
        .where(
            and_(
                summaries.c.agent_id > after,
                (summaries.c.last_aged_on.is_(None)) | (summaries.c.last_aged_on < today),
            )
        )
        .order_by(summaries.c.agent_id)
        .limit(limit)
    )
    return list(conn.execute(stmt).scalars())
