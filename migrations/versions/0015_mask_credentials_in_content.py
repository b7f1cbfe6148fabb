"""credentials pasted into conversations are masked in stored messages

Messages are now masked before they are stored (`summarizer/domain/credentials.py`): an API key, token,
JWT, private key or password an agent or its user wrote becomes `[secret:KIND …LAST]`. This data
migration masks what earlier versions stored: each message's text and tool input, the title of an
exchange that such a message opens, the item texts of the current summaries and of every kept summary
version, and the detail of dropped exchanges. With SUMMARIZER_KEEP_RAW_CREDENTIALS=true nothing is
changed.

Safe on a live database with millions of rows: the rows are read in primary-key order, 2,000 per
statement (keyset pages, never an OFFSET, never the whole table in memory), and only the rows whose text
changes are written, each page's changes as one executemany, so the locks taken are those of the few
rows that held a credential. The search index follows the new text: PostgreSQL recomputes the generated
`search_document` of each updated row itself; on SQLite the FTS5 row of each changed message is deleted
and made again from the masked message with the document expression the recording path uses. A masked
text cannot be unmasked, so downgrading changes nothing.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 13:00:00
"""

import json
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from summarizer.domain.credentials import mask_credentials, mask_json
from summarizer.domain.window import title_of

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PAGE = 2000
_JSON = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
_DOCUMENT = "substr(content || ' ' || coalesce(name, '') || ' ' || coalesce(input, ''), 1, 200000)"

_messages = sa.table(
    "messages",
    sa.column("agent_id", sa.String),
    sa.column("seq", sa.Integer),
    sa.column("content", sa.Text),
    sa.column("input", _JSON),
)
_exchanges = sa.table(
    "exchanges",
    sa.column("agent_id", sa.String),
    sa.column("first_seq", sa.Integer),
    sa.column("title", sa.String),
)
_summaries = sa.table("summaries", sa.column("agent_id", sa.String), sa.column("items", _JSON))
_versions = sa.table(
    "summary_versions",
    sa.column("agent_id", sa.String),
    sa.column("version", sa.Integer),
    sa.column("items", _JSON),
)
_drops = sa.table(
    "exchange_drops",
    sa.column("agent_id", sa.String),
    sa.column("exchange_id", sa.Integer),
    sa.column("version", sa.Integer),
    sa.column("detail", sa.Text),
)


def _keeps_raw_content() -> bool:
    try:
        from summarizer.composition.environment import load

        return load().keep_raw_credentials
    except Exception:  # settings that do not load: mask, the default
        return False


def _pages(
    conn: sa.Connection, table: Any, keys: Sequence[str], columns: Sequence[str]
) -> Iterator[list[Any]]:
    """The table's rows (keys, then columns) in key order, PAGE per statement, each page after the last."""
    key_columns = [table.c[k] for k in keys]
    last: tuple[Any, ...] | None = None
    while True:
        stmt = sa.select(*key_columns, *(table.c[c] for c in columns)).order_by(*key_columns).limit(PAGE)
        if last is not None:
            stmt = stmt.where(sa.tuple_(*key_columns) > sa.tuple_(*(sa.literal(v) for v in last)))
        rows = conn.execute(stmt).all()
        if not rows:
            return
        yield list(rows)
        last = tuple(rows[-1][: len(keys)])


def _json_value(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _mask_messages(conn: sa.Connection) -> None:
    sqlite = conn.dialect.name == "sqlite"
    update = (
        sa.update(_messages)
        .where(_messages.c.agent_id == sa.bindparam("m_agent"), _messages.c.seq == sa.bindparam("m_seq"))
        .values(content=sa.bindparam("m_content"), input=sa.bindparam("m_input", type_=_JSON))
    )
    retitle = (
        sa.update(_exchanges)
        .where(
            _exchanges.c.agent_id == sa.bindparam("t_agent"), _exchanges.c.first_seq == sa.bindparam("t_seq")
        )
        .values(title=sa.bindparam("t_title"))
    )
    for page in _pages(conn, _messages, ("agent_id", "seq"), ("content", "input")):
        changed = []
        for agent_id, seq, content, raw_input in page:
            tool_input = _json_value(raw_input)
            masked_content, masked_input = mask_credentials(content), mask_json(tool_input)
            if masked_content is not content or masked_input is not tool_input:
                changed.append((agent_id, seq, masked_content, masked_input))
        if not changed:
            continue
        conn.execute(
            update,
            [{"m_agent": a, "m_seq": s, "m_content": c, "m_input": i} for a, s, c, i in changed],
        )
        conn.execute(retitle, [{"t_agent": a, "t_seq": s, "t_title": title_of(c)} for a, s, c, _ in changed])
        if sqlite:
            _reindex_sqlite(conn, [(a, s) for a, s, _, _ in changed])


def _reindex_sqlite(conn: sa.Connection, keys: list[tuple[str, int]]) -> None:
    """The changed messages' FTS5 rows made again from their masked text (migration 0014's layout): one
    delete per agent of the page (FTS5 reads that agent's rows once), one insert per message."""
    by_agent: dict[str, list[int]] = {}
    for agent_id, seq in keys:
        by_agent.setdefault(agent_id, []).append(seq)
    delete = sa.text(
        "DELETE FROM message_search WHERE rowid IN (SELECT rowid FROM message_search "
        "WHERE message_search MATCH :match AND seq IN :seqs)"
    ).bindparams(sa.bindparam("seqs", expanding=True))
    for agent_id, seqs in by_agent.items():
        word = agent_id.encode("utf-8").hex().upper() + "0"
        conn.execute(delete, {"match": f'agent : "{word}"', "seqs": seqs})
    conn.execute(
        sa.text(
            f"INSERT INTO message_search (document, agent, seq) SELECT {_DOCUMENT}, hex(agent_id) || '0', seq "
            "FROM messages WHERE agent_id = :agent AND seq = :seq"
        ),
        [{"agent": a, "seq": s} for a, s in keys],
    )


def _mask_items(conn: sa.Connection, table: Any, keys: Sequence[str]) -> None:
    where = sa.and_(*(table.c[k] == sa.bindparam(f"k_{k}") for k in keys))
    update = sa.update(table).where(where).values(items=sa.bindparam("k_items", type_=_JSON))
    for page in _pages(conn, table, keys, ("items",)):
        changed = []
        for row in page:
            items = _json_value(row[-1])
            masked = mask_json(items)
            if masked is not items:
                changed.append({**{f"k_{k}": row[i] for i, k in enumerate(keys)}, "k_items": masked})
        if changed:
            conn.execute(update, changed)


def _mask_drops(conn: sa.Connection) -> None:
    keys = ("agent_id", "exchange_id", "version")
    where = sa.and_(*(_drops.c[k] == sa.bindparam(f"d_{k}") for k in keys))
    update = sa.update(_drops).where(where).values(detail=sa.bindparam("d_detail"))
    for page in _pages(conn, _drops, keys, ("detail",)):
        changed = [
            {"d_agent_id": a, "d_exchange_id": e, "d_version": v, "d_detail": mask_credentials(detail)}
            for a, e, v, detail in page
            if mask_credentials(detail) is not detail
        ]
        if changed:
            conn.execute(update, changed)


def upgrade() -> None:
    if _keeps_raw_content():
        return
    conn = op.get_bind()
    _mask_messages(conn)
    _mask_items(conn, _summaries, ("agent_id",))
    _mask_items(conn, _versions, ("agent_id", "version"))
    _mask_drops(conn)


def downgrade() -> None:
    """Masked text cannot be restored: nothing to undo."""
