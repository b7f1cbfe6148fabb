"""`summarizer hook claude-code | gemini-cli | codex`: memory for coding agents through their own hooks.

Claude Code runs a hook command with the event's JSON on stdin. One command serves every event:
`SessionStart` prints the tiered summary as `additionalContext` in the JSON the hooks spec defines (so
the session starts knowing what earlier sessions did); `Stop`, `SubagentStop`, `PreCompact` and
`SessionEnd` record what the transcript at `transcript_path` gained since the last time (the same
followed-file positions as `summarizer watch`: nothing twice, nothing lost). A Claude Code transcript
gets the agent `watch --per` gives it (the project's folder, or each session's id), so a hook and a
watcher given the same --per record a file for the same agent; a file already recorded for another
agent stays with it, said on stderr. Codex CLI's `notify`
program gets a JSON argument after each turn; `hook codex` records that thread's rollout. Gemini CLI's
hooks send the same kind of event JSON as Claude Code's (`SessionStart` takes `additionalContext` too;
`AfterAgent`, `PreCompress` and `SessionEnd` record its session file, a JSON document it rewrites in
place, read whole when it changed with the messages it already gave skipped by their ids).

A hook never blocks the agent. To Claude Code and Gemini CLI, exit status 2 means "block" (Claude Code's
Stop then keeps the session going with stderr as its feedback; Gemini CLI blocks the turn); any other
non-zero status is a non-blocking error they show and go past. So whatever stdin, the arguments or the
SUMMARIZER_* settings hold, a failure is one line on stderr and exit status 1, never 2 and never a
traceback. A database that is down or slow is no failure of the agent's turn: one line and exit status
0, the transcript kept at its recorded position for the next event; and a hook ends within
HOOK_BUDGET_S whatever the database does.

A hook reads only agent logs: a `transcript_path` outside the agent's own log folders (those
`summarizer watch` follows: Claude Code's `$CLAUDE_CONFIG_DIR/projects`, Gemini CLI's `~/.gemini/tmp`,
Codex's `$CODEX_HOME/sessions`, each under the home when its variable is unset or empty) and those named
in SUMMARIZER_HOOK_LOG_FOLDERS is refused before anything of it is read or kept.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from summarizer.cli.runtime import current_settings
from summarizer.ingest.formats import claude_code as claude_code_format
from summarizer.ingest.formats import codex as codex_format
from summarizer.ingest.formats import gemini_cli as gemini_cli_format
from summarizer.ingest.formats.registry import hooked
from summarizer.ingest.jsontext import DocumentError, loads_json

RECORDING_EVENTS = frozenset({"Stop", "SubagentStop", "PreCompact", "SessionEnd"})
GEMINI_RECORDING_EVENTS = frozenset({"AfterAgent", "PreCompress", "SessionEnd"})
MAX_EVENT_BYTES = 1 << 20
MAX_LINE_CHARS = 500
HOOK_BUDGET_S = 30.0
"""The longest a hook runs: well within the agents' own hook timeouts (60 s by default)."""
Command = TypeVar("Command", bound=Callable[..., Any])

LATER = "nothing is lost: the transcript is recorded from where it stopped by the next event"
CONTEXT_HEADING = "Memory of earlier work in this project (summarizer):"


def _say(message: str) -> None:
    """One line on stderr, however long or many-lined the message."""
    line = " ".join(message.split())
    if len(line) > MAX_LINE_CHARS:
        line = line[: MAX_LINE_CHARS - 1] + "…"
    click.echo(f"summarizer hook: {line}", err=True)


def _fail(message: str) -> NoReturn:
    _say(message)
    raise SystemExit(1)


def _event(data: bytes) -> dict[str, Any]:
    """The event JSON, decoded within the bounds every JSON the project reads is held to (no integer
    longer than Python converts, no nesting deeper than MAX_NESTING)."""
    if len(data) > MAX_EVENT_BYTES:
        _fail(f"the event JSON is over {MAX_EVENT_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        _fail("the event is not UTF-8 text")
    try:
        event = loads_json(text)
    except DocumentError as exc:
        _fail(f"the event is not JSON that can be read ({exc.reason})")
    if not isinstance(event, dict):
        _fail("the event is not a JSON object")
    return dict(event)


def _stdin() -> bytes:
    return sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)


