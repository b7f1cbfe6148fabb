"""Cline task histories: `.../saoudrizwan.claude-dev/tasks/<taskId>/api_conversation_history.json`.

The file is the JSON array of Anthropic Messages the extension sent for one task, `{role, content, ts?}`
(`ts` in milliseconds since the epoch, in newer versions). Cline's tool results come back as user text,
not as `tool_result` blocks, so the Anthropic reading would open an exchange at every result; this one
pairs them instead.

- The first user message wraps the task in `<task>`: its text is the user's request and opens the exchange.
- An assistant message is the model's text (`assistant`) and its tool calls: in the classic mode the XML
  tags it writes (`<read_file><path>a.ts</path></read_file>`: the parameter tags are the input, the call
  id is `cline-<message index>-<n>`), with native tool calls its `tool_use` blocks (their own ids).
  `attempt_completion`, `ask_followup_question` and `plan_mode_respond` are the agent speaking to the user,
  not calls anything answers: their result, question or response is stored as an `assistant` message.
- A user message that holds results (`[read_file for 'a.ts'] Result:` texts, stored without the header,
  or `tool_result` blocks, paired by id) answers the calls of the assistant message before it, in order,
  each preferring a call of the tool it names; it continues the exchange. Results holding an `[ERROR]`
  line or "The tool execution failed", and Cline's notices for calls it never ran (a second tool in one
  message, a task interrupted before the call), are errors.
- A user message opens a new exchange when it holds the user's words: `<feedback>` or `<answer>` (the
  reply to a completion or a question), `<user_message>` (resuming a task), or plain text with no result;
  `<feedback>` beside the result of a call (why an edit was denied) continues the exchange.
  Cline's own notices (`[ERROR] You did not use a tool`, `[TASK RESUMPTION]` without a message, reminders
  such as `# TODO LIST UPDATE REQUIRED`) are no one's turn: a `mark` of the running exchange (metadata,
  never sent to the summarizing model); beside the user's words they are left out.
- `<environment_details>` blocks (the editor state Cline appends to each user message) are left out of
  what is stored, as are thinking blocks; an image stands in as `[image]`.

Messages carry no id, so each gets a derived one; `ts` is the time. The agent is `--agent`, else the task
id when the file sits in a folder named like one (`tasks/<taskId>/`), else the file name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import PurePath
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.anthropic_format import content_blocks, indexed_blocks
from summarizer.ingest.cline_tools import (
    failed,
    is_notice,
    not_executed,
    result_header,
    split_tool_tags,
    user_words,
    without_environment,
)
from summarizer.ingest.containers import Item, Layout
from summarizer.ingest.drafts import Draft, finish_with_agent, reject_repeated_call_ids
from summarizer.ingest.fields import optional_epoch_millis, reject_nul, required_str
from summarizer.ingest.problems import Problem, json_type, shown
from summarizer.ingest.records import IngestRecord

LAYOUT = Layout(array_keys=())
BLOCK_TYPES = ("text", "image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking")
SPEAKING = {
    "attempt_completion": "result",
    "ask_followup_question": "question",
    "plan_mode_respond": "response",
}
"""The tools through which the agent speaks to the user, and the parameter that holds what it says."""
_TASK_ID = re.compile(
    r"\d{10,16}|[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
)

_PLACEHOLDERS = frozenset({"[image]", "[document]"})

_Block = tuple[str, str, Mapping[str, Any]]  # (label for errors, block type, block)


class ClineTask:
    def __init__(self, default_agent: str | None, label: str) -> None:
        self.agent = default_agent or _agent_of(label)
        self.position = 0
        self.pending: list[tuple[str, str]] = []
        """(call id, tool name) of the last assistant message's calls that no result answered yet."""

    def feed(self, item: Item) -> list[IngestRecord]:
        message = item.value
        reject_nul(message)
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise Problem(f"a message needs 'role' ('user' or 'assistant'), got {shown(role)}")
        position = self.position
        self.position += 1
        blocks = _blocks(message)
        drafts = self._assistant(blocks, position) if role == "assistant" else self._user(blocks)
        return finish_with_agent(drafts, item.where, self.agent, "the history", lambda: _created_at(message))

    def _assistant(self, blocks: list[_Block], position: int) -> list[Draft]:
        uses = [(label, block) for label, kind, block in blocks if kind == "tool_use"]
        if any(kind == "tool_result" for _, kind, _ in blocks):
            raise Problem("a tool_result block belongs in a user message, not an assistant one")
        text = _joined(blocks)
        drafts: list[Draft] = []
        self.pending = []
        if uses:
            if text:
                drafts.append(Draft(Kind.ASSISTANT, text))
            for label, block in uses:
                call_id = required_str(block, "id", allow_empty=False, path=f"{label}.")
                name = required_str(block, "name", allow_empty=False, path=f"{label}.")
                drafts.append(self._call(call_id, name, block.get("input")))
        else:
            tags = 0
            for piece in split_tool_tags(text):
                if isinstance(piece, str):
                    drafts.append(Draft(Kind.ASSISTANT, piece))
                else:
                    tags += 1
                    drafts.append(self._call(f"cline-{position}-{tags}", piece.name, piece.params))
        reject_repeated_call_ids(drafts)
        return [d for d in drafts if d.kind is not Kind.ASSISTANT or d.content]

    def _call(self, call_id: str, name: str, params: object) -> Draft:
        said = SPEAKING.get(name)
        if said is not None:
            return Draft(Kind.ASSISTANT, _speech(name, params))
        self.pending.append((call_id, name))
        return Draft(Kind.TOOL_CALL, "", tool_call_id=call_id, name=name, input=params)

    def _user(self, blocks: list[_Block]) -> list[Draft]:
        results: list[Draft] = []
        for label, kind, block in blocks:
            if kind == "tool_result":
                results.append(self._native_result(label, block))
            elif kind == "tool_use":
                raise Problem(f"{label}: a tool_use block belongs in an assistant message, not a user one")
        rest: list[str] = []
        words: list[str] = []
        replies: list[str] = []
        turn = False  # words that start a turn whatever else the message holds
        for segment in _segments(blocks):
            answered = self._answer(segment)
            if answered is not None:
                results.append(answered)
                continue
            name, text = segment
            said = user_words(text)
            attached = [line for line in text.splitlines() if line in _PLACEHOLDERS]
            if said is not None:
                words.extend(part for part in (said[0], *attached) if part)
                turn = turn or name in SPEAKING or bool(said[1] - {"feedback"})
            elif name in SPEAKING:  # a reply to a completion, question or plan: words if nothing is tagged
                header = result_header(text)
                replies.append((header[1] if header else text).strip())
            elif text:
                rest.append(text)
        self.pending = []
        if not words and any(replies):
            words, turn = [reply for reply in replies if reply], True
        if words:  # Cline's own notices beside the user's words are left out
            rest = [part for part in rest if not is_notice(part)]
        return [*results, *_said(words, rest, opens=turn or not results)]

    def _answer(self, segment: tuple[str | None, str]) -> Draft | None:
        """The segment as the result of a waiting call (one of the tool it names first), if it is one."""
        name, text = segment
        if name is None or name in SPEAKING or not self.pending:
            return None
        index = next((i for i, (_, n) in enumerate(self.pending) if n == name), 0)
        call_id, _ = self.pending.pop(index)
        header = result_header(text)
        content = header[1].strip("\n") if header else text
        return Draft(Kind.TOOL_RESULT, content, tool_call_id=call_id, is_error=failed(content))

    def _native_result(self, label: str, block: Mapping[str, Any]) -> Draft:
        call_id = required_str(block, "tool_use_id", allow_empty=False, path=f"{label}.")
        waiting = [i for i, (pending_id, _) in enumerate(self.pending) if pending_id == call_id]
        if not waiting:
            raise Problem(f"{label}: tool_use_id {call_id!r} answers no tool_use of the message before")
        self.pending.pop(waiting[0])
        content = block.get("content", "")
        if isinstance(content, list):
            text = _joined(_indexed(content, f"{label}.content"))
        elif isinstance(content, str):
            text = without_environment(content)
        else:
            raise Problem(f"{label}.content must be a string or an array of blocks, got {json_type(content)}")
        is_error = block.get("is_error") is True or failed(text)
        return Draft(Kind.TOOL_RESULT, text, tool_call_id=call_id, is_error=is_error)


