"""`FollowStore` over SQL: a followed file's recorded position, moved in the recording transaction.

A log can change a message it already gave (Gemini CLI rewrites its session document and may rewrite the
last message; a log rewritten in place reuses its ids): a message whose id is stored with other content
is kept as first recorded, and the rest of the read is recorded, instead of refusing the whole read
(`record_in(..., keep_first=True)`: the stored ids are looked up once, by the recording itself).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import select

from summarizer.domain.agent_source import WATCH, AgentSource, recorded_from
from summarizer.domain.clock import utcnow
from summarizer.domain.followed import FilePosition
from summarizer.domain.messages import NewMessage
from summarizer.storage.sql.statements.refused import values_checked
from summarizer.storage.sql.statements.schema import followed_files
from summarizer.storage.sql.statements.upserts import for_connection, per_database
from summarizer.storage.sql.stores.conversations import ConversationStore
from summarizer.storage.values import IngestReport

MAX_PATH_CHARS = 1000
"""The width of `followed_files.path`: a longer path is kept as its start and a hash of the whole."""
_COLUMNS = ("format", "file_id", "head", "offset", "state", "updated_at")
_UPSERT = per_database(
    lambda insert: insert(followed_files).on_conflict_do_update(
        index_elements=[followed_files.c.path],
        set_={name: getattr(insert(followed_files).excluded, name) for name in _COLUMNS},
    )
)


class SqlFollowStore:
    def __init__(self, store: ConversationStore) -> None:
        self.store = store
        self.db = store.db

    def followed(self, path: str) -> FilePosition | None:
        with self.db.read() as conn:
            row = conn.execute(select(followed_files).where(followed_files.c.path == _key(path))).first()
        if row is None:
            return None
        return FilePosition(row.format, row.file_id, row.head, int(row.offset), dict(row.state or {}))

    def record_followed(
        self, path: str, records: Sequence[tuple[str, NewMessage]], position: FilePosition
    ) -> IngestReport:
        values = {
            "path": _key(path),
            "format": position.format,
            "file_id": position.file_id,
            "head": position.head,
            "offset": position.offset,
            "state": dict(position.state),
            "updated_at": utcnow(),
        }
        came_from = AgentSource(WATCH, path, position.format)
        files = {agent_id: came_from for agent_id, _ in records}
        with values_checked(), recorded_from(files), self.db.write() as conn:  # refused: rolled back
            report = self.store.record_in(conn, records, keep_first=True)
            conn.execute(for_connection(conn, _UPSERT), values)
        return report


def _key(path: str) -> str:
    if len(path) <= MAX_PATH_CHARS:
        return path
    digest = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{path[: MAX_PATH_CHARS - len(digest) - 1]}~{digest}"
