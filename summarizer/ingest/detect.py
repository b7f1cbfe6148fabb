"""`--format auto`: which input format a file is in, from its first JSON values.

Each format is recognised by keys its own published shape always has. A JSON Lines input is judged by the
first line that carries a format's signature, within the first HEAD_LINES lines and HEAD_BYTES bytes:
bookkeeping lines (Claude Code's `file-history-snapshot`, `queue-operation`, ...) and lines that are not
JSON are passed over (a line of objects written back to back is judged by each of them), and an input of
Claude Code bookkeeping alone is still Claude Code. When nothing matches, the error names every format
tried and the nearest miss, with the `--format` to pass when the nearest is a known format, so a user
learns what to pass instead of reading a parser's complaint.

`ingest`, `watch` and the hooks all detect through `detect`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from summarizer.domain.errors import SummarizerError
from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.formats.registry import FORMATS
from summarizer.ingest.jsontext import loads_json, loads_sequence

HEAD_BYTES = 1 << 20
"""How much of the input detection reads (it is read again from the start for parsing)."""
HEAD_LINES = 64
"""How many JSON Lines lines detection looks through for one that carries a format's signature."""
IMPORTABLE = tuple(f.name for f in FORMATS if f.detectable)
"""The formats detection tries, in its order."""
OPENING_CHARS = 8192
"""How much of a first line longer than the part read its opening keys are looked for in."""

_KNOWN_BUT_NOT_IMPORTABLE: dict[str, str] = {}
"""First-line types of agent logs this version recognises but cannot import (none at present)."""
_SETTLING: frozenset[str] = frozenset[str]().union(*(f.settles for f in FORMATS))


class UndetectedFormat(SummarizerError, ValueError):
    """No known format matches the input; the message names those tried and the nearest miss."""


@dataclass(frozen=True, slots=True)
class Detected:
    format: str
    reason: str


@dataclass(frozen=True, slots=True)
class Miss:
    """The nearest format an input did not match, and the format to pass if it is one."""

    text: str
    format: str | None = None


def detect(head: bytes, label: str) -> Detected:
    """The format of an input whose first bytes are `head` (at most HEAD_BYTES of it)."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    if not text:
        raise UndetectedFormat(f"{label}: the input is empty; nothing to detect a format from")
    if text[0] not in "[{":  # Markdown, say, not JSON
        for fmt in FORMATS:
            reason = fmt.detect_text(text) if fmt.detect_text is not None else None
            if reason is not None:
                return Detected(fmt.name, reason)
    try:
        document = loads_json(text)
    except ValueError:
        found, shape = _from_lines(text, truncated=len(head) >= HEAD_BYTES)
    else:
        found, shape = _match(document), "one JSON document"
        if isinstance(document, Mapping) and _bookkeeping(document) is not None:  # one line so far
            found, shape = _from_lines(text, truncated=False)
    if isinstance(found, Detected):
        return found
    if found is None:
        raise UndetectedFormat(f"{label}: {shape}; nothing to detect a format from")
    tried = ", ".join(IMPORTABLE)
    hint = f"; pass --format {found.format} if it is one" if found.format else ""
    raise UndetectedFormat(
        f"{label}: no known format matches ({shape}; tried {tried}); nearest: {found.text}{hint}"
    )


def _from_lines(text: str, *, truncated: bool) -> tuple[Detected | Miss | None, str]:
    """The format of the first line (of the first HEAD_LINES) that carries a signature; bookkeeping lines
    and lines that are not JSON are passed over."""
    lines = [line for line in text.splitlines()[:HEAD_LINES] if line.strip()]
    if truncated and len(lines) <= 1 and lines[0].startswith("{"):  # one line longer than the head
        found = _from_opening(lines[0])
        if isinstance(found, Detected):
            return found, "JSON Lines whose first line is longer than the part read"
        return _match(_opening(text)), "one JSON document"
    nearest: Miss | None = None
    bookkeeping: tuple[LogFormat, str] | None = None
    values = 0
    for index, line in enumerate(lines):
        try:
            on_line = loads_sequence(line, strict=False)  # a line may hold objects written back to back
        except ValueError:
            continue
        for value in on_line:
            values += 1
            kept_by = _bookkeeping(value) if isinstance(value, Mapping) else None
            if kept_by is not None:
                bookkeeping = bookkeeping or (kept_by, str(value.get("type")))
                continue
            found = _match(value)
            if isinstance(found, Detected):
                if isinstance(value, Mapping) and _provisional(found, value):
                    return _settled_later(lines[index + 1 :]) or found, "JSON Lines"
                return found, "JSON Lines"
            nearest = nearest or found
    if bookkeeping is not None:
        owner, kind = bookkeeping
        reason = f"{owner.title} bookkeeping lines only so far (type {kind!r})"
        return Detected(owner.name, reason), "JSON Lines"
    if values == 0 and text[0] in "[{" and truncated:  # a document larger than the head: its opening
        return _match(_opening(text)), "one JSON document"
    if values == 0:
        return None, "the input is neither JSON nor JSON Lines"
    return nearest, "JSON Lines"


def _bookkeeping(obj: Mapping[str, Any]) -> LogFormat | None:
    """The format a line that carries no conversation (and so says little) belongs to: one of its
    bookkeeping types, without a `payload` or a `role`."""
    kind = obj.get("type")
    if not isinstance(kind, str) or "payload" in obj or "role" in obj:
        return None
    return next((f for f in FORMATS if kind in f.bookkeeping), None)


def _provisional(found: Detected, obj: Mapping[str, Any]) -> bool:
    """Whether the format found on this line leaves the input's format open (see LogFormat.provisional)."""
    fmt = next(f for f in FORMATS if f.name == found.format)
    return fmt.provisional is not None and fmt.provisional(obj)


