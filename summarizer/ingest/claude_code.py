"""Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`), as the tool writes them.

Each line is an event (now and then two written on one line, both read). `user` and `assistant` events
carry one Anthropic Messages API message (an assistant reply is often split over several events that share
its `msg_` id, one content block each). Queued prompts, task notifications, hook output and titles
(`queue-operation`, `attachment`, `custom-title`) are read as `claude_code_queue` says; the other known
event types (summaries, snapshots, progress) are bookkeeping and are skipped without a word, as are
`isMeta` lines (text the tool injects, not the user's: the `<local-command-caveat>` note ahead of a local
command's lines among them), except the expansion of a slash command or skill the user just ran, which is
the user's request and opens the exchange. An assistant text of whitespace alone is no reply. A line of a type not known is skipped, counted, and named once
per file. A compaction boundary and `/clear` are stored as `clear`; other slash commands (`/compact`
included: its boundary already cleared) as `command`. The notes Claude Code writes when the user stops a
turn (`[Request interrupted by user]`, `... for tool use]`) are a `mark` in the exchange they interrupt,
never a prompt. Sidechain events (a sub-agent's conversation) are
skipped, or kept as a separate agent `AGENT/sidechain-<agentId>`. The event `uuid` is the message id, so
importing a session file again, or after it has grown, stores only what is new.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.ingest.anthropic_format import parse_anthropic
from summarizer.ingest.claude_code_queue import Asides, is_notification
from summarizer.ingest.containers import Item
from summarizer.ingest.drafts import Draft, finish
from summarizer.ingest.fields import Extras, read_created_at, read_host_id, reject_nul
from summarizer.ingest.problems import Problem, json_type
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.unknown_types import MAX_UNKNOWN_TYPES, count_unknown

MESSAGE_EVENTS = frozenset({"user", "assistant"})
CLAUDE_CODE_BOOKKEEPING = frozenset(
    {
        "file-history-snapshot",
        "summary",
        "queue-operation",
        "progress",
        "attachment",
        "custom-title",
        "ai-title",
        "agent-name",
        "agent-color",
        "last-prompt",
        "permission-mode",
        "mode",
        "worktree-state",
        "tag",
    }
)
"""Claude Code line types that carry no conversation and often no session id (a 2.x session file usually
opens with a `file-history-snapshot`): passed over without a word."""
KNOWN_EVENTS = MESSAGE_EVENTS | CLAUDE_CODE_BOOKKEEPING | {"system"}
"""Every line type read or knowingly passed over; a line of any other type is skipped, counted and named."""
BRANCH_MEMORY = 2000
"""How many recent lines a rewind may go back to and still be marked."""
CLEARING_COMMANDS = frozenset({"/clear"})
"""`/compact` is not one of them: its compaction boundary event clears, and the command lines Claude Code
writes after the compaction summary would otherwise evict that summary."""
_COMMAND_NAME = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
_COMMAND_OUTPUT = ("<local-command-stdout>", "<local-command-stderr>")
CAVEAT = "<local-command-caveat>"
"""How the `isMeta` note Claude Code writes ahead of a local command's lines begins: never a prompt."""
INTERRUPTS = frozenset({"[Request interrupted by user]", "[Request interrupted by user for tool use]"})
"""The texts Claude Code writes as a user message when the user stops a turn."""


class Sidechains(StrEnum):
    SKIP = "skip"
    AGENT = "agent"


@dataclass(frozen=True, slots=True)
class ClaudeCodeOptions:
    sidechains: Sidechains = Sidechains.SKIP


def parse_claude_code_event(
    obj: Mapping[str, Any], default_agent: str | None, where: str, options: ClaudeCodeOptions
) -> list[IngestRecord]:
    """The records of one transcript line; [] for lines that are not part of the conversation."""
    event = obj.get("type")
    if not isinstance(event, str):
        raise Problem(f"an event needs 'type' as a string, got {json_type(event)}")
    if obj.get("isMeta") is True:
        return []
    sidechain = obj.get("isSidechain") is True
    if sidechain and options.sidechains is Sidechains.SKIP:
        return []
    if event == "system" and obj.get("subtype") == "compact_boundary":
        return finish([Draft(Kind.CLEAR, "/compact")], _extras(obj, default_agent, sidechain), where)
    if event not in MESSAGE_EVENTS:
        return []
    reject_nul(obj)
    message = obj.get("message")
    if not isinstance(message, dict):
        article = "an" if event == "assistant" else "a"
        raise Problem(f"{article} {event} event needs 'message' as an object, got {json_type(message)}")
    extras = _extras(obj, default_agent, sidechain)
    command = _command(message) if event == "user" else None
    if command is not None:
        return finish([command], extras, where)
    inner = {"role": message.get("role", event), "content": message.get("content")}
    if "content" not in message:
        raise Problem("message: missing 'content'")
    try:
        records = parse_anthropic(inner, extras.agent_id, where)
    except Problem as problem:
        raise Problem(f"message: {problem.reason}") from None
    return _with_extras([r for r in records if not _blank_reply(r)], extras)


