"""OpenHands trajectories: the event stream a session saves, a JSON array of actions and observations.

Each event has an `id`, a `timestamp` (no zone: taken as UTC), a `source` (`user`, `agent`,
`environment`) and either an `action` or an `observation`. A `message` action is the user's or the
agent's text; `system` is the system prompt. Any other agent action made through a tool call
(`tool_call_metadata`: the function's name and the call id; its arguments are in the model response it
carries) is the agent's thought (`assistant`) and a `tool_call`; the observation whose metadata names the
same call id is its `tool_result` (an `error` observation marks it as an error). `finish` ends the task
with a message and is kept as the agent's last words, not as a call nothing answers. Environment events
(agent state changes) and observations of no call are bookkeeping and skipped. The event `id` is the
message id; the agent is the file's name unless `--agent` names one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout
from summarizer.ingest.drafts import Draft, finish_with_agent
from summarizer.ingest.fields import read_created_at, reject_nul
from summarizer.ingest.jsontext import loads_json
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord

LAYOUT = Layout(array_keys=())
SOURCES = frozenset({"user", "agent", "environment"})


class OpenHandsEvents:
    def __init__(self, default_agent: str | None, label: str) -> None:
        stem = PurePath(label).stem if label and label != "-" else ""
        self.agent = default_agent or stem or None

    def feed(self, item: Item) -> list[IngestRecord]:
        event = item.value
        reject_nul(event)
        source = event.get("source")
        if not isinstance(source, str) or source not in SOURCES:
            raise Problem(f"an event needs 'source' (one of: agent, environment, user), got {source!r}")
        drafts = self._drafts(event, str(source))
        event_id = event.get("id")
        host_id = str(event_id) if isinstance(event_id, int | str) and str(event_id) else None
        return finish_with_agent(
            drafts, item.where, self.agent, "the trajectory", lambda: _created_at(event), host_id
        )

    def _drafts(self, event: Mapping[str, Any], source: str) -> list[Draft]:
        if source == "environment":
            return []
        action, observation = event.get("action"), event.get("observation")
        call = _call(event)
        if observation is not None:
            if call is None:
                return []
            return [
                Draft(
                    Kind.TOOL_RESULT,
                    _text(event.get("content")),
                    tool_call_id=call[0],
                    is_error=observation == "error",
                )
            ]
        raw_args = event.get("args")
        args: Mapping[str, Any] = raw_args if isinstance(raw_args, Mapping) else {}
        if action == "message":
            text = _text(args.get("content", event.get("message")))
            return [Draft(Kind.USER if source == "user" else Kind.ASSISTANT, text)]
        if action == "system":
            return [Draft(Kind.SYSTEM, _text(args.get("content", event.get("message"))))]
        if action == "finish":
            text = _text(args.get("final_thought") or event.get("message"))
            return [Draft(Kind.ASSISTANT, text)] if text else []
        if call is None or source != "agent":
            return []
        thought = _text(args.get("thought"))
        drafts = [Draft(Kind.ASSISTANT, thought)] if thought else []
        drafts.append(
            Draft(
                Kind.TOOL_CALL, "", tool_call_id=call[0], name=call[1], input=_arguments(event, call[0], args)
            )
        )
        return drafts


def _call(event: Mapping[str, Any]) -> tuple[str, str] | None:
    meta = event.get("tool_call_metadata")
    if not isinstance(meta, Mapping):
        return None
    call_id, name = meta.get("tool_call_id"), meta.get("function_name")
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
        raise Problem("tool_call_metadata needs 'tool_call_id' and 'function_name' as strings")
    return call_id, name


def _arguments(event: Mapping[str, Any], call_id: str, args: Mapping[str, Any]) -> Any:
    """The call's arguments as the model wrote them (from the model response), else the action's args."""
    meta = event.get("tool_call_metadata") or {}
    response = meta.get("model_response") if isinstance(meta, Mapping) else None
    choices = response.get("choices") if isinstance(response, Mapping) else None
    for choice in choices if isinstance(choices, list) else []:
        message = choice.get("message") if isinstance(choice, Mapping) else None
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, Mapping) and call.get("id") == call_id:
                function = call.get("function")
                raw = function.get("arguments") if isinstance(function, Mapping) else None
                if isinstance(raw, str):
                    try:
                        return loads_json(raw)
                    except ValueError:
                        return raw
                return raw
    return {k: v for k, v in args.items() if k != "thought"}


def _created_at(event: Mapping[str, Any]) -> datetime | None:
    """The event's `timestamp`, in UTC when it names no zone."""
    stamp = event.get("timestamp")
    if not isinstance(stamp, str):
        return None
    zoned = stamp if "+" in stamp[10:] or stamp.endswith("Z") else f"{stamp}+00:00"
    return read_created_at(zoned).astimezone(UTC)


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise Problem(f"expected text, got {json_type(value)}")