def _said(words: list[str], rest: list[str], *, opens: bool) -> list[Draft]:
    """The user's words (and any other text) as a prompt, opening an exchange when `opens` (feedback on a
    call, a denied edit, steers the running one); Cline's own notices alone as a mark of the running
    exchange, nobody's turn."""
    text = "\n".join(part.strip() for part in words + rest)
    if not text:
        return []
    if not words and all(is_notice(part) for part in rest):
        return [Draft(Kind.MARK, text)]
    return [Draft(Kind.USER, text, continues_exchange=not opens)]


def _segments(blocks: list[_Block]) -> list[tuple[str | None, str]]:
    """A user message's text cut where each result begins: (the tool a result names, its text), and
    (None, text) for the rest. A header alone in its block (older versions) takes the blocks after it,
    up to the next header, as its output; a header with text after it is a whole result."""
    segments: list[tuple[str | None, list[str], bool]] = []
    for _, kind, block in blocks:
        if kind in ("text", "image", "document"):
            text = _block_text(kind, block)
            if not text:
                continue
            header = result_header(text)
            skipped = not_executed(text)
            if header is not None:
                segments.append((header[0], [text], not header[1].strip()))
            elif skipped is not None:
                segments.append((skipped, [text], False))
            elif segments and segments[-1][2]:
                segments[-1][1].append(text)
            else:
                segments.append((None, [text], False))
    return [(name, "\n".join(parts)) for name, parts, _ in segments]


