"""Coding-agent logs with a credential planted in each exchange's user text, tool input and tool output, in
the shapes Claude Code, Codex CLI and Gemini CLI write them (the same fields the real files under
the corpora's project-fixtures hold), for tests that record them through the agents' hooks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

START = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
"""Recent, so nothing recorded is old enough for the summary to age it out."""


def _at(n: int, step: int) -> str:
    return (
        (START + timedelta(minutes=n, seconds=step)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def _jsonl(objects: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(obj) + "\n" for obj in objects)


def claude_code_transcript(planted: Sequence[str], session: str) -> str:
    """A Claude Code session: per credential a typed prompt, a Bash tool_use, its tool_result and a reply,
    each line's parentUuid the one before."""
    lines: list[dict[str, Any]] = []
    common = {"isSidechain": False, "userType": "external", "cwd": "/home/me/app", "sessionId": session}

    def add(n: int, step: int, kind: str, content: list[dict[str, Any]]) -> None:
        uuid = f"{kind[0]}{n}-{step}"
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            message |= {"id": f"msg_{uuid}", "type": "message", "model": "claude-sonnet-4-20250514"}
        parent = lines[-1]["uuid"] if lines else None
        lines.append(
            {"type": kind, "timestamp": _at(n, step), "parentUuid": parent, **common, "uuid": uuid}
            | {"version": "2.1.0", "message": message}
        )

    for n, secret in enumerate(planted, start=1):
        call = f"toolu_{n:04d}"
        add(n, 0, "user", [{"type": "text", "text": f"Step {n}: please use this\n{secret}"}])
        add(
            n,
            1,
            "assistant",
            [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": f"echo '{secret}'"}}],
        )
        add(
            n,
            2,
            "user",
            [{"type": "tool_result", "tool_use_id": call, "content": f"output of step {n}:\n{secret}"}],
        )
        add(n, 3, "assistant", [{"type": "text", "text": f"Done with step {n}; it printed {secret}"}])
    return _jsonl(lines)


def codex_rollout(planted: Sequence[str], thread: str, cwd: str) -> str:
    """A Codex CLI rollout: the session's meta line, then per credential a typed prompt (its response item
    and its user_message event), a shell function_call, its output and a reply."""
    lines: list[dict[str, Any]] = [
        {
            "timestamp": _at(0, 0),
            "type": "session_meta",
            "payload": {"id": thread, "timestamp": _at(0, 0), "cwd": cwd, "originator": "codex_cli_rs"},
        }
    ]

    def item(n: int, step: int, kind: str, payload: dict[str, Any]) -> None:
        lines.append({"timestamp": _at(n, step), "type": kind, "payload": payload})

    for n, secret in enumerate(planted, start=1):
        prompt = f"Step {n}: please use this\n{secret}"
        call = f"call_{n:04d}"
        content = [{"type": "input_text", "text": prompt}]
        item(n, 0, "response_item", {"type": "message", "role": "user", "content": content})
        item(n, 0, "event_msg", {"type": "user_message", "message": prompt, "images": []})
        arguments = json.dumps({"command": ["bash", "-lc", f"echo '{secret}'"]})
        item(
            n,
            1,
            "response_item",
            {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call},
        )
        item(
            n,
            2,
            "response_item",
            {"type": "function_call_output", "call_id": call, "output": f"output of step {n}:\n{secret}"},
        )
        reply = [{"type": "output_text", "text": f"Done with step {n}; it printed {secret}"}]
        item(n, 3, "response_item", {"type": "message", "role": "assistant", "content": reply})
    return _jsonl(lines)


def gemini_cli_session(planted: Sequence[str], session: str, project_hash: str) -> str:
    """A Gemini CLI session document: per credential a user message and a gemini message whose shell tool
    call carries the credential in its args and its functionResponse."""
    messages: list[dict[str, Any]] = []
    for n, secret in enumerate(planted, start=1):
        messages.append(
            {
                "id": f"u{n}",
                "timestamp": _at(n, 0),
                "type": "user",
                "content": f"Step {n}: please use this\n{secret}",
            }
        )
        call = f"run_shell_command-{n}"
        response = {"output": f"output of step {n}:\n{secret}"}
        messages.append(
            {
                "id": f"g{n}",
                "timestamp": _at(n, 1),
                "type": "gemini",
                "content": f"Done with step {n}; it printed {secret}",
                "toolCalls": [
                    {
                        "id": call,
                        "name": "run_shell_command",
                        "args": {"command": f"echo '{secret}'"},
                        "result": [
                            {
                                "functionResponse": {
                                    "id": call,
                                    "name": "run_shell_command",
                                    "response": response,
                                }
                            }
                        ],
                        "status": "success",
                        "timestamp": _at(n, 2),
                    }
                ],
            }
        )
    document = {
        "sessionId": session,
        "projectHash": project_hash,
        "startTime": _at(0, 0),
        "lastUpdated": _at(len(planted), 3),
        "messages": messages,
    }
    return json.dumps(document)
