"""VS Code chat sessions (GitHub Copilot Chat): `workspaceStorage/<workspace>/chatSessions/<session>.json`,
and the file "Chat: Export Session" writes (the same document, without the session's own bookkeeping).

The document is `{version?, requesterUsername, responderUsername, initialLocation?, sessionId?,
requests: [...]}`; each request is one turn:

- `message.text` (a string in the oldest layout) is the user's prompt and opens an exchange.
- `response` is what the chat showed, in order. A Markdown part (`{value}` with no `kind`, or
  `markdownContent` / `markdownVuln` with `content.value`) is the model's text; an `inlineReference`
  (a file or symbol named in the text) stands in as its name. A run of them is one `assistant` message.
- A `toolInvocationSerialized` part is a `tool_call` (`toolCallId`, `toolId`) followed by its
  `tool_result`. The arguments are the ones the model wrote, from the request's
  `result.metadata.toolCallRounds`, else the tool's own record of its input (`toolSpecificData`), else
  the invocation message; the result is `result.metadata.toolCallResults[toolCallId]` when the session
  kept it, else `resultDetails` (its `output` values; `isError` marks an error), else the past-tense
  message VS Code showed.
- A `warning`, an error the request ended with (`result.errorDetails.message`) and a canceled request
  (`isCanceled`) are `mark`s. Thinking is left out, as other readers leave thoughts out; edit groups,
  code block links, progress, confirmation and similar display parts are left out too. A part of a kind
  this reader does not know is skipped and counted.

Each message takes its request's `timestamp` (milliseconds since the epoch) and the request's id
(`ID#n` for its parts). The agent is `--agent`, else the file's name (the session id, for a session file).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.containers import Item, Layout
from summarizer.ingest.drafts import Draft, finish_with_agent
from summarizer.ingest.fields import object_entries, optional_epoch_millis, reject_nul
from summarizer.ingest.path_agents import agent_from_name
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.tool_calls import decoded_arguments
from summarizer.ingest.unknown_types import count_unknown

LAYOUT = Layout(array_keys=("requests",))
MARKDOWN_KINDS = frozenset({"markdownContent", "markdownVuln"})
DISPLAY_KINDS = frozenset(
    {
        "thinking",
        "textEditGroup",
        "notebookEditGroup",
        "codeblockUri",
        "undoStop",
        "prepareToolInvocation",
        "progressMessage",
        "progressTask",
        "progressTaskSerialized",
        "mcpServersStarting",
        "mcpServersInteractionRequired",
        "confirmation",
        "elicitation",
        "elicitationSerialized",
        "command",
        "commandButton",
        "treeData",
        "extensions",
        "pullRequest",
        "todoList",
        "reference",
        "codeCitation",
        "multiDiffData",
        "externalEdit",
        "hook",
        "questionCarousel",
    }
)
"""Response parts that only drive the chat view (or repeat what a tool invocation records)."""


SESSIONS_FOLDER = "chatSessions"


def detect_vscode_chat(value: Any) -> str | None:
    """Why a decoded document is a VS Code chat session or export (`requests` beside `requesterUsername`:
    VS Code itself tells an exported session by its `requesterUsername`), or the first line of a session
    log (`{"kind": 0, "v": SESSION}`, see `vscode_chat_log`); None when it is neither."""
    if isinstance(value, Mapping) and value.get("kind") == 0 and _is_session(value.get("v")):
        return "a VS Code chat session log (its initial entry holds the session)"
    if _is_session(value):
        return "a VS Code chat session (requests and requesterUsername)"
    return None


def _is_session(value: object) -> bool:
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("requests"), list)
        and isinstance(value.get("requesterUsername"), str)
    )


def large_vscode_chat(path: Path, head: bytes) -> bool:
    """Whether a document larger than the part detection reads is a VS Code chat session: a `.json` (or
    `.jsonl` log) in a `chatSessions` folder, or one whose start names its requester."""
    in_sessions = path.parent.name == SESSIONS_FOLDER and path.suffix in (".json", ".jsonl")
    return in_sessions or b'"requesterUsername"' in head[:65536]


class VscodeChatSession:
    """A reader of one session's requests, in order."""

    def __init__(self, default_agent: str | None, label: str) -> None:
        stem = PurePath(label).stem if label and label != "-" else ""
        self.agent = default_agent or (agent_from_name(stem) if stem else None)
        self.unknown_types: Counter[str] = Counter()
        """Response parts of kinds this reader does not know, skipped, by kind."""
        self.first_unknown: dict[str, str] = {}

    def feed(self, item: Item) -> list[IngestRecord]:
        request = item.value
        reject_nul(request)
        drafts = [*self._prompt(request), *self._response(request, item.where)]
        request_id = request.get("requestId")
        host_id = request_id if isinstance(request_id, str) and request_id else None
        return finish_with_agent(
            drafts, item.where, self.agent, "the session", lambda: _time(request), host_id
        )

    def _prompt(self, request: Mapping[str, Any]) -> list[Draft]:
        message = request.get("message")
        if isinstance(message, Mapping):
            text = message.get("text")
            if not isinstance(text, str):
                raise Problem(f"message.text must be a string, got {json_type(text)}")
        elif isinstance(message, str):
            text = message
        else:
            raise Problem(f"a request needs 'message' (an object with 'text'), got {json_type(message)}")
        return [Draft(Kind.USER, text)]

    def _response(self, request: Mapping[str, Any], where: str) -> list[Draft]:
        parts = request.get("response") or []
        if not isinstance(parts, list):
            raise Problem(f"response must be an array of parts, got {json_type(parts)}")
        result = request.get("result")
        result = result if isinstance(result, Mapping) else {}
        metadata = result.get("metadata")
        metadata = metadata if isinstance(metadata, Mapping) else {}
        arguments = _round_arguments(metadata.get("toolCallRounds"))
        outputs = metadata.get("toolCallResults")
        outputs = outputs if isinstance(outputs, Mapping) else {}
        drafts: list[Draft] = []
        text: list[str] = []
        for index, part in object_entries(parts, "response"):
            label = f"response[{index}]"
            kind = part.get("kind")
            if kind is None or kind in MARKDOWN_KINDS or kind == "inlineReference":
                text.append(_markdown(part, label))
                continue
            if not isinstance(kind, str):
                raise Problem(f"{label}.kind must be a string, got {json_type(kind)}")
            if kind in DISPLAY_KINDS:
                continue
            if kind not in ("toolInvocationSerialized", "toolInvocation", "warning"):
                count_unknown(self.unknown_types, self.first_unknown, kind, f"{where} {label}")
                continue
            drafts.extend(_said(text))
            text = []
            if kind == "warning":
                drafts.append(Draft(Kind.MARK, f"warning: {_message_text(part.get('content'))}".rstrip(": ")))
            else:
                drafts.extend(_invocation(part, label, arguments, outputs))
        drafts.extend(_said(text))
        return drafts + _ending(request, result)


