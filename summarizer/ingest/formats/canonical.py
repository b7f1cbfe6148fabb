"""`--format canonical`: the project's own message per line (the table of keys in docs/input-formats.md)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from summarizer.ingest.canonical import parse_canonical
from summarizer.ingest.formats.base import LogFormat, Reading, SettledLines, fed_lines
from summarizer.ingest.lines import LineReader
from summarizer.ingest.records import IngestRecord


def _detect(value: Any) -> str | None:
    if isinstance(value, Mapping) and "kind" in value and "content" in value:
        return "canonical messages (kind and content)"
    return None


class _Lines(SettledLines):
    """Canonical lines hold nothing back and keep no state."""

    def __init__(self, agent: str | None, _kept: Mapping[str, Any]) -> None:
        self._agent = agent

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        return [parse_canonical(obj, self._agent, where)]

    def state(self) -> dict[str, Any]:
        return {}


def _read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    yield from fed_lines(lines, reading, _Lines(reading.agent, {}).feed)


FORMAT = LogFormat(
    name="canonical",
    title="canonical JSON Lines",
    read=_read,
    detect=_detect,
    follow=_Lines,
)