def _blank_reply(record: IngestRecord) -> bool:
    """An assistant text of whitespace alone (Claude Code streams a `"\\n\\n"` block ahead of the thinking
    now and then): no reply; the calls of the same message are kept."""
    return record.message.kind is Kind.ASSISTANT and not record.message.content.strip()


def _extras(obj: Mapping[str, Any], default_agent: str | None, sidechain: bool) -> Extras:
    agent = default_agent or _session(obj)
    if sidechain:
        sub = obj.get("agentId")
        agent = f"{agent}/sidechain-{sub}" if isinstance(sub, str) and sub else f"{agent}/sidechain"
    created_at = read_created_at(obj["timestamp"]) if obj.get("timestamp") is not None else None
    host_id = read_host_id(obj["uuid"]) if obj.get("uuid") is not None else None
    return Extras(agent_id=agent, created_at=created_at, host_id=host_id, tokens=None)


def _session(obj: Mapping[str, Any]) -> str:
    session = obj.get("sessionId")
    if not isinstance(session, str) or not session.strip():
        raise Problem("no agent: the event has no 'sessionId'; pass --agent")
    return session


def _command(message: Mapping[str, Any]) -> Draft | None:
    """A slash command or its printed output, typed by the user as a message of its own."""
    text = _plain_text(message.get("content"))
    if text is None:
        return None
    stripped = text.strip()
    if stripped in INTERRUPTS or is_notification(stripped):
        return Draft(Kind.MARK, stripped)
    if stripped in CLEARING_COMMANDS:
        return Draft(Kind.CLEAR, stripped)
    match = _COMMAND_NAME.search(stripped)
    if match is not None:
        name = match.group(1) if match.group(1).startswith("/") else f"/{match.group(1)}"
        return Draft(Kind.CLEAR if name in CLEARING_COMMANDS else Kind.COMMAND, stripped)
    if stripped.startswith(_COMMAND_OUTPUT):
        return Draft(Kind.COMMAND, stripped)
    return None


def _plain_text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        block = content[0]
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            return str(block["text"])
    return None


def _with_extras(records: list[IngestRecord], extras: Extras) -> list[IngestRecord]:
    """The parsed parts with the event's time and id (`uuid`, `uuid#n` for the parts of one event)."""
    drafts = [
        Draft(
            r.message.kind,
            r.message.content,
            tool_call_id=r.message.tool_call_id,
            name=r.message.name,
            input=r.message.input,
            is_error=r.message.is_error,
            continues_exchange=r.message.continues_exchange,
        )
        for r in records
    ]
    where = records[0].message.where if records else ""
    return finish(drafts, extras, where or "")