def _settled_later(lines: list[str]) -> Detected | None:
    """The format the first later line of a settling type shows (an untyped chat line opens an OpenAI
    Responses input as well as a chat one: a typed item further on tells them apart)."""
    for line in lines:
        try:
            later = loads_json(line)
        except ValueError:
            return None
        if isinstance(later, Mapping) and str(later.get("type")) in _SETTLING:
            found = _match(later)
            return found if isinstance(found, Detected) else None
    return None


def _from_opening(line: str) -> Detected | Miss:
    """The format of a JSON Lines input whose first line is longer than the part read (a pasted image),
    from the keys at its start."""
    start = line[:OPENING_CHARS]
    for fmt in FORMATS:
        reason = fmt.detect_opening(start) if fmt.detect_opening is not None else None
        if reason is not None:
            return Detected(fmt.name, reason)
    return Miss("a first line longer than the part read, without a signature at its start")


def _opening(text: str) -> Any:
    """The keys at the start of a large document, enough to tell the formats apart."""
    decoder = json.JSONDecoder()
    if text.startswith("["):
        try:
            value, _ = decoder.raw_decode(text[1:].lstrip())
            return [value]
        except (ValueError, RecursionError):  # not JSON, or hostile (too deep, too long a number)
            return []
    keys: dict[str, Any] = {}
    for key in ("messages", "input", "output", "conversations", "system", "instructions"):
        if f'"{key}"' in text[:4096]:
            keys[key] = []
    return keys


def _match(value: Any) -> Detected | Miss:
    if isinstance(value, Mapping):
        kind = value.get("type")
        if isinstance(kind, str) and kind in _KNOWN_BUT_NOT_IMPORTABLE:
            return Miss(
                f"{_KNOWN_BUT_NOT_IMPORTABLE[kind]} (its first line has type {kind!r}), which cannot be imported yet"
            )
    for fmt in FORMATS:
        reason = fmt.detect(value) if fmt.detect is not None else None
        if reason is not None:
            return Detected(fmt.name, reason)
    if isinstance(value, list):
        return Miss("a JSON array whose items are not chat messages")
    if not isinstance(value, Mapping):
        return Miss("a JSON value that is not an object")
    return _miss(value, value.get("type"))


def _miss(obj: Mapping[str, Any], kind: object) -> Miss:
    """What an object no format matches is nearest to."""
    for fmt in FORMATS:
        near = fmt.near_miss(obj) if fmt.near_miss is not None else None
        if near is not None:
            return Miss(near, fmt.name)
    if isinstance(kind, str):
        return Miss(f"an event of type {kind!r} that no format uses")
    keys = ", ".join(sorted(str(k) for k in obj)[:8])
    return Miss(f"an object with keys {keys or 'none'}, which no format uses")
