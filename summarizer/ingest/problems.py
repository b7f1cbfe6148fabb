"""The error the format parsers raise before they know where they are."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class Problem(Exception):
    """A rule broken by one input item.

    Field checks do not know the file and line they are looking at; the loop that owns the item catches
    this and raises `InvalidMessage` with the position, so each reason is written once.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@contextmanager
def under(label: str) -> Iterator[None]:
    """A Problem raised inside is raised again with `label` (a part of the item) in front of its reason,
    unless the reason already starts with it."""
    try:
        yield
    except Problem as problem:
        reason = problem.reason if problem.reason.startswith(label) else f"{label}: {problem.reason}"
        raise Problem(reason) from None


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages a user of any language can read."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def shown(value: object) -> str:
    """A value as a reason shows it: a string quoted, anything else by its JSON type."""
    return repr(value) if isinstance(value, str) else json_type(value)
