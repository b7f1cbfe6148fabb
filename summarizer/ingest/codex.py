"""Codex CLI rollouts (`~/.codex/sessions/**/rollout-*.jsonl`), as the tool writes them.

Each line is `{timestamp, type, payload}`. `session_meta` opens the file (its `payload.id` is the session,
the agent when `--agent` names none); `response_item` lines carry OpenAI Responses items (messages,
function and custom tool calls and their outputs, reasoning) and are the conversation; `event_msg` lines
repeat it for the terminal UI (the typed prompt, the agent's message, token counts) and `turn_context`
lines describe the turn's settings, so both are skipped, except that a `user_message` event tells a prompt
the user typed from context the tool injected as a user message (`<environment_context>`, AGENTS.md
instructions, ...): such injected text is stored as `system` (preamble), never as an exchange's opening.
Reasoning is left out (it is usually encrypted). A `compacted` line (the tool's own compaction) is a
`clear` followed by its summary as `system`. Every message takes its line's timestamp.

Rollouts of the versions before these line types (to about 0.34) open with a bare header `{id,
timestamp, ...}` (`instructions`, `git`, later `cwd`, `originator`, `cli_version`) and hold bare Responses
items, with `{"record_type": "state"}` lines between turns: they are read the same way, the header's id
as the session and its timestamp as the time of every item that carries none, state lines skipped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.ingest.fields import read_created_at, reject_nul
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.responses_format import parse_responses_item

LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
)
"""How text the tool sends as a user message, without the user typing it, begins."""
OLDER_ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "reasoning",
        "web_search_call",
    }
)
"""The Responses items an older rollout holds bare, one a line."""


def is_older_session_line(obj: Mapping[str, Any]) -> bool:
    """The first line of a rollout written before the `{timestamp, type, payload}` lines."""
    return (
        isinstance(obj.get("id"), str)
        and isinstance(obj.get("timestamp"), str)
        and not any(key in obj for key in ("type", "kind", "role", "content", "messages", "payload"))
    )


@dataclass
class CodexRollout:
    """A stateful reader of one rollout: user items wait for the next line to learn whether the user typed
    them (a `user_message` event follows) or the tool injected them."""

    default_agent: str | None
    session: str | None = None
    typed_prompts_logged: bool = False
    typed_ahead: str | None = None
    """A `user_message` event's text that came before its user item (nothing was held then)."""
    held: list[tuple[IngestRecord, bool]] = field(default_factory=list)
    """Records waiting for a held user item's verdict, in file order; True marks a user item."""
    started: str | None = None
    """The session's timestamp in the older layout (whose items carry none)."""

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        kind = obj.get("type")
        if kind is None and "record_type" in obj:
            return []  # the older layout's state line
        if kind is None and is_older_session_line(obj):
            self.session = obj["id"] if obj["id"].strip() else self.session
            self.started = obj["timestamp"]
            return []
        if not isinstance(kind, str):
            raise Problem(f"a rollout line needs 'type' as a string, got {json_type(kind)}")
        if kind not in LINE_TYPES:
            if kind in OLDER_ITEM_TYPES and "payload" not in obj:  # a bare Responses item (older layout)
                reject_nul(obj)
                bare = {k: v for k, v in obj.items() if not (k == "id" and v is None) and k != "timestamp"}
                stamp = obj["timestamp"] if isinstance(obj.get("timestamp"), str) else self.started
                return self._item(bare, stamp, where)
            return []  # a line type of a newer version: bookkeeping, like the ones known
        payload = obj.get("payload")
        if not isinstance(payload, Mapping):
            raise Problem(f"a {kind} line needs 'payload' as an object, got {json_type(payload)}")
        reject_nul(payload)
        stamp = obj["timestamp"] if isinstance(obj.get("timestamp"), str) else None
        if kind == "session_meta":
            session = payload.get("id")
            if isinstance(session, str) and session.strip():
                self.session = session
            return []
        if kind == "event_msg":
            return self._event(payload)
        if kind == "compacted":
            return self._compacted(payload, stamp, where)
        if kind == "turn_context":
            return []
        return self._item(payload, stamp, where)

    def _event(self, payload: Mapping[str, Any]) -> list[IngestRecord]:
        if payload.get("type") != "user_message":
            return []
        self.typed_prompts_logged = True
        if any(user for _, user in self.held):
            return self._release(typed=True)
        text = payload.get("message")  # the event came first: its item follows
        self.typed_ahead = text.strip() if isinstance(text, str) else None
        return self._release(typed=False)

    def _compacted(self, payload: Mapping[str, Any], stamp: str | None, where: str) -> list[IngestRecord]:
        created_at = read_created_at(stamp) if stamp else None
        out = [*self._release(typed=False), self._record(Kind.CLEAR, "/compact", created_at, where)]
        summary = payload.get("message")
        if isinstance(summary, str) and summary:
            out.append(self._record(Kind.SYSTEM, summary, created_at, where))
        return out

    def _item(self, payload: Mapping[str, Any], stamp: str | None, where: str) -> list[IngestRecord]:
        payload = _raw_arguments_kept(payload)
        item = {**payload, "agent": self._agent(), **({"created_at": stamp} if stamp else {})}
        records = parse_responses_item(item, None, where)
        role = payload.get("role") if payload.get("type") == "message" else None
        typed_ahead = self.typed_ahead is not None and any(
            r.message.content.strip() == self.typed_ahead for r in records
        )
        if role == "user" and typed_ahead:
            self.typed_ahead = None
            return self._release(typed=False) + records
        if role == "user" or (self.held and role in ("developer", "system")):
            self.held.extend((record, role == "user") for record in records)
            return []
        return self._release(typed=False) + records

    def finish(self) -> list[IngestRecord]:
        """What is still held at the end of the file."""
        return self._release(typed=False)

    def _release(self, *, typed: bool) -> list[IngestRecord]:
        """The held records in file order, each user item with its verdict. With `typed` (a `user_message`
        event came), the last user item is the typed prompt and the others were injected. Without (the
        model answered first), in a file that logs typed prompts none was typed; in one that does not (an
        older version), the last that does not look injected is the prompt."""
        held, self.held = self.held, []
        candidates = [i for i, (_, user) in enumerate(held) if user]
        prompt: int | None = None
        if typed and candidates:
            prompt = candidates[-1]
        elif not typed and not self.typed_prompts_logged:
            plain = [
                i for i in candidates if not held[i][0].message.content.lstrip().startswith(INJECTED_PREFIXES)
            ]
            prompt = plain[-1] if plain else None
        return [
            record if not user or index == prompt else _as_system(record)
            for index, (record, user) in enumerate(held)
        ]

    def _agent(self) -> str:
        agent = self.default_agent or self.session
        if agent is None:
            raise Problem("no agent: the rollout has no session_meta line with an id before it; pass --agent")
        return agent

    def _record(self, kind: Kind, content: str, created_at: Any, where: str) -> IngestRecord:
        message = NewMessage(kind=kind, content=content, created_at=created_at, where=where)
        return IngestRecord(agent_id=self._agent(), message=message)


def _raw_arguments_kept(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """A function call whose `arguments` are not JSON (the log keeps what the model emitted) keeps them
    as its input text, as a custom tool call's, instead of refusing the whole log."""
    arguments = payload.get("arguments")
    if payload.get("type") != "function_call" or not isinstance(arguments, str):
        return payload
    try:
        json.loads(arguments)
    except ValueError:
        return {**payload, "type": "custom_tool_call", "input": arguments}
    return payload


def _as_system(record: IngestRecord) -> IngestRecord:
    m = record.message
    message = NewMessage(
        kind=Kind.SYSTEM, content=m.content, created_at=m.created_at, host_id=m.host_id, where=m.where
    )
    return IngestRecord(agent_id=record.agent_id, message=message)
