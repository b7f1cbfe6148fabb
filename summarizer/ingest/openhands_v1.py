"""OpenHands V1 conversations (the software-agent-sdk): typed events, each `{kind, id, timestamp, source}`.

A conversation is saved as a folder holding `base_state.json` and `events/event-NNNNN-<event id>.json`,
one event per file in order; the same events also come as one JSON array or as JSON Lines (an export, the
agent server's event stream). `kind` names the event's class:

- `MessageEvent`: `llm_message.content` (text parts; an image stands in as `[image]`) is the user's prompt
  (`source` `user`), the agent's reply (`agent`) or text of the running exchange (`environment`, `hook`:
  `system`). Its `extended_content` (text the agent's context added to a prompt) follows as `system`.
- `SystemPromptEvent`: `system_prompt.text` (and `dynamic_context.text`) is the system prompt.
- `ActionEvent`: its `thought` is the agent's text (`assistant`), then a `tool_call`: `tool_call_id`,
  `tool_name`, and the arguments the model wrote (`tool_call.arguments`, a JSON string; else `action`).
  Reasoning is left out, as other readers leave thoughts out.
- `ObservationEvent` is the call's `tool_result` (`observation.content` text parts, `is_error`);
  `UserRejectObservation` (`rejection_reason`) and `AgentErrorEvent` (`error`) are results marked as errors.
- An `ACPToolCallEvent` (a call an ACP server ran; its event repeats as the call runs) is read once done
  (`status` `completed` or `failed`): a `tool_call` (`tool_kind` or `title`, `raw_input`) and its result
  (`raw_output`, else the text of its `content`).
- `PauseEvent`, `InterruptEvent` and `ConversationErrorEvent` (`code`, `detail`) are `mark`s;
  `Condensation` (with a `summary`) and `CondensationSummaryEvent` keep the summary as `system`.
- State updates, condensation requests, token and streaming events, completion logs and hook runs are
  bookkeeping and left out; an event of a kind this reader does not know is skipped and counted.

Each message takes its event's `id` (`ID#n` for a part of an event) and `timestamp` (the SDK writes local
time without a zone: taken as UTC). The agent is `--agent`, else the conversation's folder for a file in
its `events/` folder, else the file's name. A saved folder is read whole by `openhands_v1_folder`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout, iter_chat_items
from summarizer.ingest.drafts import Draft, finish_with_agent
from summarizer.ingest.fields import object_entries, optional_str, read_created_at, reject_nul
from summarizer.ingest.jsontext import loads_json
from summarizer.ingest.lines import LineReader
from summarizer.ingest.path_agents import agent_from_name
from summarizer.ingest.problems import Problem, json_type, shown
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.unknown_types import count_unknown

if TYPE_CHECKING:
    from summarizer.ingest.formats.base import Reading

LAYOUT = Layout(array_keys=())
EVENTS_FOLDER = "events"
SOURCES = frozenset({"user", "agent", "environment", "hook"})
BOOKKEEPING = frozenset(
    {
        "ConversationStateUpdateEvent",
        "CondensationRequest",
        "TokenEvent",
        "StreamingDeltaEvent",
        "LLMCompletionLogEvent",
        "HookExecutionEvent",
    }
)
"""Event kinds that carry no conversation."""
HANDLED = frozenset(
    {
        "MessageEvent",
        "SystemPromptEvent",
        "ActionEvent",
        "ObservationEvent",
        "UserRejectObservation",
        "AgentErrorEvent",
        "PauseEvent",
        "InterruptEvent",
        "ConversationErrorEvent",
        "Condensation",
        "CondensationSummaryEvent",
        "ACPToolCallEvent",
    }
)
ACP_DONE = frozenset({"completed", "failed"})
"""The statuses after which an ACP tool call's event is its last (earlier ones repeat it as it runs)."""
SIGNATURE_KINDS = HANDLED | BOOKKEEPING


def detect_openhands_v1(value: Any) -> str | None:
    """Why a decoded input (one event, an array of them, or a JSON Lines line) is the SDK's events: an
    object whose `kind` is one of its event classes, with a `source`; None when it is not."""
    first = value[0] if isinstance(value, list) and value else value
    if (
        isinstance(first, Mapping)
        and isinstance(first.get("kind"), str)
        and first["kind"] in SIGNATURE_KINDS
        and isinstance(first.get("source"), str)
    ):
        return f"OpenHands V1 conversation events (kind {first['kind']!r} with a source)"
    return None