class _NeverBlocking(click.Group):
    """The hooks of the formats that have one (`LogFormat.hook`), loaded when run. Every failure of a hook
    command, its arguments' included (the group's own, a hook that does not exist, none at all), is one
    line on stderr and exit status 1: to the agents, 2 means "block"."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(hooked())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = hooked().get(cmd_name)
        if target is None:
            return None
        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args:
            _fail(
                f"no hook named: give one of {', '.join(self.list_commands(ctx))} (see summarizer hook --help)"
            )
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as exc:
            _fail(exc.format_message())

    def invoke(self, ctx: click.Context) -> Any:
        deadline = _answer_within(HOOK_BUDGET_S)
        try:
            return super().invoke(ctx)
        except click.exceptions.Exit:
            raise
        except click.ClickException as exc:
            _fail(exc.format_message())
        except Exception as exc:
            from summarizer import composition

            outage = composition.database_outage(exc)
            if outage is None:
                _fail(_reason(exc))
            _say(f"{outage}; {LATER}")
            raise SystemExit(0) from None
        finally:
            deadline.cancel()


def _answer_within(seconds: float) -> threading.Timer:
    """Make sure the hook ends within `seconds` whatever the database does (a connection that hangs
    mid-statement included): past them it says so in one line and exits 0. What was recorded is
    committed with its position, what was not is recorded by a later event. The caller cancels the
    timer when the hook is done (so a hook run inside another program does not end that program)."""

    def out_of_time() -> None:
        _say(f"stopped after {seconds:g} s (a slow database or a long transcript); {LATER}")
        sys.stderr.flush()
        os._exit(0)  # stdout unflushed: no half-written answer

    timer = threading.Timer(seconds, out_of_time)
    timer.daemon = True
    timer.start()
    return timer


def _reason(exc: Exception) -> str:
    from summarizer.domain.errors import SummarizerError

    if isinstance(exc, SummarizerError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


@click.group(cls=_NeverBlocking)
def hook() -> None:
    """Run as a coding agent's hook: record its transcript, give it back its memory."""


def agent_log_folders(agent: str, configured: str) -> list[Path]:
    """Where `agent` keeps its logs (the only places a hook reads: the folder `watch` follows for it, its
    variable honoured the same way) and the folders configured in SUMMARIZER_HOOK_LOG_FOLDERS (separated
    like PATH)."""
    from summarizer.ingest.log_folders import agent_folder

    extra = [Path(p).expanduser() for p in configured.split(os.pathsep) if p.strip()]
    return [agent_folder(agent), *extra]


def _allowed(path: Path, folders: Sequence[Path]) -> bool:
    """Whether `path`, symbolic links resolved, is a log file's name inside one of `folders`."""
    from summarizer.service.follow import is_log_name

    try:
        real = path.expanduser().resolve()
        roots = [f.resolve() for f in folders]
    except (OSError, RuntimeError, ValueError):
        return False
    return is_log_name(real.name) and any(real.is_relative_to(root) and real != root for root in roots)


def _checked(path: Path | None, agent: str) -> Path | None:
    """`path` when it lies in the agent's log folders; None, with one line on stderr, when it does not."""
    if path is None:
        return None
    folders = agent_log_folders(agent, current_settings().hook_log_folders)
    if _allowed(path, folders):
        return path
    shown = ", ".join(str(f) for f in folders)
    _say(f"{path} is not in the agent's log folders ({shown}; more in SUMMARIZER_HOOK_LOG_FOLDERS): not read")
    return None


def _per_option(help_text: str) -> Callable[[Command], Command]:
    """`--per`, which every hook takes: one agent per project (the default) or per session."""
    return click.option(
        "--per",
        type=click.Choice(["project", "session"]),
        default="project",
        show_default=True,
        help=help_text,
    )


@click.command(claude_code_format.FORMAT.name)
@_per_option("project: one agent per Claude Code project (memory across its sessions); session: per session.")
def claude_code(per: str) -> None:
    """Handle one Claude Code hook event read from stdin (settings.json lines in docs/coding-agents.md)."""
    _transcript_event(per, claude_code_format.FORMAT.name, RECORDING_EVENTS, project_dir_names_agent=True)


def _transcript_event(
    per: str, fmt: str, recording: Collection[str], *, project_dir_names_agent: bool
) -> None:
    """One hook event of an agent that sends `hook_event_name` and `transcript_path` (Claude Code, Gemini
    CLI): SessionStart answers the summary, the `recording` events record the transcript."""
    event = _event(_stdin())
    name = event.get("hook_event_name")
    transcript = event.get("transcript_path")
    given = (
        Path(transcript) if isinstance(transcript, str) and transcript and "\0" not in transcript else None
    )
    if name not in recording and name != "SessionStart":
        return
    path = _checked(given, fmt)
    agent = _hook_agent(event, path if project_dir_names_agent else None, per)
    # Claude Code's transcripts get the agent `watch --per` gives them; Gemini CLI's folder is a hash of
    # the project, so its hook names the agent from the working directory.
    follow_agent, follow_per = (None, per) if project_dir_names_agent else (agent, "session")
    if name == "SessionStart":
        session = _hook_agent(event, None, "session")
        _session_start(agent, path, fmt, (follow_agent, follow_per, session))
    elif given is None:
        _fail(f"{name}: the event has no transcript_path")
    elif path is None:
        raise SystemExit(1)
    else:
        _record(path, fmt, follow_agent, follow_per)