def _speech(name: str, params: object) -> str:
    """What the agent says through a speaking tool: its main parameter, with a completion's command or a
    question's options after it."""
    values = params if isinstance(params, Mapping) else {}
    said = values.get(SPEAKING[name])
    parts = [said if isinstance(said, str) else "" if said is None else str(said)]
    for extra in ("command", "options"):
        value = values.get(extra)
        if isinstance(value, str | list) and value:
            parts.append(f"{extra}: {value}")
    return "\n\n".join(p.strip() for p in parts if p.strip())


def _blocks(message: Mapping[str, Any]) -> list[_Block]:
    return content_blocks(message, BLOCK_TYPES, text_required=True)


def _indexed(values: list[Any], field: str) -> list[_Block]:
    return indexed_blocks(values, field, BLOCK_TYPES, text_required=True)


def _block_text(kind: str, block: Mapping[str, Any]) -> str:
    if kind == "text":
        return without_environment(block["text"])
    return f"[{kind}]"


def _joined(blocks: list[_Block]) -> str:
    """The text, image and document blocks as one text; tool and thinking blocks are left to the caller."""
    parts = [_block_text(kind, block) for _, kind, block in blocks if kind in ("text", "image", "document")]
    return "\n".join(p for p in parts if p).strip()


def _created_at(message: Mapping[str, Any]) -> datetime | None:
    return optional_epoch_millis(message.get("ts"), "ts", "a number of milliseconds since the epoch")


def _agent_of(label: str) -> str | None:
    if not label or label == "-":
        return None
    path = PurePath(label)
    return path.parent.name if _TASK_ID.fullmatch(path.parent.name) else path.stem or None


def looks_like_cline(messages: list[Any]) -> bool:
    """A chat array Cline wrote: a text of its first messages holds `<task>`, `<environment_details>` or
    a `[tool ...] Result:` header (for `--format auto`)."""
    for message in messages[:4]:
        content = message.get("content") if isinstance(message, Mapping) else None
        texts = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        for block in texts:
            text = block.get("text") if isinstance(block, Mapping) else block
            if isinstance(text, str) and (
                "<task>" in text or "<environment_details>" in text or result_header(text) is not None
            ):
                return True
    return False