def _said(text: list[str]) -> list[Draft]:
    joined = "".join(text).strip()
    return [Draft(Kind.ASSISTANT, joined)] if joined else []


def _markdown(part: Mapping[str, Any], label: str) -> str:
    if part.get("kind") == "inlineReference":
        return _reference_name(part)
    value = part.get("content") if part.get("kind") in MARKDOWN_KINDS else part.get("value")
    if isinstance(value, Mapping):
        value = value.get("value")
    if not isinstance(value, str):
        raise Problem(f"{label} is Markdown and needs 'value' as a string, got {json_type(value)}")
    return value


def _reference_name(part: Mapping[str, Any]) -> str:
    name = part.get("name")
    if isinstance(name, str) and name:
        return f"`{name}`"
    reference = part.get("inlineReference")
    if isinstance(reference, Mapping):
        location = reference.get("uri") if isinstance(reference.get("uri"), Mapping) else reference
        for key in ("path", "fsPath", "external"):
            path = location.get(key) if isinstance(location, Mapping) else None
            if isinstance(path, str) and path:
                return f"`{PurePath(path).name or path}`"
        if isinstance(reference.get("name"), str):
            return f"`{reference['name']}`"
    return ""


def _invocation(
    part: Mapping[str, Any], label: str, arguments: Mapping[str, Any], outputs: Mapping[str, Any]
) -> list[Draft]:
    call_id, tool = part.get("toolCallId"), part.get("toolId")
    if not isinstance(call_id, str) or not call_id or not isinstance(tool, str) or not tool:
        raise Problem(f"{label} is a tool invocation and needs 'toolCallId' and 'toolId' as strings")
    given = arguments.get(call_id)
    if given is None:
        given = _recorded_input(part)
    call = Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=tool, input=given)
    text, failed = _result(part, outputs.get(call_id))
    return [call, Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=failed)]


