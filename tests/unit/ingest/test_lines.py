"""Line-level rules: size limit, encoding, line breaks and raw bytes."""

from __future__ import annotations

import io
import json

from summarizer.ingest.lines import LineReader
from tests.unit.ingest.helpers import canonical_line, failure, parse


def _line_of_size(size: int) -> str:
    """A canonical line whose UTF-8 size, without the line break, is exactly `size`."""
    bare = json.dumps({"kind": "user", "content": ""})
    return json.dumps({"kind": "user", "content": "x" * (size - len(bare))}) + "\n"


def test_line_at_the_size_limit_is_accepted() -> None:
    (record,) = parse(_line_of_size(200), limit=200)
    assert len(record.message.content) > 100


def test_line_over_the_size_limit_reports_its_size_and_the_setting() -> None:
    error = failure(canonical_line() + _line_of_size(1_048_600))
    assert error.where == "chat.jsonl:2"
    assert error.reason == (
        "message is 1048600 bytes, over the 1048576-byte limit (SUMMARIZER_MAX_MESSAGE_BYTES)"
    )


def test_line_one_byte_over_the_limit_is_refused() -> None:
    assert failure(_line_of_size(201), limit=200).reason.startswith("message is 201 bytes, over the 200-byte")


def test_size_counts_utf8_bytes_not_characters() -> None:
    line = json.dumps({"kind": "user", "content": "é" * 100}, ensure_ascii=False) + "\n"
    size = len(line.encode("utf-8")) - 1
    assert failure(line, limit=size - 1).reason.startswith(f"message is {size} bytes")
    assert parse(line, limit=size)[0].message.content == "é" * 100


def test_crlf_line_breaks_are_not_counted_or_kept() -> None:
    line = _line_of_size(200).replace("\n", "\r\n")
    records = parse(line + line, limit=200)
    assert [r.message.where for r in records] == ["chat.jsonl:1", "chat.jsonl:2"]
    assert not records[0].message.content.endswith("\r")


def test_last_line_without_line_break_is_read() -> None:
    (record,) = parse(canonical_line(content="end").rstrip("\n"))
    assert record.message.content == "end"


def test_invalid_utf8_is_an_error_naming_the_byte() -> None:
    error = failure(b'{"kind": "user", "content": "\xff"}\n')
    assert error.where == "chat.jsonl:1"
    assert error.reason == "invalid UTF-8 at byte 30 of the line"


def test_raw_nul_byte_is_an_error() -> None:
    error = failure(canonical_line() + '{"kind": "user",\x00 "content": "x"}\n')
    assert error.where == "chat.jsonl:2"
    assert error.reason == "raw NUL byte at byte 17 of the line"


def test_leading_byte_order_mark_is_skipped() -> None:
    (record,) = parse(b"\xef\xbb\xbf" + canonical_line().encode())
    assert record.message.content == "hello"


def test_over_long_line_is_measured_without_breaking_the_next_line() -> None:
    reader = LineReader(io.BytesIO(b"a" * 50 + b"\r\nshort\n"), "f")
    first = reader.read_line(10)
    second = reader.read_line(10)
    assert first is not None
    assert (first.size, first.text) == (50, None)
    assert second is not None
    assert (second.number, second.text) == (2, "short")
