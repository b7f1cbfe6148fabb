"""What Claude Code writes beside the conversation while the agent works: prompts typed while it was busy,
background tasks reporting back, hook output and the other attachments it hands the model.

- A prompt typed while the agent works is written as a `queue-operation` (`enqueue`, later `dequeue`,
  `remove` or `popAll`, each with the prompt as `content`) and then either as a normal `user` line once
  the agent takes it up (Claude Code 2.0) or, folded into the running turn, as an `attachment` line of
  type `queued_command` (`commandMode: prompt`, `origin.kind: human`; Claude Code 2.1). It is the user's
  prompt, stored once: as a `user` message of the running exchange when it is folded in, taken back
  (`popAll`) or removed unanswered, and as the prompt of the next exchange when its `user` line comes
  first. A `user` line repeating a queued prompt already stored is not stored again.
- A background task or shell reporting back (`<task-notification>`, `<bash-notification>`: a user-role
  line, or a queued command of another mode or origin) is a `mark` in the running exchange, never a
  prompt.
- A hook's output (`hook_*` attachments) is a `mark` when it says something (the text it added, its error);
  the other known attachments (reminders, file and memory context, mode changes) are context the tool
  adds and are passed over. An attachment of a type not known is counted and named as
  `attachment:TYPE`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.drafts import Draft

NOTIFICATION_OPENINGS = ("<task-notification>", "<bash-notification>")
"""How the user-role text of a background task or shell reporting back begins."""
HOOK_ATTACHMENTS = frozenset(
    {
        "hook_success",
        "hook_additional_context",
        "hook_system_message",
        "hook_permission_decision",
        "hook_non_blocking_error",
        "hook_blocking_error",
        "hook_error_during_execution",
        "hook_cancelled",
        "hook_stopped_continuation",
        "async_hook_response",
    }
)
HOOK_FAILURES = frozenset(
    {
        "hook_non_blocking_error",
        "hook_blocking_error",
        "hook_error_during_execution",
        "hook_cancelled",
        "hook_stopped_continuation",
    }
)
"""Hook attachments kept as a mark even when they carry no text."""
CONTEXT_ATTACHMENTS = frozenset(
    {
        "task_reminder",
        "todo_reminder",
        "todo",
        "edited_text_file",
        "edited_image_file",
        "deferred_tools_delta",
        "mcp_instructions_delta",
        "skill_listing",
        "invoked_skills",
        "plan_mode",
        "plan_mode_exit",
        "plan_mode_reentry",
        "plan_file_reference",
        "auto_mode",
        "auto_mode_exit",
        "date_change",
        "nested_memory",
        "file",
        "directory",
        "already_read_file",
        "compact_file_reference",
        "command_permissions",
        "agent_mention",
        "output_style",
        "critical_system_reminder",
        "diagnostics",
        "selected_lines_in_ide",
        "opened_file_in_ide",
        "total_tokens_reminder",
        "budget_usd",
        "max_turns_reached",
        "goal_status",
    }
)
"""Attachments Claude Code 2.1 writes that hold context it gives the model, not the conversation: known,
passed over without a word."""
QUEUED_COMMAND = "queued_command"
ABSORBED = "absorbed_mid_turn"
"""The `reason` of the `remove` Claude Code writes after folding a queued prompt into the running turn."""
KNOWN_ATTACHMENTS = HOOK_ATTACHMENTS | CONTEXT_ATTACHMENTS | {QUEUED_COMMAND}
MAX_NOTE_CHARS = 4000
"""A hook's text or a notification kept as a mark is clipped to this many characters."""
MAX_QUEUED = 64
"""How many queued prompts are remembered (by digest) to keep a later copy from being stored again."""
PENDING = "pending"
STORED = "stored"


def is_notification(text: str) -> bool:
    """Whether a user-role text is a background task or shell reporting back, not something typed."""
    return text.lstrip().startswith(NOTIFICATION_OPENINGS)


def attachment_type(obj: Mapping[str, Any]) -> str | None:
    attachment = obj.get("attachment")
    kind = attachment.get("type") if isinstance(attachment, Mapping) else None
    return kind if isinstance(kind, str) else None


