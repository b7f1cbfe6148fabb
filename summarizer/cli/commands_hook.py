"""`summarizer hook claude-code | gemini-cli | codex`: memory for coding agents through their own hooks.

Claude Code runs a hook command with the event's JSON on stdin. One command serves every event:
`SessionStart` prints the tiered summary as `additionalContext` in the JSON the hooks spec defines (so
the session starts knowing what earlier sessions did); `Stop`, `SubagentStop`, `PreCompact` and
`SessionEnd` record what the transcript at `transcript_path` gained since the last time (the same
followed-file positions as `summarizer watch`: nothing twice, nothing lost). Codex CLI's `notify`
program gets a JSON argument after each turn; `hook codex` records that thread's rollout. Gemini CLI's
hooks send the same kind of event JSON as Claude Code's (`SessionStart` takes `additionalContext` too;
`AfterAgent`, `PreCompress` and `SessionEnd` record its session file, a JSON document it rewrites in
place, read whole when it changed with the messages it already gave skipped by their ids).

A hook never blocks the agent: a failure is one line on stderr and exit status 1 (Claude Code shows it and
goes on), never 2.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any, NoReturn

import click

from summarizer.cli.runtime import current_settings

RECORDING_EVENTS = frozenset({"Stop", "SubagentStop", "PreCompact", "SessionEnd"})
GEMINI_RECORDING_EVENTS = frozenset({"AfterAgent", "PreCompress", "SessionEnd"})
MAX_EVENT_BYTES = 1 << 20
CONTEXT_HEADING = "Memory of earlier work in this project (summarizer):"


def _fail(message: str) -> NoReturn:
    click.echo(f"summarizer hook: {message}", err=True)
    raise SystemExit(1)


def _event(text: str) -> dict[str, Any]:
    if len(text) > MAX_EVENT_BYTES:
        _fail(f"the event JSON is over {MAX_EVENT_BYTES} bytes")
    try:
        event = json.loads(text)
    except ValueError as exc:
        _fail(f"the event is not JSON ({exc})")
    if not isinstance(event, dict):
        _fail("the event is not a JSON object")
    return dict(event)


@click.group()
def hook() -> None:
    """Run as a coding agent's hook: record its transcript, give it back its memory."""


@hook.command("claude-code")
@click.option(
    "--per",
    type=click.Choice(["project", "session"]),
    default="project",
    show_default=True,
    help="project: one agent per Claude Code project (memory across its sessions); session: per session.",
)
def claude_code(per: str) -> None:
    """Handle one Claude Code hook event read from stdin (settings.json lines in docs/coding-agents.md)."""
    _transcript_event(per, "claude-code", RECORDING_EVENTS, project_dir_names_agent=True)


def _transcript_event(
    per: str, fmt: str, recording: Collection[str], *, project_dir_names_agent: bool
) -> None:
    """One hook event of an agent that sends `hook_event_name` and `transcript_path` (Claude Code, Gemini
    CLI): SessionStart answers the summary, the `recording` events record the transcript."""
    event = _event(sys.stdin.read(MAX_EVENT_BYTES + 1))
    name = event.get("hook_event_name")
    transcript = event.get("transcript_path")
    path = Path(transcript) if isinstance(transcript, str) and transcript else None
    agent = _hook_agent(event, path if project_dir_names_agent else None, per)
    if name == "SessionStart":
        _session_start(agent, path, fmt)
    elif name in recording:
        if path is None:
            _fail(f"{name}: the event has no transcript_path")
        _record(path, fmt, agent)


def _hook_agent(event: dict[str, Any], path: Path | None, per: str) -> str | None:
    """The project's agent (the transcript's directory, which Claude Code names after the project's path;
    without one, the working directory named the same way), or the session id."""
    if per == "project":
        if path is not None:
            return path.parent.name
        cwd = event.get("cwd")
        if isinstance(cwd, str) and cwd:
            return "".join(c if c.isalnum() else "-" for c in cwd)
    session = event.get("session_id")
    return session if isinstance(session, str) and session else None


def _session_start(agent: str | None, path: Path | None, fmt: str) -> None:
    from summarizer import composition

    output: dict[str, Any] = {"hookEventName": "SessionStart"}
    if agent is not None:
        settings = current_settings()
        db = composition.open_database(settings)
        if path is not None and path.is_file():  # a resumed session: what it said before is recorded first
            _follow(settings, db, path, fmt, agent)
        summarizer = composition.build_summarizer(settings, db)
        if summarizer.store.agent_exists(agent):
            text, _version = summarizer.summary_text(agent)
            output["additionalContext"] = f"{CONTEXT_HEADING}\n\n{text}"
    click.echo(json.dumps({"hookSpecificOutput": output}))


def _record(path: Path, fmt: str, agent: str | None) -> None:
    from summarizer import composition

    if not path.is_file():
        _fail(f"no transcript at {path}")
    settings = current_settings()
    done = _follow(settings, composition.open_database(settings), path, fmt, agent)
    if done.problem:
        click.echo(f"summarizer hook: {done.problem}", err=True)


def _follow(settings: Any, db: Any, path: Path, fmt: str, agent: str | None) -> Any:
    from summarizer.composition.follow import build_follower

    return build_follower(settings, db, fmt=fmt, agent=agent).follow(path)


@hook.command("codex")
@click.argument("payload", required=False)
@click.option(
    "--per",
    type=click.Choice(["project", "session"]),
    default="project",
    show_default=True,
    help="project: one agent per working directory; session: per Codex thread.",
)
def codex(payload: str | None, per: str) -> None:
    """Record the Codex thread a `notify` call names (PAYLOAD, the JSON Codex passes; stdin without it)."""
    event = _event(payload if payload is not None else sys.stdin.read(MAX_EVENT_BYTES + 1))
    if event.get("type") != "agent-turn-complete":
        return
    thread = event.get("thread-id")
    if not isinstance(thread, str) or not thread or "/" in thread:
        _fail("the notify payload has no thread-id")
    home = Path(os.environ.get("CODEX_HOME", Path.home() / ".codex"))
    found = sorted((home / "sessions").rglob(f"rollout-*{thread}.jsonl"))
    if not found:
        _fail(f"no rollout of thread {thread} under {home / 'sessions'}")
    cwd = event.get("cwd")
    agent = Path(cwd).name if per == "project" and isinstance(cwd, str) and cwd else None
    _record(found[-1], "codex", agent)


@hook.command("gemini-cli")
@click.option(
    "--per",
    type=click.Choice(["project", "session"]),
    default="project",
    show_default=True,
    help="project: one agent per working directory (memory across its sessions); session: per session.",
)
def gemini_cli(per: str) -> None:
    """Handle one Gemini CLI hook event read from stdin (settings.json lines in docs/coding-agents.md)."""
    # Gemini's session files sit under a hash of the project, not a directory named after it.
    _transcript_event(per, "gemini-cli", GEMINI_RECORDING_EVENTS, project_dir_names_agent=False)
