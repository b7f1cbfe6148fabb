"""Strict JSON decoding with reasons that point at the column that is wrong.

Python's decoder is lenient in ways that hide mistakes in hand-written input: it accepts NaN and
Infinity, turns a number too large for a double (`1e400`) into infinity, and lets a repeated key silently
overwrite the first. All are rejected here, so every stored value can be written back as valid JSON.

Every JSON the project reads (HTTP bodies, ingested files, hook stdin, watched logs, the JSON texts inside
them) is decoded here, by `loads_strict` or, where the format's own leniency is wanted, `loads_json`. Both
refuse hostile documents with a reason and a position instead of an exception from deep inside the
decoder: an integer longer than Python converts (4,300 digits) and nesting deeper than MAX_NESTING levels
(a value that deep would overflow the stack of whatever walks it next).
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

from summarizer.ingest.problems import Problem

MAX_NESTING = 100
"""Deepest nesting of arrays and objects accepted; real agent logs stay far below it."""


class DocumentError(Problem, ValueError):
    """Invalid JSON; `line` (1-based, within the decoded text) locates it in multi-line documents and
    `offset` (when the decoder knows it) tells a truncated first line from a malformed one."""

    def __init__(self, reason: str, line: int = 1, offset: int | None = None) -> None:
        super().__init__(reason)
        self.line = line
        self.offset = offset
        self.trailing = False
        """A whole value was read and something follows it (JSON's "Extra data")."""

    @classmethod
    def at(cls, what: str, text: str, position: int) -> DocumentError:
        """The error `invalid JSON: WHAT at column N`, with the line and column of `position` in `text`."""
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        return cls(f"invalid JSON: {what} at column {column}", line, position)


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


_LENIENT = json.JSONDecoder()
_CONTAINERS = (dict, list)
_BRACKETS = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|[\[\]{}]')


def loads_strict(text: str) -> Any:
    """Decode `text`; DocumentError says what is wrong and where."""
    if text.startswith("\ufeff"):  # as json.loads refuses it
        raise DocumentError("invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at column 1", 1, 0)
    return _decode(_DECODER, text)


def loads_json(text: str | bytes) -> Any:
    """Decode `text` as `json.loads` does (NaN, repeated keys and bytes accepted), with the same bounds as
    `loads_strict`; every failure is a DocumentError, a ValueError, so callers that fall back to the raw
    text on `ValueError` keep doing so."""
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig")
    return _decode(_LENIENT, text)


def loads_sequence(text: str | bytes, *, strict: bool = True) -> list[Any]:
    """The JSON values of a text that holds one value, or several written back to back (`{...}{...}`: a
    JSON Lines log line with a second object glued on after the first). Each value is decoded under the
    bounds and, with `strict`, the rules of `loads_strict` (without: those of `loads_json`). A text that
    is not entirely a sequence of values fails as `loads_strict` fails on it; whitespace between values
    is allowed."""
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig")
    decoder = _DECODER if strict else _LENIENT
    try:
        return [loads_strict(text) if strict else _decode(decoder, text)]
    except DocumentError as exc:
        if not exc.trailing:
            raise
        first_error = exc
    values: list[Any] = []
    position = _space_end(text, 0)
    while position < len(text):
        if text[position] not in _VALUE_STARTS:  # no value follows the last one: as loads_strict says
            raise first_error
        value, end = _decode_one(decoder, text, position)
        values.append(value)
        position = _space_end(text, end)
    return values


_VALUE_STARTS = frozenset('{["-0123456789tfnNI')


def _space_end(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _decode_one(decoder: json.JSONDecoder, text: str, start: int) -> tuple[Any, int]:
    """The value that starts at `start` and where it ends, under the same bounds as `_decode`."""
    try:
        value, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"invalid JSON: {exc.msg} at column {exc.colno}", exc.lineno, exc.pos) from None
    except DocumentError:
        raise
    except RecursionError:
        raise _too_deep(text) from None
    except ValueError:
        raise _too_long_integer(text) from None
    if isinstance(value, _CONTAINERS) and _brackets(text, start, end) > MAX_NESTING and _deeper(value):
        raise _too_deep(text)
    return value, end


def _brackets(text: str, start: int, end: int) -> int:
    return text.count("[", start, end) + text.count("{", start, end)


def _decode(decoder: json.JSONDecoder, text: str) -> Any:
    try:
        value = decoder.decode(text)
    except json.JSONDecodeError as exc:
        error = DocumentError(f"invalid JSON: {exc.msg} at column {exc.colno}", exc.lineno, exc.pos)
        error.trailing = exc.msg == "Extra data"
        raise error from None
    except DocumentError:
        raise
    except RecursionError:
        raise _too_deep(text) from None
    except ValueError:  # an integer longer than int() converts (sys.get_int_max_str_digits())
        raise _too_long_integer(text) from None
    if isinstance(value, _CONTAINERS) and text.count("[") + text.count("{") > MAX_NESTING and _deeper(value):
        raise _too_deep(text)
    return value


def _deeper(value: Any) -> bool:
    """True when `value` nests more than MAX_NESTING levels (walked with a list, not recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, _CONTAINERS))
    return False


def _too_deep(text: str) -> DocumentError:
    depth = 0
    for match in _BRACKETS.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return DocumentError.at(
                    f"arrays and objects nested deeper than {MAX_NESTING} levels", text, match.start()
                )
        elif char in "]}":
            depth -= 1
    return DocumentError(f"invalid JSON: arrays and objects nested deeper than {MAX_NESTING} levels")


def _too_long_integer(text: str) -> DocumentError:
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"[0-9]{{{limit + 1},}}", text)
    what = f"an integer of more than {limit} digits"
    if found is None:
        return DocumentError(f"invalid JSON: {what}")
    return DocumentError.at(f"{what} ({len(found.group())})", text, found.start())


def compact_size(value: Any) -> int:
    """UTF-8 size of a value written compactly: the size of a message that came inside a larger document.
    A lone surrogate counts its three bytes here; the parsers refuse it with a reason."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "surrogatepass"))