def read_openhands_v1(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    """Every record of a whole input (a JSON array of events, JSON Lines, or one event file), then the
    event kinds it skipped, named."""
    events = OpenHandsV1Events(reading.agent, lines.label)
    for item in iter_chat_items(lines, reading.max_bytes, LAYOUT, reading.guard.on_bad):
        yield from reading.guard(item, events.feed)
    name_unknown(events, reading)


def name_unknown(events: OpenHandsV1Events, reading: Reading) -> None:
    """The event kinds a read skipped, each named once at its first place."""
    reading.guard.unknown_kinds(events.unknown_types, "event(s) of unknown kind", events.first_unknown)


class OpenHandsV1Events:
    """A reader of one conversation's events, in order."""

    def __init__(self, default_agent: str | None, label: str) -> None:
        self.agent = default_agent or _agent_of(label)
        self.unknown_types: Counter[str] = Counter()
        """Events of kinds this reader does not know, skipped, by kind."""
        self.first_unknown: dict[str, str] = {}
        """Where each unknown kind was first met."""

    def feed(self, item: Item) -> list[IngestRecord]:
        event = item.value
        kind = event.get("kind")
        if not isinstance(kind, str) or not kind:
            raise Problem(f"an event needs 'kind' (its class, e.g. 'MessageEvent'), got {shown(kind)}")
        if kind in BOOKKEEPING:
            return []
        if kind not in HANDLED:
            count_unknown(self.unknown_types, self.first_unknown, kind, item.where)
            return []
        reject_nul(event)
        source = event.get("source")
        if source not in SOURCES:
            raise Problem(
                f"a {kind} needs 'source' (one of: {', '.join(sorted(SOURCES))}), got {shown(source)}"
            )
        drafts = _drafts(kind, str(source), event)
        stamp = event.get("timestamp")
        return finish_with_agent(
            drafts, item.where, self.agent, "the events", lambda: _time(stamp), _host_id(event)
        )


def _drafts(kind: str, source: str, event: Mapping[str, Any]) -> list[Draft]:
    if kind == "MessageEvent":
        return _message(source, event)
    if kind == "SystemPromptEvent":
        parts = [_content_text(event.get("system_prompt"), "system_prompt")]
        if event.get("dynamic_context") is not None:
            parts.append(_content_text(event.get("dynamic_context"), "dynamic_context"))
        return [Draft(Kind.SYSTEM, "\n\n".join(p for p in parts if p))]
    if kind == "ActionEvent":
        return _action(event)
    if kind == "ObservationEvent":
        observation = event.get("observation")
        if not isinstance(observation, Mapping):
            raise Problem(
                f"an ObservationEvent needs 'observation' as an object, got {json_type(observation)}"
            )
        text = _observation_text(observation)
        return [
            Draft(
                Kind.TOOL_RESULT,
                text,
                tool_call_id=_call_id(event),
                is_error=observation.get("is_error") is True,
            )
        ]
    if kind == "UserRejectObservation":
        reason = optional_str(event, "rejection_reason") or "rejected"
        return [
            Draft(Kind.TOOL_RESULT, f"Action rejected: {reason}", tool_call_id=_call_id(event), is_error=True)
        ]
    if kind == "AgentErrorEvent":
        return [
            Draft(Kind.TOOL_RESULT, optional_str(event, "error"), tool_call_id=_call_id(event), is_error=True)
        ]
    if kind in ("PauseEvent", "InterruptEvent"):
        return [Draft(Kind.MARK, "paused" if kind == "PauseEvent" else "interrupted")]
    if kind == "ConversationErrorEvent":
        code, detail = optional_str(event, "code"), optional_str(event, "detail")
        return [Draft(Kind.MARK, f"conversation error {code}: {detail}".strip().rstrip(":"))]
    if kind == "ACPToolCallEvent":
        return _acp_call(event)
    summary = optional_str(event, "summary")  # Condensation, CondensationSummaryEvent
    return [Draft(Kind.SYSTEM, summary)] if summary.strip() else []


def _message(source: str, event: Mapping[str, Any]) -> list[Draft]:
    message = event.get("llm_message")
    if not isinstance(message, Mapping):
        raise Problem(f"a MessageEvent needs 'llm_message' as an object, got {json_type(message)}")
    text = _parts_text(message.get("content"), "llm_message.content")
    kind = {"user": Kind.USER, "agent": Kind.ASSISTANT}.get(source, Kind.SYSTEM)
    drafts = [Draft(kind, text)] if text.strip() or kind is Kind.USER else []
    extended = _parts_text(event.get("extended_content") or [], "extended_content")
    if extended.strip():
        drafts.append(Draft(Kind.SYSTEM, extended))
    return drafts


def _action(event: Mapping[str, Any]) -> list[Draft]:
    thought = _parts_text(event.get("thought") or [], "thought")
    drafts = [Draft(Kind.ASSISTANT, thought)] if thought.strip() else []
    call = event.get("tool_call")
    call = call if isinstance(call, Mapping) else {}
    name = event.get("tool_name") or call.get("name")
    if not isinstance(name, str) or not name:
        raise Problem("an ActionEvent needs 'tool_name' (or 'tool_call.name') as a string")
    call_id = event.get("tool_call_id") or call.get("id")
    if not isinstance(call_id, str) or not call_id:
        raise Problem("an ActionEvent needs 'tool_call_id' (or 'tool_call.id') as a string")
    drafts.append(Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=_arguments(event, call)))
    return drafts


