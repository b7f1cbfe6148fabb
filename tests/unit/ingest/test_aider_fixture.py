"""aider chat history: the real `.aider.chat.history.md` in the corpora's project-fixtures/aider (source in its README),
imported without `--format` with the counts the file holds. The numbers were counted from the file itself
(grep and awk over its lines, and by reading the blocks around each multi-line note), not by this code."""

from __future__ import annotations

import io
from collections import Counter
from datetime import UTC, datetime

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import IngestRecord, ReadNotes, iter_stream_records
from summarizer.ingest.detect import HEAD_BYTES, detect
from tests.support.corpora import fixture_path

pytestmark = pytest.mark.usefixtures("corpora")

HISTORY = fixture_path("aider/.aider.chat.history.md")


def _read(agent: str | None = None) -> tuple[list[IngestRecord], ReadNotes]:
    """The fixture read as `summarizer ingest PATH` reads it: the format detected, the path as its label."""
    notes = ReadNotes()
    data = io.BytesIO(HISTORY.read_bytes())
    return list(iter_stream_records(data, str(HISTORY), "auto", agent, 1_000_000, notes=notes)), notes


def test_detect_picks_aider_for_the_real_history() -> None:
    assert detect(HISTORY.read_bytes()[:HEAD_BYTES], HISTORY.name).format == "aider"


def test_the_history_imports_with_the_counts_its_file_holds() -> None:
    records, notes = _read()
    assert notes.detected.startswith("aider")
    assert Counter(r.message.kind for r in records) == {
        Kind.CLEAR: 19,  # 19 `# aider chat started at` lines: each run starts with an empty chat
        Kind.USER: 23,  # 26 `####` groups: 23 prompts ...
        Kind.COMMAND: 1,  # ... one `/undo` ...
        Kind.ASSISTANT: 40,  # 40 text blocks after a blank line that follows a line aider ended with its break
        # 652 `>` lines ending with the two-space break, less 68 blank ones, plus 7 multi-line error notes,
        # plus the 2 "Add file to the chat? ... all" answers logged as `####` lines: 593 notes, of which
        # those before their run's first prompt are marks and the rest system text.
        Kind.MARK: 255,
        Kind.SYSTEM: 338,
    }
    assert (notes.skipped, notes.warnings, notes.clamped_times, notes.partial_lines) == (0, [], 0, 0)
    # The file names no session: the agent is the folder holding it (the project, in a real checkout).
    assert {r.agent_id for r in records} == {"aider"}


def test_each_run_gives_its_time_to_its_messages() -> None:
    records, _notes = _read()
    first, last = records[0].message, records[-1].message
    assert (first.kind, first.content) == (Kind.CLEAR, "aider chat started at 2025-06-02 11:47:49")
    assert first.created_at == datetime(2025, 6, 2, 11, 47, 49, tzinfo=UTC)  # local time, taken as UTC
    assert last.created_at == datetime(2025, 6, 2, 14, 29, 21, tzinfo=UTC)  # the last run, line 2608
    assert all(r.message.created_at is not None and r.message.host_id for r in records)


def test_prompts_replies_and_notes_land_where_the_file_puts_them() -> None:
    records, _notes = _read()
    by_line = {int(str(r.message.where).rsplit(":", 1)[1]): r.message for r in records}
    assert by_line[4].kind is Kind.MARK  # the first run's startup note, before any prompt
    assert by_line[4].content == "You need to install the aider browser feature"
    assert (by_line[24].kind, by_line[24].content) == (Kind.USER, "What can you say about this package?")
    reply = by_line[127]  # the reply that opened with a <thinking-content-...> block, left out
    assert reply.kind is Kind.ASSISTANT
    assert reply.content.startswith("You haven't shared the full contents of any files")
    assert "thinking-content" not in reply.content
    assert (by_line[2576].kind, by_line[2576].content) == (Kind.COMMAND, "/undo")
    # The run that began at line 2410 worked from `AI!` comments in the code: no typed prompt before the
    # `/undo`, so what it printed is a mark; after the prompt at line 2581, aider's notes are system text.
    assert by_line[2577].kind is Kind.MARK
    assert by_line[2577].content.startswith("Removed: 2bae9da refactor")
    assert (by_line[2581].kind, by_line[2587].kind) == (Kind.USER, Kind.SYSTEM)
    assert by_line[2587].content.startswith("Tokens: 14k sent, 38 received.")
    commits = [m for m in by_line.values() if m.content.startswith("Commit ")]
    # 43 `> Commit <hash> ...` lines: 37 after their run's first prompt, 6 in runs driven by `AI!` comments
    # before any typed prompt.
    assert Counter(m.kind for m in commits) == {Kind.SYSTEM: 37, Kind.MARK: 6}
    # A SEARCH/REPLACE error note runs over blank lines and `>>>>>>> REPLACE` lines to its closing line.
    error = by_line[1326]
    assert error.kind is Kind.SYSTEM
    assert error.content.startswith("# 1 SEARCH/REPLACE block failed to match!")
    assert error.content.endswith("including all white space, comments, indentation, docstrings, etc")
    assert by_line[1455].kind is Kind.ASSISTANT  # the model's retry after it
    assert by_line[1455].content.startswith("You are correct, my apologies.")


def test_the_history_read_again_derives_the_same_ids() -> None:
    first, _ = _read()
    second, _ = _read()
    assert [r.message.host_id for r in first] == [r.message.host_id for r in second]
    assert len({r.message.host_id for r in first}) == len(first)
