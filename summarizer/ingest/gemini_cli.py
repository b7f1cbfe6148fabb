"""Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.json` or `.jsonl`), as the tool records them.

A session is one JSON document `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}` (before
Gemini CLI 0.39), or JSON Lines: a first line with the session's fields, then a line for each message,
written again with the same `id` whenever it changes (its tokens arrive, a tool call is added or gets its
result: only the latest message is ever updated), `{"$rewindTo": ID}` when the user rewinds to before a
message, and `{"$set": {...}}` metadata updates. Each version of a message records only the parts not
recorded yet (a call is recorded when it appears, its result when it arrives); a rewind is a `rewind`
marker (what was said before it stays in the history, as an abandoned branch); `$set` lines are skipped,
including the `messages` they may carry (a rewrite of old turns, e.g. masked tool output: what was
recorded stays as it was). A message is
`{id, timestamp, type, content, toolCalls?, thoughts?, tokens?, model?}`: `user` messages are the user's
turns; a `gemini` message is the model's text followed by the tool calls it made, each recorded with its
result (`{id, name, args, result, status}`), so each becomes a `tool_call` and its `tool_result` (an
`error` or `cancelled` status marks the result as an error); `info`, `warning` and `error` messages are
the terminal's notices and are skipped, as are thoughts. The message `id` is the message id of its text
(a tool call's is `ID#CALL`, its result's `ID#CALL#result`, so a message that grows keeps the ids it had),
its `timestamp` the time; the agent is the `sessionId` unless `--agent` names one.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras, read_created_at, read_host_id, reject_nul
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.tool_calls import named_calls

LAYOUT = Layout(array_keys=("messages",), system_key="sessionId")
"""A whole-document session: its messages, with the session id handed over first as a `system` item."""
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "warning", "error"})
NOTICE_TYPES = frozenset({"info", "warning", "error"})
FAILED_STATUSES = frozenset({"error", "cancelled"})
DONE_STATUSES = frozenset({"success", *FAILED_STATUSES})


class GeminiSession:
    def __init__(self, default_agent: str | None) -> None:
        self.default_agent = default_agent
        self.session: str | None = None
        self.last: str | None = None
        """The id of the latest message: the only one Gemini CLI may still write again."""
        self.recorded: list[str] = []
        """The ids of the latest message's parts already recorded."""
        self.last_time: str | None = None

    def state(self) -> dict[str, Any]:
        """What reading on from here needs (kept with a followed file's position)."""
        return {"session": self.session, "last": self.last, "recorded": self.recorded, "time": self.last_time}

    def resume(self, kept: Mapping[str, Any]) -> None:
        session, last, recorded, time = (kept.get(k) for k in ("session", "last", "recorded", "time"))
        self.session = session if isinstance(session, str) else None
        self.last = last if isinstance(last, str) else None
        self.recorded = [r for r in recorded if isinstance(r, str)] if isinstance(recorded, list) else []
        self.last_time = time if isinstance(time, str) else None

    def feed(self, item: Item) -> list[IngestRecord]:
        value = item.value
        if item.system:
            session = value.get("system")
            self.session = session if isinstance(session, str) and session.strip() else self.session
            return []
        kind = value.get("type")
        if kind is None and "sessionId" in value:  # the first line of the JSON Lines form
            session = value.get("sessionId")
            self.session = session if isinstance(session, str) and session.strip() else self.session
            return []
        if kind is None and "$set" in value:
            return []
        if kind is None and "$rewindTo" in value:
            return self._rewind(value["$rewindTo"], item.where)
        if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
            names = ", ".join(sorted(MESSAGE_TYPES))
            raise Problem(
                f"a message needs 'type' (one of: {names}), got {json_type(kind) if not isinstance(kind, str) else repr(kind)}"
            )
        reject_nul(value)
        if kind in NOTICE_TYPES:
            return []
        drafts = [Draft(Kind.USER, _text(value.get("content")))] if kind == "user" else _model_turn(value)
        extras = self._extras(value)
        if isinstance(value.get("timestamp"), str):
            self.last_time = value["timestamp"]
        return self._new_parts(finish(drafts, dataclasses.replace(extras, host_id=None), item.where), extras)

    def _new_parts(self, records: list[IngestRecord], extras: Extras) -> list[IngestRecord]:
        """The message's parts with their stable ids, less those an earlier version already gave."""
        base = extras.host_id
        if base is None:
            return records
        if base != self.last:
            self.last, self.recorded = base, []
        out = []
        for record in records:
            m = record.message
            part = base
            if m.kind is Kind.TOOL_CALL:
                part = f"{base}#{m.tool_call_id}"
            elif m.kind is Kind.TOOL_RESULT:
                part = f"{base}#{m.tool_call_id}#result"
            if part in self.recorded:
                continue
            self.recorded.append(part)
            out.append(dataclasses.replace(record, message=dataclasses.replace(m, host_id=part)))
        return out

    def _rewind(self, target: object, where: str) -> list[IngestRecord]:
        if not isinstance(target, str) or not target:
            raise Problem(f"'$rewindTo' must name a message id, got {json_type(target)}")
        agent = self.default_agent or self.session
        if agent is None:
            raise Problem("no agent: the session has no sessionId; pass --agent")
        at = read_created_at(self.last_time) if self.last_time is not None else None
        self.last, self.recorded = None, []
        extras = Extras(agent_id=agent, created_at=at, host_id=read_host_id(f"{target}~rewind"), tokens=None)
        return finish([Draft(Kind.REWIND, f"rewound to before {target}")], extras, where)

    def _extras(self, value: Mapping[str, Any]) -> Extras:
        agent = self.default_agent or self.session
        if agent is None:
            raise Problem("no agent: the session has no sessionId; pass --agent")
        created_at = read_created_at(value["timestamp"]) if value.get("timestamp") is not None else None
        host_id = read_host_id(value["id"]) if value.get("id") is not None else None
        return Extras(agent_id=agent, created_at=created_at, host_id=host_id, tokens=None)


