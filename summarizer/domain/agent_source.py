"""Where an agent came from: the front end that first recorded it, and for a log file its path and format.

Stored once, when the agent row is created (`agents.source`, `source_path`, `source_format`), and shown by
`summarizer agents`. A followed file (`watch`) or an ingested one names itself per agent with
`recorded_from`; `hook`, `ingest` and `agent create` say what they are with `recorded_by` around the
recording they start (a hook's transcript is followed like `watch`'s files but is "hook"). Anything else
(the Python API, the HTTP API, the MCP server) is "api". The values are context variables, so concurrent
requests or threads never see each other's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

WATCH = "watch"
INGEST = "ingest"
HOOK = "hook"
CLI = "cli"
"""`summarizer agent create`."""
API = "api"
SOURCE_KINDS = (WATCH, INGEST, HOOK, CLI, API)

MAX_PATH_CHARS = 1000
"""The width of `agents.source_path`: a longer path is kept as its start, `~` and 16 hex of its hash."""
_DIGEST_CHARS = 16


@dataclass(frozen=True, slots=True)
class AgentSource:
    kind: str
    """watch | ingest | hook | cli | api"""
    path: str | None = None
    """The log file the agent was first recorded from (None: not from a file)."""
    format: str | None = None
    """That file's format (claude-code, codex, canonical, ...)."""


_kind: ContextVar[str | None] = ContextVar("summarizer_agent_source_kind", default=None)
_files: ContextVar[Mapping[str, AgentSource] | None] = ContextVar(
    "summarizer_agent_source_files", default=None
)


@contextmanager
def recorded_by(kind: str) -> Iterator[None]:
    """Agents created inside this block came from the front end `kind`."""
    token = _kind.set(kind)
    try:
        yield
    finally:
        _kind.reset(token)


@contextmanager
def recorded_from(files: Mapping[str, AgentSource]) -> Iterator[None]:
    """Agents created inside this block came from these files (agent id -> its file's source; its kind
    is used when no front end said what it is)."""
    token = _files.set(files)
    try:
        yield
    finally:
        _files.reset(token)


def source_of(agent_id: str) -> AgentSource:
    """What to store for an agent created now."""
    found = (_files.get() or {}).get(agent_id)
    kind = _kind.get() or (found.kind if found is not None else API)
    if found is None:
        return AgentSource(kind)
    return AgentSource(kind, fit_path(found.path) if found.path else None, found.format)


def fit_path(path: str) -> str:
    """`path` as text any database stores (an undecodable byte as its `\\udcXX` escape), within
    `MAX_PATH_CHARS`."""
    text = path.encode("utf-8", "backslashreplace").decode("utf-8").replace("\0", "")
    if len(text) <= MAX_PATH_CHARS:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:_DIGEST_CHARS]
    return f"{text[: MAX_PATH_CHARS - _DIGEST_CHARS - 1]}~{digest}"
