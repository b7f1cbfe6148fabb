"""Lazy line reading that never holds an over-long line in memory.

Inputs can be large exports, so lines are read one at a time. A line over the size limit is measured
rather than kept, so the error can still say how big it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

from summarizer.domain.errors import InvalidMessage

_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 16
JSON_WHITESPACE = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Line:
    """One input line without its line break; `text` is None when the line was over the limit."""

    number: int
    size: int
    text: str | None

    @property
    def blank(self) -> bool:
        return self.text is not None and not self.text.strip(JSON_WHITESPACE)


def over_limit_reason(size: int, limit: int) -> str:
    return f"message is {size} bytes, over the {limit}-byte limit (SUMMARIZER_MAX_MESSAGE_BYTES)"


class LineReader:
    """Reads a binary stream line by line; `label` names the input in errors ("chat.jsonl", "-")."""

    def __init__(self, stream: BinaryIO, label: str) -> None:
        self._stream = stream
        self.label = label
        self._number = 0
        self.unterminated = False
        """The last line read had no line break: the end of an input that may still be being written."""
        self.partial_lines = 0
        """Unterminated last lines that were not JSON yet (a log still being written), skipped."""

    def where(self, number: int) -> str:
        return f"{self.label}:{number}"

    def read_line(self, limit: int | None) -> Line | None:
        """The next line, or None at the end. With `limit`, a longer line comes back with text None."""
        chunk = self._stream.readline(-1 if limit is None else limit + 2)
        if not chunk:
            return None
        self.unterminated = not chunk.endswith(b"\n")
        self._number += 1
        if limit is not None and len(chunk) == limit + 2 and not chunk.endswith(b"\n"):
            return Line(self._number, self._measure_rest(chunk), None)
        content = chunk[: len(chunk) - _line_break_length(chunk)]
        if limit is not None and len(content) > limit:
            return Line(self._number, len(content), None)
        return Line(self._number, len(content), self._decode(content, self._number))

    def read_rest(self) -> tuple[int, str]:
        """Everything after the lines read so far, and the number of its first line."""
        start = self._number + 1
        data = self._stream.read()
        self._number += data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        return start, self._decode(data, start)

    def _measure_rest(self, head: bytes) -> int:
        total = len(head)
        tail = head[-2:]
        while chunk := self._stream.readline(_CHUNK):
            total += len(chunk)
            tail = (tail + chunk)[-2:]
            if chunk.endswith(b"\n"):
                break
        return total - _line_break_length(tail)

    def _decode(self, data: bytes, number: int) -> str:
        """UTF-8 text of `data`, whose first line is line `number`; raw NULs and bad bytes are errors."""
        if number == 1 and data.startswith(_BOM):
            data = data[len(_BOM) :]
        nul = data.find(b"\x00")
        if nul >= 0:
            line, column = _position(data, nul, number)
            raise InvalidMessage(f"raw NUL byte at byte {column} of the line", self.where(line))
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line, column = _position(data, exc.start, number)
            raise InvalidMessage(f"invalid UTF-8 at byte {column} of the line", self.where(line)) from None


def first_lines(stream: BinaryIO, *, budget: int, line_limit: int, max_lines: int = 50) -> bytes | None:
    """The first complete lines of a file, for telling its format: up to `max_lines` lines, stopping once
    `budget` bytes are kept. A line is kept whole however long, up to `line_limit` bytes (a first line
    holding a pasted image is read); a longer one is passed over, measured and not kept. None while no
    complete line can be kept yet (the first line is still being written)."""
    stream.seek(0)
    kept: list[bytes] = []
    total = seen = 0
    while seen < max_lines and total < budget:
        chunk = stream.readline(line_limit + 2)
        if chunk.endswith(b"\n"):
            kept.append(chunk)
            total += len(chunk)
        elif len(chunk) < line_limit + 2 or not _skip_rest(stream):
            break  # the end, or a last line (or an over-long one) still being written
        seen += 1
    return b"".join(kept) if kept else None


def _skip_rest(stream: BinaryIO) -> bool:
    """Read past the rest of the current line; False when the input ends before its line break."""
    while chunk := stream.readline(_CHUNK):
        if chunk.endswith(b"\n"):
            return True
    return False


def _position(data: bytes, offset: int, first_line: int) -> tuple[int, int]:
    """1-based line number and byte column of `offset` in `data`."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return first_line + data.count(b"\n", 0, offset), offset - line_start + 1


def _line_break_length(chunk: bytes) -> int:
    if chunk.endswith(b"\r\n"):
        return 2
    return 1 if chunk.endswith(b"\n") else 0