class ClaudeCodeReader:
    """The transcript line by line, with what the line-by-line rules cannot see:

    - the expanded prompt of a slash command or skill (an `isMeta` user line whose parent is the line that
      ran the command, not the one holding its output) is the user's request, stored as `user`;
    - a prompt whose parent is an earlier line than the one before it continues an earlier point of the
      conversation (a rewind, an edited prompt): a `rewind` marker naming that parent is stored before it,
      so the abandoned branch stays visible as such. Only a prompt can rewind: the results of parallel
      tool calls each name the line of their own call, and the reply after them names one of them;
    - sub-agent (sidechain) events skipped are counted (`sidechains_skipped`);
    - lines of a type it does not know (one a later Claude Code adds) are skipped and counted by type
      (`unknown_types`), each type named once per file (`unknown_report`), a followed file's included.

    Only lines that carry conversation count as branch points (progress and hook lines never do).
    """

    def __init__(self, default_agent: str | None, options: ClaudeCodeOptions) -> None:
        self.default_agent = default_agent
        self.options = options
        self.sidechains_skipped = 0
        self._seen: dict[str, None] = {}
        """The latest conversation lines' uuids (insertion order, at most BRANCH_MEMORY)."""
        self._previous: str | None = None
        self._command: str | None = None
        self.unknown_types: Counter[str] = Counter()
        """Lines skipped for a type this reader does not know, by type (names clipped)."""
        self._first_unknown: dict[str, str] = {}
        self._named: list[str] = []
        """Unknown types named in an earlier read of the same (followed) file: not named again."""
        self._asides = Asides()

    def state(self) -> dict[str, Any]:
        """What the next line's judgement depends on, to resume reading a followed file."""
        named = [*self._named, *(t for t in self.unknown_types if t not in self._named)]
        return {
            "previous": self._previous,
            "command": self._command,
            "recent": list(self._seen),
            "unknown_types": named[:MAX_UNKNOWN_TYPES],
            **self._asides.state(),
        }

    def resume(self, kept: Mapping[str, Any]) -> None:
        previous, command, recent = kept.get("previous"), kept.get("command"), kept.get("recent")
        self._previous = previous if isinstance(previous, str) else None
        self._command = command if isinstance(command, str) else None
        self._seen = {u: None for u in recent if isinstance(u, str)} if isinstance(recent, list) else {}
        named = kept.get("unknown_types")
        self._named = [t for t in named if isinstance(t, str)] if isinstance(named, list) else []
        self._asides.resume(kept)

    def unknown_report(self) -> list[tuple[str, str]]:
        """Where and what to say of the unknown line types met: the first line of each type, and how many
        lines of it were skipped; types already named in an earlier read of the file are left out."""
        return [
            (where, f"{self.unknown_types[kind]} line(s) of unknown type {kind!r} skipped")
            for kind, where in self._first_unknown.items()
            if kind not in self._named
        ]

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        kind = obj.get("type")
        if isinstance(kind, str) and kind not in KNOWN_EVENTS:
            count_unknown(self.unknown_types, self._first_unknown, kind, where)
            return []
        if isinstance(kind, str) and kind in _ASIDE_EVENTS:
            return self._aside(obj, where)
        uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        parent = obj.get("parentUuid") if isinstance(obj.get("parentUuid"), str) else None
        sidechain = obj.get("isSidechain") is True
        if sidechain and self.options.sidechains is Sidechains.SKIP:
            if str(obj.get("type")) in MESSAGE_EVENTS:
                self.sidechains_skipped += 1
            return []
        expansion = (
            obj.get("isMeta") is True
            and obj.get("type") == "user"
            and self._command is not None
            and parent == self._command
            and not (_prompt_text(obj) or "").lstrip().startswith(CAVEAT)
        )
        if not sidechain and _opens_block(obj) and self._asides.queue.repeated(_prompt_text(obj)):
            return []  # a queued prompt already stored from its queue line or attachment
        records = parse_claude_code_event(
            {**obj, "isMeta": False} if expansion else obj, self.default_agent, where, self.options
        )
        out: list[IngestRecord] = []
        if (
            records
            and not sidechain
            and _opens_block(obj)
            and parent is not None
            and parent in self._seen
            and parent != self._previous
        ):
            extras = _extras(obj, self.default_agent, False)
            rewind = Extras(extras.agent_id, extras.created_at, f"{uuid}~rewind" if uuid else None, None)
            out.extend(finish([Draft(Kind.REWIND, f"continues from {parent}")], rewind, where))
        out.extend(records)
        if uuid is not None and not sidechain and records:  # progress, hooks, snapshots: never a branch point
            self._seen[uuid] = None
            if len(self._seen) > BRANCH_MEMORY:
                del self._seen[next(iter(self._seen))]
            self._previous = uuid
            self._command = uuid if _runs_command(records) else None
        return out

    def _aside(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        """An attachment, a queue operation or a title: what it says of the running exchange, if anything."""
        sidechain = obj.get("isSidechain") is True
        if sidechain and self.options.sidechains is Sidechains.SKIP:
            return []
        draft, unknown = self._asides.draft(obj, opened=self._previous is not None)
        if unknown is not None:
            count_unknown(self.unknown_types, self._first_unknown, unknown, where)
        if draft is None:
            return []
        reject_nul(obj)
        return finish([draft], _extras(obj, self.default_agent, sidechain), where)


_ASIDE_EVENTS = frozenset({"attachment", "queue-operation", "custom-title"})
"""Line types read for what they say of the running exchange (never a prompt that opens one)."""


def _runs_command(records: list[IngestRecord]) -> bool:
    """Whether the line is a slash command the user ran (not its printed output): the line its expansion,
    if any, names as parent."""
    return (
        len(records) == 1
        and records[0].message.kind is Kind.COMMAND
        and _COMMAND_NAME.search(records[0].message.content) is not None
    )


def _prompt_text(obj: Mapping[str, Any]) -> str | None:
    message = obj.get("message")
    return _plain_text(message.get("content")) if isinstance(message, Mapping) else None


def in_prompt_order(items: Iterable[Item]) -> Iterator[Item]:
    """A whole transcript's lines grouped by the prompt they answer, so each reply is filed in its own
    exchange even where Claude Code wrote it after a later prompt (a reply finishing after the user typed
    again, a branch continued after another): every line joins the block of its nearest ancestor (by
    `parentUuid`) that is a prompt, and the blocks come in the order of their prompts, each in line order.
    A line with no known ancestor (bookkeeping, a compaction boundary, a parent in another file) stays in
    the block of the latest prompt before it. A transcript already in that order comes out unchanged."""
    blocks: list[list[Item]] = [[]]
    block_of: dict[str, int] = {}
    for item in items:
        obj = item.value
        uuid, parent = obj.get("uuid"), obj.get("parentUuid")
        if _opens_block(obj):
            blocks.append([])
            block = len(blocks) - 1
        else:
            block = block_of.get(parent, len(blocks) - 1) if isinstance(parent, str) else len(blocks) - 1
        blocks[block].append(item)
        if isinstance(uuid, str):
            block_of[uuid] = block
    for block_items in blocks:
        yield from block_items


def _opens_block(obj: Mapping[str, Any]) -> bool:
    """A prompt the user typed (or a command they ran): a main-chain user line that answers no tool call."""
    if obj.get("type") != "user" or obj.get("isSidechain") is True or obj.get("isMeta") is True:
        return False
    message = obj.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    text = _plain_text(content)
    if text is not None and (text.strip() in INTERRUPTS or is_notification(text)):
        return False
    if isinstance(content, str):
        return True
    return isinstance(content, list) and not any(
        isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content
    )
