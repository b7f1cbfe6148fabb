"""`summarizer watch`: follow coding agents' log directories and record new lines as they are written."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from types import FrameType

import click

from summarizer import composition
from summarizer.cli.params import AGENT_ID
from summarizer.cli.runtime import current_settings
from summarizer.cli.watch_live import LiveWatch, roots
from summarizer.cli.watch_output import Shown
from summarizer.composition.follow import build_follower
from summarizer.ingest.follow import DOCUMENT_FORMATS, FOLLOWED_FORMATS
from summarizer.ingest.log_folders import DEFAULT_FOLDERS_SHOWN, FOLDER_NOTES, default_directories

WATCH_FORMATS = (
    "auto",
    *(f for f in dict.fromkeys((*FOLLOWED_FORMATS, *DOCUMENT_FORMATS)) if f != "canonical"),
    "canonical",
)
"""Every format `watch` follows: the logs of lines, and the documents read whole when they change."""


@click.command()
@click.argument("directories", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(WATCH_FORMATS),
    default="auto",
    show_default=True,
    help="auto: each file's format detected from its first lines. A format given is read from the files "
    "of its kind (lines or a document); the others are passed over.",
)
@click.option("--agent", "agent_id", type=AGENT_ID, help="Record every file into this one agent.")
@click.option(
    "--per",
    type=click.Choice(["session", "project"]),
    default="session",
    show_default=True,
    help="session: one agent per log (its session id); project: one per Claude Code or Gemini CLI project.",
)
@click.option("--once", is_flag=True, help="Record what is new in every file, then exit.")
def watch(directories: tuple[Path, ...], fmt: str, agent_id: str | None, per: str, once: bool) -> None:
    """Follow agent log DIRECTORIES (default: ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp,
    ~/.copilot/session-state, Cline's task folder in VS Code or a fork, VS Code's Copilot Chat
    transcripts (GitHub.copilot-chat/transcripts) and VS Code's Copilot Chat sessions
    (workspaceStorage/*/chatSessions), those that exist) and record each new line of their *.jsonl files
    (Claude Code, Codex CLI, Gemini CLI 0.39 and later, GitHub Copilot, canonical) as it is written, and
    each document log (*.json: Gemini CLI before 0.39, Cline, opencode, OpenHands, OpenHands V1,
    mini-swe-agent, VS Code chat sessions; aider's .aider.chat.history.md) when it is rewritten. aider
    keeps its history in each project's root: name the file or the project folder.

    Each file's position is kept in the database with the messages it recorded, so a restart resumes
    where it stopped: nothing lost, nothing twice. A last line still being written is waited for; a file
    rewritten or rotated is read again from the start (what is already stored is skipped).

    A file that cannot be read or recorded is reported once on stderr and tried again when it changes;
    every other file keeps being followed. A watched directory that is deleted is watched for until it
    comes back, and one named before it exists until it appears (--once: an error). A database that cannot be reached is reported once and tried again, with a backoff of up
    to 30 s, until it is back (said on stderr); nothing read is lost or recorded twice meanwhile. With
    --once the exit status is 0 when any file could be read (failures on stderr), 1 when none could or
    the database cannot be reached.
    """
    dirs = list(directories) or default_directories()
    if not dirs:
        defaults = ", ".join(DEFAULT_FOLDERS_SHOWN)
        raise click.UsageError(f"no directory to watch: give one (none of {defaults} exists; {FOLDER_NOTES})")
    missing = [d for d in directories if not os.path.lexists(d)]
    if once and missing:
        raise click.UsageError(f"{missing[0]}: no such file or folder")
    settings = current_settings()
    if once:
        shown = Shown()
        follower = build_follower(
            settings, composition.open_database(settings), fmt=fmt, agent=agent_id, per=per
        )
        results = shown.catch_up(follower, dirs).results
        if shown.failures and all(r.failed for r in results):
            raise SystemExit(1)
        return
    stop = threading.Event()

    def stop_on(signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stop_on)
    signal.signal(signal.SIGINT, stop_on)
    shown = Shown(stop)
    for d in missing:
        click.echo(f"warning: {d} does not exist yet: read once it appears", err=True)
    db = shown.patiently(lambda: composition.open_database(settings))
    if db is None:
        return
    follower = build_follower(settings, db, fmt=fmt, agent=agent_id, per=per)
    seen = roots(dirs)
    caught = shown.catch_up(follower, dirs)
    if not caught.stopped:
        LiveWatch(follower, dirs, shown, stop, seen, caught.folders).run()
