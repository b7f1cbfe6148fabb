"""The independent reading (see counts.py) of the logs saved as one JSON document, and of API payloads and
data sets. Standard library only. The rules, per layout:
- opencode (`opencode export`): a user message with a non-synthetic text part is a prompt; an assistant
  message with a non-blank text part a reply; each `tool` part a call and, once it completed or failed,
  its result.
- openhands (event list): a user `message` action is a prompt; an agent `message` or `finish` action a
  reply, and so is the `thought` of a tool action; an action carrying `tool_call_metadata` (other than
  `finish`) is a call, and an observation whose `cause` is such an action its result.
- swe-agent (`.traj`): the issue (the first user message of `history` that is not a demonstration) is the
  prompt; each `trajectory` step a reply, a call (its `action`) and, when it has an observation, a result.
  A file holding only `history`: assistant messages are replies, their `tool_calls` calls, `tool`
  messages results.
- cline (`api_conversation_history.json`): `tool_use` blocks are calls, except `attempt_completion`, the
  task's answer (a reply; its `[attempt_completion] Result:` notice no result); results are `tool_result`
  blocks or user text blocks opening with a `[tool for '…']` header; a user text block holding `<task>`,
  `<feedback>`, `<answer>` or `<user_message>` is a prompt (Cline's own reminders are not); an assistant
  message with non-blank text or an `attempt_completion` a reply.
- openai / tau-bench: chat messages (`traj` of each tau-bench record): `user` prompts, `assistant` with
  content replies, their `tool_calls` calls, `tool` messages results.
- sharegpt: `human`/`gpt`/`function_call`/`observation` turns of every conversation.
- anthropic (a Messages API response): its text blocks are one reply; server tools are neither calls nor
  results here (tool activity).
- responses (a Responses API response object, or JSON Lines of items): `message` items of the assistant are
  replies, of the user prompts; `function_call` items calls, `function_call_output` items results.
- canonical (JSON Lines with `kind`): the `kind` of each line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.corpus.counts import Counts, blank, json_lines


def _document(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def opencode(path: Path) -> Counts:
    counts = Counts()
    for message in _document(path).get("messages", []):
        role = (message.get("info") or {}).get("role")
        parts = message.get("parts") or []
        texts = [
            p
            for p in parts
            if p.get("type") == "text" and not p.get("synthetic") and not blank(p.get("text"))
        ]
        if role == "user" and texts:
            counts.user += 1
        elif role == "assistant" and texts:
            counts.assistant += 1
        for part in parts:
            if part.get("type") == "tool":
                counts.tool_call += 1
                status = (part.get("state") or {}).get("status")
                counts.tool_result += status in ("completed", "error")
    return counts


def openhands(path: Path) -> Counts:
    counts = Counts()
    calls: set[int] = set()
    for event in _document(path):
        action, source = event.get("action"), event.get("source")
        args = event.get("args") or {}
        if action == "message":
            if source == "user":
                counts.user += 1
            elif source == "agent":
                counts.assistant += 1
        elif action == "finish":
            counts.assistant += 1
        elif action and event.get("tool_call_metadata"):
            counts.tool_call += 1
            calls.add(event.get("id"))
            counts.assistant += not blank(args.get("thought"))
        elif event.get("observation") and event.get("cause") in calls:
            counts.tool_result += 1
            calls.discard(event.get("cause"))
    return counts


def swe_agent(path: Path) -> Counts:
    counts = Counts()
    document = _document(path)
    history = document.get("history") or []
    counts.user = int(any(m.get("role") == "user" and not m.get("is_demo") for m in history))
    steps = document.get("trajectory")
    if steps:
        for step in steps:
            counts.assistant += 1
            counts.tool_call += not blank(step.get("action"))
            counts.tool_result += step.get("observation") is not None and step is not steps[-1]
        last = steps[-1].get("observation")
        counts.tool_result += not blank(last)
        return counts
    for message in history:
        if message.get("role") == "assistant":
            counts.assistant += 1
            counts.tool_call += len(message.get("tool_calls") or [])
        elif message.get("role") == "tool":
            counts.tool_result += 1
    return counts


CLINE_RESULT = re.compile(r"^\[[\w-]+(?: for '[^\n]*?')?\](?: Result:)?(?:\s|$)")
CLINE_PROMPT = re.compile(r"<(task|feedback|answer|user_message)>")


def cline(path: Path) -> Counts:
    counts = Counts()
    for message in _document(path):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        if message.get("role") == "assistant":
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            finals = [b for b in uses if b.get("name") == "attempt_completion"]
            counts.tool_call += len(uses) - len(finals)
            counts.assistant += bool(finals) or any(not blank(t) for t in texts)
            continue
        counts.tool_result += sum(1 for b in blocks if b.get("type") == "tool_result")
        counts.tool_result += sum(
            1 for t in texts if CLINE_RESULT.match(t) and not t.startswith("[attempt_completion]")
        )
        counts.user += sum(1 for t in texts if CLINE_PROMPT.search(t) and not CLINE_RESULT.match(t))
    return counts


def _chat(messages: list[dict[str, Any]]) -> Counts:
    counts = Counts()
    for message in messages:
        role = message.get("role")
        if role == "user":
            counts.user += 1
        elif role == "assistant":
            counts.assistant += not blank(message.get("content"))
            counts.tool_call += len(message.get("tool_calls") or [])
        elif role == "tool":
            counts.tool_result += 1
    return counts


def openai(path: Path) -> Counts:
    return _chat(_document(path))


def tau_bench(path: Path) -> Counts:
    counts = Counts()
    for record in _document(path):
        counts.add(_chat(record.get("traj") or []))
    return counts


SHAREGPT = {"human": "user", "gpt": "assistant", "function_call": "tool_call", "observation": "tool_result"}


def sharegpt(path: Path) -> Counts:
    counts = Counts()
    for conversation in _document(path):
        for turn in conversation.get("conversations") or []:
            kind = SHAREGPT.get(turn.get("from"))
            if kind:
                setattr(counts, kind, getattr(counts, kind) + 1)
    return counts


def anthropic(path: Path) -> Counts:
    content = _document(path).get("content") or []
    return Counts(assistant=int(any(b.get("type") == "text" and not blank(b.get("text")) for b in content)))


def responses(path: Path) -> Counts:
    items: list[dict[str, Any]] = (
        list(json_lines(path)) if path.suffix == ".jsonl" else _document(path).get("output") or []
    )
    counts = Counts()
    for item in items:
        kind = item.get("type")
        if kind == "message" or (kind is None and "role" in item):
            role = item.get("role")
            counts.user += role == "user"
            counts.assistant += role == "assistant"
        counts.tool_call += kind == "function_call"
        counts.tool_result += kind == "function_call_output"
    return counts


def canonical(path: Path) -> Counts:
    counts = Counts()
    for line in json_lines(path):
        kind = line.get("kind")
        if kind in ("user", "assistant", "tool_call", "tool_result"):
            setattr(counts, kind, getattr(counts, kind) + 1)
    return counts


LAYOUTS: dict[str, Callable[[Path], Counts]] = {
    "opencode": opencode,
    "openhands": openhands,
    "swe-agent": swe_agent,
    "cline": cline,
    "openai": openai,
    "tau-bench": tau_bench,
    "sharegpt": sharegpt,
    "anthropic": anthropic,
    "responses": responses,
    "canonical": canonical,
}