def block_text(value: object) -> str:
    """The text of a prompt given as a string or as content blocks (other blocks named, not kept)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    parts: list[str] = []
    for block in value:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and isinstance(block.get("text"), str):
            parts.append(str(block["text"]))
        elif isinstance(block, Mapping) and isinstance(block.get("type"), str):
            parts.append(f"[{block['type']}]")
    return "\n".join(parts)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_NOTE_CHARS else text[: MAX_NOTE_CHARS - 1] + "…"


def queued_command(attachment: Mapping[str, Any], line_is_meta: bool) -> Draft | None:
    """A `queued_command` attachment: the user's prompt (a `user` draft of the running exchange) when a
    person typed it, a `command` for a shell command typed with `!`, otherwise a mark (a task reporting
    back, another session's message); None when it holds no text."""
    text = block_text(attachment.get("prompt")).strip()
    if not text:
        return None
    mode = attachment.get("commandMode")
    origin = attachment.get("origin")
    origin_kind = origin.get("kind") if isinstance(origin, Mapping) else None
    typed = (
        origin_kind in (None, "human")
        and attachment.get("isMeta") is not True
        and not line_is_meta
        and not is_notification(text)
    )
    if typed and mode in (None, "prompt"):
        return Draft(Kind.USER, text)
    if typed and mode == "bash":
        return Draft(Kind.COMMAND, _clip(f"!{text}"))
    return Draft(Kind.MARK, _clip(text))


def hook_note(attachment: Mapping[str, Any]) -> Draft | None:
    """A hook attachment as a mark: what the hook added or why it failed; None when it said nothing."""
    kind = str(attachment.get("type"))
    name = attachment.get("hookName") or attachment.get("hookEvent") or "hook"
    said = ""
    for key in ("content", "blockingError", "stderr", "message"):
        value = attachment.get(key)
        if isinstance(value, Mapping):
            value = value.get("blockingError")
        text = block_text(value).strip()
        if text:
            said = text
            break
    if not said and kind not in HOOK_FAILURES:
        return None
    label = f"{name} ({kind})"
    return Draft(Kind.MARK, _clip(f"{label}: {said}" if said else label))


def digest(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8", "surrogatepass")).hexdigest()[:32]


class QueuedPrompts:
    """The prompts queued lately, by digest: PENDING (queued, not stored yet) or STORED (stored from the
    queue: a later `user` line with the same text is not stored again)."""

    def __init__(self) -> None:
        self.known: dict[str, str] = {}

    def state(self) -> list[list[str]]:
        return [[key, status] for key, status in self.known.items()]

    def resume(self, kept: object) -> None:
        self.known = {}
        if isinstance(kept, list):
            for entry in kept[-MAX_QUEUED:]:
                if isinstance(entry, list) and len(entry) == 2 and all(isinstance(v, str) for v in entry):
                    self.known[entry[0]] = entry[1]

    def _set(self, text: str, status: str) -> None:
        key = digest(text)
        self.known.pop(key, None)
        self.known[key] = status
        while len(self.known) > MAX_QUEUED:
            del self.known[next(iter(self.known))]

    def queued(self, text: str) -> None:
        """Queued (again: the same words typed twice are two prompts)."""
        self._set(text, PENDING)

    def stored(self, text: str) -> None:
        self._set(text, STORED)

    def is_stored(self, text: str) -> bool:
        return self.known.get(digest(text)) == STORED

    def is_pending(self, text: str) -> bool:
        return self.known.get(digest(text)) == PENDING

    def repeated(self, text: str | None) -> bool:
        """Whether a prompt's `user` line repeats a queued prompt already stored; either way the queued
        copy is forgotten (the `user` line is the prompt from now on)."""
        if text is None:
            return False
        return self.known.pop(digest(text), None) == STORED


class Asides:
    """The lines beside the conversation (`attachment`, `queue-operation`, `custom-title`), read with the
    queued prompts met lately and the title last stored (both kept with a followed file's position)."""

    def __init__(self) -> None:
        self.queue = QueuedPrompts()
        self.title: str | None = None

    def state(self) -> dict[str, Any]:
        return {"queued": self.queue.state(), "title": self.title}

    def resume(self, kept: Mapping[str, Any]) -> None:
        self.queue.resume(kept.get("queued"))
        title = kept.get("title")
        self.title = title if isinstance(title, str) else None

    def draft(self, obj: Mapping[str, Any], opened: bool) -> tuple[Draft | None, str | None]:
        """What the line says of the running exchange (`opened`: one is running), if anything, and the
        name to count it under when it is an attachment of a type not known."""
        event = obj.get("type")
        if event == "custom-title":
            title = obj.get("customTitle")
            if not isinstance(title, str) or not title.strip() or title == self.title:
                return None, None
            self.title = title
            return Draft(Kind.MARK, f"title: {title.strip()}"), None
        if event == "queue-operation":
            return self._queue_operation(obj, opened), None
        kind = attachment_type(obj)
        if kind is not None and kind not in KNOWN_ATTACHMENTS:
            return None, f"attachment:{kind}"
        if kind is None or kind in CONTEXT_ATTACHMENTS:
            return None, None
        attachment = obj["attachment"]
        if kind != QUEUED_COMMAND:
            return hook_note(attachment), None
        draft = queued_command(attachment, obj.get("isMeta") is True)
        if draft is None or draft.kind is not Kind.USER:
            return draft, None
        if self.queue.is_stored(draft.content):  # already stored from its queue line
            return None, None
        return self._prompt(draft.content, opened), None

    def _queue_operation(self, obj: Mapping[str, Any], opened: bool) -> Draft | None:
        content = obj.get("content")
        if not isinstance(content, str) or not content.strip() or is_notification(content):
            return None  # a task reporting back is read from its own line
        if obj.get("operation") == "enqueue":
            self.queue.queued(content)
            return None
        taken_back = obj.get("operation") in ("remove", "popAll") and obj.get("reason") != ABSORBED
        if not taken_back or not self.queue.is_pending(content):
            return None  # a prompt folded into the turn is stored from its attachment
        return self._prompt(content.strip(), opened)  # taken back or removed before it was sent

    def _prompt(self, text: str, opened: bool) -> Draft:
        """A prompt typed while the agent worked, stored in the running exchange (once)."""
        self.queue.stored(text)
        return Draft(Kind.USER, text, continues_exchange=opened)