def _acp_call(event: Mapping[str, Any]) -> list[Draft]:
    """A call an ACP server ran, once it is done: the call (its kind or title as the name, its raw input)
    and its result (the raw output, else the text of its content)."""
    if event.get("status") not in ACP_DONE:
        return []
    call_id = _call_id(event)
    name = event.get("tool_kind") or event.get("title")
    if not isinstance(name, str) or not name:
        raise Problem("an ACPToolCallEvent needs 'title' as a string")
    output = event.get("raw_output")
    if output is None:
        texts = [c.get("text") for c in event.get("content") or [] if isinstance(c, Mapping)]
        output = "\n".join(t for t in texts if isinstance(t, str))
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, sort_keys=True)
    failed = event.get("is_error") is True or event.get("status") == "failed"
    return [
        Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=event.get("raw_input")),
        Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=failed),
    ]


def _arguments(event: Mapping[str, Any], call: Mapping[str, Any]) -> Any:
    """The arguments as the model wrote them (decoded when JSON), else the action the SDK built."""
    raw = call.get("arguments")
    if isinstance(raw, str):
        try:
            return loads_json(raw) if raw.strip() else {}
        except ValueError:
            return raw
    action = event.get("action")
    if isinstance(action, Mapping):
        return {k: v for k, v in action.items() if k != "kind"}
    return raw


def _call_id(event: Mapping[str, Any]) -> str:
    call_id = event.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise Problem(f"a {event.get('kind')} needs 'tool_call_id' as a string, got {shown(call_id)}")
    return call_id


def _observation_text(observation: Mapping[str, Any]) -> str:
    """An observation's text: its `content` parts, else a text field an older version wrote, else JSON."""
    content = observation.get("content")
    if isinstance(content, list):
        return _parts_text(content, "observation.content")
    for key in ("content", "output", "text", "message"):
        if isinstance(observation.get(key), str):
            return str(observation[key])
    rest = {k: v for k, v in observation.items() if k not in ("kind", "is_error")}
    return json.dumps(rest, ensure_ascii=False, sort_keys=True) if rest else ""


def _parts_text(parts: object, field: str) -> str:
    """Text content parts `{type: "text", text}` joined; an image stands in as `[image]`."""
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        raise Problem(f"{field} must be an array of content parts, got {json_type(parts)}")
    texts = []
    for index, part in object_entries(parts, field):
        if part.get("type") == "image" or "image_urls" in part:
            texts.append("[image]")
        elif isinstance(part.get("text"), str):
            texts.append(str(part["text"]))
        else:
            raise Problem(f"{field}[{index}] needs 'text' as a string")
    return "".join(texts) if all(t != "[image]" for t in texts) else "\n".join(texts)


def _content_text(value: object, field: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("text"), str):
        return str(value["text"])
    raise Problem(f"{field} must be a text part {{type, text}}, got {json_type(value)}")


def _host_id(event: Mapping[str, Any]) -> str | None:
    event_id = event.get("id")
    if isinstance(event_id, str | int) and not isinstance(event_id, bool):
        return str(event_id) or None
    return None


def _time(stamp: object) -> datetime | None:
    if stamp is None:
        return None
    if not isinstance(stamp, str):
        raise Problem(f"timestamp must be a string, got {json_type(stamp)}")
    zoned = stamp if stamp.endswith("Z") or "+" in stamp[10:] or "-" in stamp[19:] else f"{stamp}+00:00"
    return read_created_at(zoned).astimezone(UTC)


def _agent_of(label: str) -> str | None:
    if not label or label == "-":
        return None
    path = PurePath(label.rpartition(":")[0] if _positioned(label) else label)
    if path.parent.name == EVENTS_FOLDER and path.parent.parent.name:
        return agent_from_name(path.parent.parent.name)
    if path.name == EVENTS_FOLDER and path.parent.name:
        return agent_from_name(path.parent.name)
    return agent_from_name(path.stem) if path.stem else None


def _positioned(label: str) -> bool:
    _, colon, line = label.rpartition(":")
    return bool(colon) and line.isdigit()
