"""VS Code chat sessions as newer versions save them: `chatSessions/<session>.jsonl`, a log of changes.

The first line is `{"kind": 0, "v": SESSION}`, the whole session as the `.json` file holds it; each later
line changes it where its path `k` (keys and indexes from the session down) points: `kind` 1 sets the
value there to `v`, 2 cuts the array there to `i` items (when given) and appends the items of `v`, 3
deletes it. VS Code rewrites the file as one initial line now and then. The session the log ends with
is read as a `.json` session is (see `vscode_chat`).

`read_vscode_chat` reads either file: the log when its first line is an initial entry, else the document.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest.containers import Item, OnBadLine, iter_chat_items, listed_items
from summarizer.ingest.jsontext import loads_json, loads_strict
from summarizer.ingest.lines import LineReader
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.vscode_chat import LAYOUT, VscodeChatSession

if TYPE_CHECKING:
    from summarizer.ingest.formats.base import Reading

INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3
"""The kinds of a log line."""


def read_vscode_chat(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    """Every record of a whole session file (`.json`, or the `.jsonl` log), then the response part kinds
    it skipped, named."""
    _, text = lines.read_rest()
    session = VscodeChatSession(reading.agent, lines.label)
    if _opens_log(text):
        items = log_items(text, lines.label, reading.max_bytes, reading.guard.on_bad)
    else:
        document = LineReader(io.BytesIO(text.encode("utf-8")), lines.label)
        items = iter_chat_items(document, reading.max_bytes, LAYOUT, reading.guard.on_bad)
    for item in items:
        yield from reading.guard(item, session.feed)
    reading.guard.unknown_kinds(
        session.unknown_types, "response part(s) of unknown kind", session.first_unknown
    )


def _opens_log(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    if not first.lstrip().startswith("{"):
        return False
    try:
        value = loads_json(first)
    except ValueError:
        return False
    return isinstance(value, Mapping) and value.get("kind") == INITIAL and "v" in value


def log_items(text: str, label: str, limit: int, on_bad: OnBadLine | None = None) -> Iterator[Item]:
    """The requests of the session a log ends with, each an item `LABEL requests[N]`. A line that is not
    a change this reader can apply is an InvalidMessage at its line (the session cannot be rebuilt past
    it); a request over `limit` is told to `on_bad` and passed over (raised without one)."""
    session = replay(text, label)
    requests = session.get("requests")
    if not isinstance(requests, list):
        raise InvalidMessage(f"the session has no 'requests' array (got {json_type(requests)})", label)
    yield from listed_items(requests, f"{label} requests", limit, on_bad)


def replay(text: str, label: str) -> dict[str, Any]:
    """The session a log's lines build, applied in order."""
    state: dict[str, Any] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{label}:{number}"
        try:
            entry = loads_strict(line)
            state = _applied(state, entry)
        except Problem as problem:
            raise InvalidMessage(problem.reason, where) from None
    if state is None:
        raise InvalidMessage("the session log is empty", label)
    return state


def _applied(state: dict[str, Any] | None, entry: object) -> dict[str, Any]:
    if not isinstance(entry, Mapping):
        raise Problem(f"a log line must be an object, got {json_type(entry)}")
    kind = entry.get("kind")
    if kind == INITIAL:
        value = entry.get("v")
        if not isinstance(value, dict):
            raise Problem(f"the initial entry's 'v' must be the session (an object), got {json_type(value)}")
        return value
    if state is None:
        raise Problem("a change comes before the initial entry (kind 0)")
    path = entry.get("k")
    if not isinstance(path, list) or not path or not all(isinstance(p, str | int) for p in path):
        raise Problem("a change needs 'k', a non-empty path of keys and indexes")
    parent = _parent(state, path)
    last = path[-1]
    if kind == SET:
        _put(parent, last, entry.get("v"))
    elif kind == DELETE:
        if isinstance(parent, dict):
            parent.pop(str(last), None)
        else:
            _put(parent, last, None)
    elif kind == PUSH:
        _pushed(parent, last, entry.get("v"), entry.get("i"))
    else:
        raise Problem(f"unknown change kind {kind!r} (expected 0, 1, 2 or 3)")
    return state


def _parent(state: dict[str, Any], path: list[Any]) -> Any:
    node: Any = state
    for step in path[:-1]:
        node = _child(node, step)
    return node


def _child(node: Any, step: object) -> Any:
    if isinstance(node, dict) and isinstance(step, str) and step in node:
        return node[step]
    if (
        isinstance(node, list)
        and isinstance(step, int)
        and not isinstance(step, bool)
        and 0 <= step < len(node)
    ):
        return node[step]
    raise Problem(f"the path step {step!r} is not in the session (at a {json_type(node)})")


def _put(parent: Any, key: object, value: object) -> None:
    if isinstance(parent, dict) and isinstance(key, str):
        parent[key] = value
    elif (
        isinstance(parent, list)
        and isinstance(key, int)
        and not isinstance(key, bool)
        and 0 <= key <= len(parent)
    ):
        if key == len(parent):
            parent.append(value)
        else:
            parent[key] = value
    else:
        raise Problem(f"the path step {key!r} cannot be set in a {json_type(parent)}")


def _pushed(parent: Any, key: object, values: object, start: object) -> None:
    if values is not None and not isinstance(values, list):
        raise Problem(f"a push's 'v' must be an array, got {json_type(values)}")
    if start is not None and (isinstance(start, bool) or not isinstance(start, int) or start < 0):
        raise Problem(f"a push's 'i' must be an index, got {json_type(start)}")
    current = _child(parent, key) if _has(parent, key) else []
    if current is None:
        current = []
    if not isinstance(current, list):
        raise Problem(f"a push needs an array at its path, got {json_type(current)}")
    if start is not None:
        del current[start:]
    current.extend(values or [])
    _put(parent, key, current)


def _has(parent: Any, key: object) -> bool:
    if isinstance(parent, dict):
        return isinstance(key, str) and key in parent
    return isinstance(parent, list) and isinstance(key, int) and 0 <= key < len(parent)
