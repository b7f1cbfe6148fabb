"""`--format aider`: aider chat histories (`.aider.chat.history.md` in each project's root; Markdown)."""

from __future__ import annotations

from collections.abc import Iterator

from summarizer.ingest.aider import HISTORY_NAME, AiderHistory, aider_items, looks_like_aider
from summarizer.ingest.formats.base import LogFormat, Reading
from summarizer.ingest.lines import LineReader
from summarizer.ingest.records import IngestRecord


def _detect_text(text: str) -> str | None:
    if looks_like_aider(text):
        return "an aider chat history ('# aider chat started at' lines)"
    return None


def _read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    history = AiderHistory(reading.agent, reading.max_bytes)
    for item in aider_items(lines, reading.max_bytes):
        yield from reading.guard(item, history.feed)


FORMAT = LogFormat(
    name="aider",
    title="aider",
    read=_read,
    detect_text=_detect_text,
    document=True,
    log_names=frozenset({HISTORY_NAME}),
    folder_note=f"aider keeps {HISTORY_NAME} in each project's root: name the file or the project folder",
)
