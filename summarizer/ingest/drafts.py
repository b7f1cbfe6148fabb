"""Turning one provider message into several stored messages without losing its bookkeeping.

An OpenAI assistant message with tool calls, or an Anthropic message with several blocks, becomes several
messages. They share the source message's agent, time and position; a host id gets a "#n" suffix so each
part stays addressable, and a host token figure goes to the first part so the total is not counted twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.ingest.fields import Extras
from summarizer.ingest.path_agents import stdin_agent
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord


@dataclass(frozen=True, slots=True)
class Draft:
    """The conversational part of a message, before the extras and the position are attached."""

    kind: Kind
    content: str
    tool_call_id: str | None = None
    name: str | None = None
    input: Any = None
    is_error: bool | None = None
    continues_exchange: bool = False


def reject_repeated_call_ids(drafts: Sequence[Draft]) -> None:
    """One turn's tool calls must have distinct ids: a result could not say which call it answers."""
    seen: set[str] = set()
    for draft in drafts:
        if draft.kind is Kind.TOOL_CALL and draft.tool_call_id is not None:
            if draft.tool_call_id in seen:
                raise Problem(f"tool call id {draft.tool_call_id!r} appears twice in one assistant turn")
            seen.add(draft.tool_call_id)


def finish(drafts: Sequence[Draft], extras: Extras, where: str) -> list[IngestRecord]:
    several = len(drafts) > 1
    records = []
    for index, draft in enumerate(drafts):
        host_id = extras.host_id
        if host_id is not None and several:
            host_id = f"{host_id}#{index + 1}"
        tokens = extras.tokens if index == 0 or extras.tokens is None else 0
        message = NewMessage(
            kind=draft.kind,
            content=draft.content,
            tool_call_id=draft.tool_call_id,
            name=draft.name,
            input=draft.input,
            is_error=draft.is_error,
            tokens=tokens,
            created_at=extras.created_at,
            host_id=host_id,
            continues_exchange=draft.continues_exchange,
            where=where,
        )
        records.append(IngestRecord(agent_id=extras.agent_id, message=message))
    return records


def finish_with_agent(
    drafts: Sequence[Draft],
    where: str,
    agent: str | None,
    what: str,
    created_at: Callable[[], datetime | None],
    host_id: str | None = None,
) -> list[IngestRecord]:
    """`finish` for a reader whose agent is --agent or the one the input's path names (None for stdin): no
    records for no drafts; for some, a Problem when there is no agent (`what` names the input), else the
    records, their time read (`created_at`, which may raise a Problem) only then."""
    if not drafts:
        return []
    extras = Extras(agent_id=stdin_agent(agent, what), created_at=created_at(), host_id=host_id, tokens=None)
    return finish(drafts, extras, where)
