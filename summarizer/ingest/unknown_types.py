"""Lines, items or events of a type a reader does not know: counted by type, each type's first place kept,
so it can be named once (`ingest` and `watch` say `FILE:LINE: N ... of unknown type 'x' skipped`).

A file of a million made-up types keeps at most MAX_UNKNOWN_TYPES counts: the types past it are counted
together, as OTHER_UNKNOWN_TYPES, and a name is clipped to 64 characters.
"""

from __future__ import annotations

from collections import Counter

MAX_UNKNOWN_TYPES = 50
"""How many unknown types a file's reader counts and names apart; any more are counted together, as
OTHER_UNKNOWN_TYPES."""
OTHER_UNKNOWN_TYPES = "(further types)"
MAX_TYPE_NAME_CHARS = 64


def type_name(kind: str) -> str:
    """`kind` as it is counted and named: clipped to MAX_TYPE_NAME_CHARS."""
    if len(kind) <= MAX_TYPE_NAME_CHARS:
        return kind
    return kind[: MAX_TYPE_NAME_CHARS - 3] + "..."


def count_unknown(counts: Counter[str], first: dict[str, str], kind: str, where: str) -> None:
    """Count one line, item or event of the unknown type `kind`, met at `where`."""
    name = type_name(kind)
    if name not in counts and len(counts) >= MAX_UNKNOWN_TYPES:
        name = OTHER_UNKNOWN_TYPES
    counts[name] += 1
    first.setdefault(name, where)