def _recorded_input(part: Mapping[str, Any]) -> Any:
    """The input as the tool recorded it: a terminal command, the raw input, else what VS Code showed."""
    data = part.get("toolSpecificData")
    if isinstance(data, Mapping):
        command = data.get("commandLine")
        if isinstance(command, Mapping) and isinstance(command.get("original"), str):
            return {"command": command.get("toolEdited") or command["original"]}
        if isinstance(data.get("command"), str):
            return {"command": data["command"]}
        if "rawInput" in data:
            return data["rawInput"]
    details = part.get("resultDetails")
    if isinstance(details, Mapping) and isinstance(details.get("input"), str):
        return decoded_arguments(details["input"])
    return {"invocation": _message_text(part.get("invocationMessage"))}


def _result(part: Mapping[str, Any], kept: object) -> tuple[str, bool]:
    details = part.get("resultDetails")
    failed = isinstance(details, Mapping) and details.get("isError") is True
    if kept is not None:
        return _tool_result_text(kept), failed
    if isinstance(details, Mapping) and isinstance(details.get("output"), list):
        values = [o.get("value") for o in details["output"] if isinstance(o, Mapping)]
        return "\n".join(v for v in values if isinstance(v, str)), failed
    said = _message_text(part.get("pastTenseMessage")) or _message_text(part.get("invocationMessage"))
    if part.get("isComplete") is False:
        return (f"{said}\n[not completed]" if said else "[not completed]"), True
    return said, failed


def _tool_result_text(value: object) -> str:
    """A kept tool result (`{content: [parts]}`): its text parts, the text inside prompt parts, `[data]`
    for binary parts."""
    content = value.get("content") if isinstance(value, Mapping) else value
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    texts: list[str] = []
    for part in content:
        item = part.get("value") if isinstance(part, Mapping) and "value" in part else part
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
            texts.append(str(part["text"]))
        elif isinstance(part, Mapping) and "mimeType" in part:
            texts.append("[data]")
        else:
            texts.append("".join(_node_texts(item)))
    return "\n".join(t for t in texts if t)


def _node_texts(node: object) -> list[str]:
    """The `text` pieces of a rendered prompt element tree, in order (walked with a stack)."""
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if isinstance(item.get("text"), str):
                found.append(str(item["text"]))
            stack.extend(
                reversed([v for k, v in item.items() if k != "text" and isinstance(v, Mapping | list)])
            )
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def _round_arguments(rounds: object) -> dict[str, Any]:
    """Each call's arguments as the model wrote them, by call id, from the request's tool call rounds."""
    found: dict[str, Any] = {}
    for round_ in rounds if isinstance(rounds, list) else []:
        calls = round_.get("toolCalls") if isinstance(round_, Mapping) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                found[call["id"]] = decoded_arguments(call.get("arguments"))
    return found


def _ending(request: Mapping[str, Any], result: Mapping[str, Any]) -> list[Draft]:
    drafts = []
    error = result.get("errorDetails")
    if isinstance(error, Mapping) and isinstance(error.get("message"), str) and error["message"].strip():
        drafts.append(Draft(Kind.MARK, f"error: {error['message'].strip()}"))
    if request.get("isCanceled") is True:
        drafts.append(Draft(Kind.MARK, "canceled"))
    return drafts


def _message_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("value"), str):
        return str(value["value"])
    return ""


def _time(request: Mapping[str, Any]) -> datetime | None:
    return optional_epoch_millis(request.get("timestamp"), "timestamp", "milliseconds since the epoch")
