"""Cline's own text in a user turn (its `# TODO LIST UPDATE REQUIRED` reminder, its nags) is nobody's
prompt: a `mark` of the running exchange. A call the history ends on stays without a result, and the read
says so."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from summarizer.cli.main import cli
from summarizer.domain.kinds import Kind, is_conversation
from summarizer.ingest import IngestRecord, ReadNotes, iter_stream_records
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages
from tests.support.corpora import corpus_path
from tests.support.http_api import cli_settings
from tests.support.services import copy_sqlite_template

REMINDER = "\n\n\n\t\t\t\t# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call."
HISTORY = corpus_path("agent-logs-2/cline_agentlogs_api_conversation_history.json")


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def _use(call_id: str, name: str, **params: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": params}


TASK: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            _text("<task>\nlist the tests\n</task>"),
            _text("<environment_details>\nx\n</environment_details>"),
        ],
    },
    {"role": "assistant", "content": [_use("toolu_1", "list_files", path="tests")]},
    {"role": "user", "content": [_text("[list_files for 'tests'] Result:\ntest_a.py"), _text(REMINDER)]},
    {"role": "assistant", "content": [_use("toolu_2", "execute_command", command="pytest -q")]},
]
"""A task whose history was saved while its last call ran (the file ends on it)."""


def _read(history: object, notes: ReadNotes) -> list[IngestRecord]:
    data = json.dumps(history).encode()
    return list(
        iter_stream_records(io.BytesIO(data), "history.json", "cline", "task", 1_000_000, notes=notes)
    )


def test_the_todo_reminder_beside_a_result_is_a_mark_of_the_running_exchange() -> None:
    notes = ReadNotes()
    records = _read(TASK, notes)
    shape = [(r.message.kind, r.message.tool_call_id) for r in records]
    assert shape == [
        (Kind.USER, None),
        (Kind.TOOL_CALL, "toolu_1"),
        (Kind.TOOL_RESULT, "toolu_1"),
        (Kind.MARK, None),
        (Kind.TOOL_CALL, "toolu_2"),
    ]
    mark = records[3].message
    assert mark.content.startswith("# TODO LIST UPDATE REQUIRED")
    assert not is_conversation(mark.kind)
    assert not mark.starts_exchange
    assert [r.message.content for r in records if r.message.kind is Kind.TOOL_RESULT] == ["test_a.py"]


def test_the_call_the_history_ends_on_gets_no_invented_result_and_is_counted() -> None:
    notes = ReadNotes()
    records = _read(TASK, notes)
    assert records[-1].message.kind is Kind.TOOL_CALL
    assert not any(r.message.tool_call_id == "toolu_2" for r in records[:-1])
    assert (notes.unpaired_calls, notes.orphan_results) == (1, 0)


def test_a_reminder_alone_opens_no_exchange() -> None:
    alone = [*TASK[:3], {"role": "user", "content": [_text(REMINDER)]}]
    records = _read(alone, ReadNotes())
    assert [r.message.kind for r in records].count(Kind.USER) == 1
    assert records[-1].message.kind is Kind.MARK


@pytest.fixture
def sqlite_db(tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    db = connect_database(copy_sqlite_template(sqlite_template, tmp_path / "cline.db"))
    cli_settings(monkeypatch, tmp_path, db)
    yield db
    db.dispose()


@pytest.mark.usefixtures("corpora")
def test_ingest_of_the_real_history_stores_two_prompts_and_says_one_call_is_still_waiting(
    sqlite_db: Database,
) -> None:
    result = CliRunner().invoke(cli, ["ingest", str(HISTORY)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "1 tool call(s) got no result in the input" in result.output.splitlines()
    with sqlite_db.read() as conn:
        rows = conn.execute(select(messages.c.kind, func.count()).group_by(messages.c.kind)).all()
    kinds = Counter({str(kind): int(n) for kind, n in rows})
    assert (kinds["user"], kinds["tool_call"], kinds["tool_result"]) == (2, 37, 36)
    with sqlite_db.read() as conn:
        marks = conn.execute(select(messages.c.content).where(messages.c.kind == "mark")).scalars().all()
    assert any(str(m).startswith("# TODO LIST UPDATE REQUIRED") for m in marks)