def _model_turn(value: Mapping[str, Any]) -> list[Draft]:
    drafts: list[Draft] = []
    text = _text(value.get("content"))
    if text:
        drafts.append(Draft(Kind.ASSISTANT, text))
    for call, call_id, name in named_calls(value, "toolCalls", "id"):
        drafts.append(Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=call.get("args")))
        status = call.get("status") if isinstance(call.get("status"), str) else None
        if call.get("result") is None and status not in DONE_STATUSES:
            continue  # still running: its result comes with a later version of the message
        failed = status in FAILED_STATUSES
        drafts.append(
            Draft(Kind.TOOL_RESULT, _result_text(call.get("result")), tool_call_id=call_id, is_error=failed)
        )
    return drafts


def _text(content: object) -> str:
    """A message's content: a string, or parts whose `text` is joined (other parts stand in as their kind)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
            out.append(part["text"])
        elif isinstance(part, Mapping) and part:
            out.append(f"[{next(iter(part))}]")
    return "\n".join(out)


def _result_text(result: object) -> str:
    """A tool call's recorded result: the output of its function responses, else the parts as JSON."""
    parts = result if isinstance(result, list) else [result] if result is not None else []
    out = []
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, Mapping) else None
        body = response.get("response") if isinstance(response, Mapping) else None
        if isinstance(body, Mapping) and ("output" in body or "error" in body):
            found = body.get("output", body.get("error"))
            out.append(found if isinstance(found, str) else json.dumps(found, ensure_ascii=False))
        elif isinstance(part, str):
            out.append(part)
        elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
            out.append(part["text"])
        elif part is not None:
            out.append(json.dumps(part, ensure_ascii=False, sort_keys=True))
    return "\n".join(out)
