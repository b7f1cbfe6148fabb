"""Strict JSON decoding with reasons that point at the column that is wrong.

Python's decoder is lenient in ways that hide mistakes in hand-written input: it accepts NaN and
Infinity, turns a number too large for a double (`1e400`) into infinity, and lets a repeated key silently
overwrite the first. All are rejected here, so every stored value can be written back as valid JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

from summarizer.ingest.problems import Problem


class DocumentError(Problem):
    """Invalid JSON; `line` (1-based, within the decoded text) locates it in multi-line documents and
    `offset` (when the decoder knows it) tells a truncated first line from a malformed one."""

    def __init__(self, reason: str, line: int = 1, offset: int | None = None) -> None:
        super().__init__(reason)
        self.line = line
        self.offset = offset


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DocumentError(f"invalid JSON: duplicate key {key!r}")
        result[key] = value
    return result


def _reject_constant(name: str) -> Any:
    raise DocumentError(f"invalid JSON: {name} is not allowed")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise DocumentError(f"invalid JSON: the number {_clip(text)} is too large to store")
    return value


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


# One decoder for every document: `json.loads` with hooks builds a new decoder (and scanner) per call.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_object_without_duplicates,
    parse_constant=_reject_constant,
    parse_float=_finite_float,
)


def loads_strict(text: str) -> Any:
    """Decode `text`; DocumentError says what is wrong and where."""
    try:
        if text.startswith("\ufeff"):  # as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"invalid JSON: {exc.msg} at column {exc.colno}", exc.lineno, exc.pos) from None
    except RecursionError:
        raise DocumentError("invalid JSON: nested too deeply") from None


def compact_size(value: Any) -> int:
    """UTF-8 size of a value written compactly: the size of a message that came inside a larger document.
    A lone surrogate counts its three bytes here; the parsers refuse it with a reason."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "surrogatepass"))
