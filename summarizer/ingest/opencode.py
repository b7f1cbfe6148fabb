"""opencode sessions, as `opencode export SESSION` writes them: `{info, messages: [{info, parts}]}`.

Each message's `info` has its `id`, `role` (`user` or `assistant`), `sessionID` and `time.created`
(milliseconds since the epoch); its `parts` are what it said and did. `text` parts are the message's text
(a user message's text opens an exchange; `synthetic` text the tool adds is left out); a `tool` part is a
call (`callID`, `tool`, `state.input`) with its result (`state.output`, or `state.error` when the status
is `error`), stored as a `tool_call` and its `tool_result`; reasoning, step, snapshot, patch and file
parts are left out. The agent is the session id unless `--agent` names one; a part's id is its message id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras, epoch_time, read_host_id, reject_nul
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

LAYOUT = Layout(array_keys=("messages",), system_key="info")
"""The export's messages, with the session's `info` handed over first as a `system` item."""


class OpencodeSession:
    def __init__(self, default_agent: str | None) -> None:
        self.default_agent = default_agent
        self.session: str | None = None

    def feed(self, item: Item) -> list[IngestRecord]:
        if item.system:
            info = item.value.get("system")
            session = info.get("id") if isinstance(info, Mapping) else None
            self.session = session if isinstance(session, str) and session else self.session
            return []
        message = item.value
        reject_nul(message)
        info = message.get("info")
        parts = message.get("parts")
        if not isinstance(info, Mapping) or not isinstance(parts, list):
            raise Problem("a message needs 'info' (an object) and 'parts' (an array)")
        role = info.get("role")
        if role not in ("user", "assistant"):
            raise Problem(f"info.role must be 'user' or 'assistant', got {role!r}")
        drafts = [d for index, part in enumerate(parts) for d in _part(part, index, str(role))]
        return finish(drafts, self._extras(info), item.where) if drafts else []

    def _extras(self, info: Mapping[str, Any]) -> Extras:
        session = info.get("sessionID")
        agent = (
            self.default_agent or self.session or (session if isinstance(session, str) and session else None)
        )
        if agent is None:
            raise Problem("no agent: the export names no session id; pass --agent")
        created = (info.get("time") or {}).get("created") if isinstance(info.get("time"), Mapping) else None
        created_at = None
        if isinstance(created, int | float) and not isinstance(created, bool):
            created_at = epoch_time(created, "info.time.created", millis=True)
        host_id = read_host_id(info["id"]) if info.get("id") is not None else None
        return Extras(agent_id=agent, created_at=created_at, host_id=host_id, tokens=None)


def _part(part: object, index: int, role: str) -> list[Draft]:
    if not isinstance(part, Mapping):
        raise Problem(f"parts[{index}] must be an object, got {json_type(part)}")
    kind = part.get("type")
    if kind == "text":
        text = part.get("text")
        if part.get("synthetic") is True or not isinstance(text, str) or not text:
            return []
        return [Draft(Kind.USER if role == "user" else Kind.ASSISTANT, text)]
    if kind != "tool":
        return []
    call_id, name, state = part.get("callID"), part.get("tool"), part.get("state")
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
        raise Problem(f"parts[{index}]: a tool part needs 'callID' and 'tool' as strings")
    state = state if isinstance(state, Mapping) else {}
    status = state.get("status")
    call = Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=state.get("input"))
    if status not in ("completed", "error"):
        return [call]  # pending or running when exported: no result yet
    failed = status == "error"
    output = state.get("error") if failed else state.get("output")
    text = (
        output
        if isinstance(output, str)
        else json.dumps(output, ensure_ascii=False)
        if output is not None
        else ""
    )
    return [call, Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=failed)]