def _hook_agent(event: dict[str, Any], path: Path | None, per: str) -> str | None:
    """The project's agent (the transcript's directory, which Claude Code names after the project's path;
    without one, the working directory named the same way), or the session id; a name over the agent-id
    length limit (a deep working directory) is shortened with a hash of the whole."""
    from summarizer.service.follow import project_agent_id

    if per == "project":
        if path is not None:
            return project_agent_id(path.parent.name)
        cwd = event.get("cwd")
        if isinstance(cwd, str) and cwd:
            return project_agent_id("".join(c if c.isalnum() else "-" for c in cwd))
    session = event.get("session_id")
    return project_agent_id(session) if isinstance(session, str) and session.strip() else None


def _session_start(
    agent: str | None, path: Path | None, fmt: str, rule: tuple[str | None, str, str | None]
) -> None:
    """`rule`: the follower's agent and --per, and the session's own agent (for a transcript recorded
    for each session's agent)."""
    from summarizer import composition

    output: dict[str, Any] = {"hookEventName": "SessionStart"}
    if agent is not None:
        settings = current_settings()
        db = composition.open_database(settings)
        if path is not None and path.is_file():  # a resumed session: what it said before is recorded first
            done, filed = _follow(settings, db, path, fmt, rule[0], rule[1])
            if done.problem:
                _say(done.problem)
            agent = filed if filed is not None else rule[2] or agent  # the agent it is recorded for
        summarizer = composition.build_summarizer(settings, db)
        if summarizer.store.agent_exists(agent):
            text, _version = summarizer.summary_text(agent)
            output["additionalContext"] = f"{CONTEXT_HEADING}\n\n{text}"
    click.echo(json.dumps({"hookSpecificOutput": output}))


def _record(path: Path, fmt: str, agent: str | None, per: str = "session") -> None:
    from summarizer import composition

    if not path.is_file():
        _fail(f"no transcript at {path}")
    settings = current_settings()
    done, _filed = _follow(settings, composition.open_database(settings), path, fmt, agent, per)
    if done.problem:
        _say(done.problem)
    if done.failed:
        raise SystemExit(1)


def _follow(
    settings: Any, db: Any, path: Path, fmt: str, agent: str | None, per: str
) -> tuple[Any, str | None]:
    """What following `path` did, and the agent the file is recorded for (None: each session's own)."""
    from summarizer.composition.follow import build_follower
    from summarizer.domain.agent_source import HOOK, recorded_by

    with recorded_by(HOOK):
        follower = build_follower(settings, db, fmt=fmt, agent=agent, per=per)
        return follower.follow(path), follower.filed_agent(path)


@click.command(codex_format.FORMAT.name)
@click.argument("payload", required=False)
@_per_option("project: one agent per working directory; session: per Codex thread.")
def codex(payload: str | None, per: str) -> None:
    """Record the Codex thread a `notify` call names (PAYLOAD, the JSON Codex passes; stdin without it)."""
    event = _event(payload.encode("utf-8", "surrogateescape") if payload is not None else _stdin())
    if event.get("type") != "agent-turn-complete":
        return
    thread = event.get("thread-id")
    if not isinstance(thread, str) or not thread.strip() or "/" in thread or "\0" in thread:
        _fail("the notify payload has no thread-id")
    from summarizer.service.follow import project_agent_id

    folders = agent_log_folders(codex_format.FORMAT.name, current_settings().hook_log_folders)
    sessions = folders[0]
    ending = f"-{thread}.jsonl"  # matched literally: a thread id is never a file pattern
    found = sorted(
        p for p in sessions.rglob("rollout-*.jsonl") if p.name.endswith(ending) and _allowed(p, folders)
    )
    if not found:
        _fail(f"no rollout of thread {thread} under {sessions}")
    cwd = event.get("cwd")
    project = Path(cwd).name if per == "project" and isinstance(cwd, str) and "\0" not in cwd else ""
    agent = project_agent_id(project) if project.strip() else None
    _record(found[-1], codex_format.FORMAT.name, agent)


@click.command(gemini_cli_format.FORMAT.name)
@_per_option("project: one agent per working directory (memory across its sessions); session: per session.")
def gemini_cli(per: str) -> None:
    """Handle one Gemini CLI hook event read from stdin (settings.json lines in docs/coding-agents.md)."""
    # Gemini's session files sit under a hash of the project, not a directory named after it.
    _transcript_event(
        per, gemini_cli_format.FORMAT.name, GEMINI_RECORDING_EVENTS, project_dir_names_agent=False
    )
