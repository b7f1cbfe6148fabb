"""Identifiers as they are stored: a message's host id, tool call id and tool name fit in 200 characters.

Those are opaque labels (a host's message id, the id pairing a tool call with its result, a tool's name),
and every database column holding them is 200 characters wide. A longer one in a log (a generated id, a
tool name built from a long path) must not refuse the line on PostgreSQL while SQLite stores it, nor be
cut into something that collides with another: it is kept as its first characters, `~` and 16 hex digits
of its SHA-256, exactly 200 characters. The same long id always gives the same stored one, so a call and
its result still pair and a re-sent message is still recognised.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from summarizer.domain.messages import NewMessage

MAX_IDENTIFIER_CHARS = 200
_DIGEST_CHARS = 16
_KEPT = MAX_IDENTIFIER_CHARS - _DIGEST_CHARS - 1


def fit_identifier(value: str) -> str:
    """`value` itself when it fits; otherwise its first characters, `~` and 16 hex digits of its hash."""
    if len(value) <= MAX_IDENTIFIER_CHARS:
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST_CHARS]
    return f"{value[:_KEPT]}~{digest}"


def fit_identifiers(message: NewMessage) -> NewMessage:
    """`message` with its host id, tool call id and tool name fitted; itself when all fit (the usual case)."""
    host_id, call_id, name = message.host_id, message.tool_call_id, message.name
    if all(v is None or len(v) <= MAX_IDENTIFIER_CHARS for v in (host_id, call_id, name)):
        return message
    return replace(
        message,
        host_id=None if host_id is None else fit_identifier(host_id),
        tool_call_id=None if call_id is None else fit_identifier(call_id),
        name=None if name is None else fit_identifier(name),
    )
