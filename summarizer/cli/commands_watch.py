"""`summarizer watch`: follow coding agents' log directories and record new lines as they are written."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

import click

from summarizer import composition
from summarizer.cli.params import AGENT_ID
from summarizer.cli.runtime import current_settings
from summarizer.composition.follow import build_follower
from summarizer.ingest.follow import DOCUMENT_FORMATS, FOLLOWED_FORMATS
from summarizer.ingest.log_folders import AIDER_NOTE, DEFAULT_FOLDERS_SHOWN, default_directories
from summarizer.service.follow import Followed, Follower, is_log_name, log_files

WATCH_FORMATS = (
    "auto",
    *(f for f in dict.fromkeys((*FOLLOWED_FORMATS, *DOCUMENT_FORMATS)) if f != "canonical"),
    "canonical",
)
"""Every format `watch` follows: the logs of lines, and the documents read whole when they change."""


@click.command()
@click.argument("directories", nargs=-1, type=click.Path(exists=True, path_type=Path))
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
    ~/.copilot/session-state, Cline's task folder in VS Code or a fork and VS Code's Copilot Chat
    transcripts (GitHub.copilot-chat/transcripts), those that exist) and record
    each new line of their *.jsonl files (Claude Code, Codex CLI, Gemini CLI 0.39 and later, GitHub
    Copilot, canonical) as it is written, and each document log (*.json: Gemini CLI before 0.39, Cline,
    opencode, OpenHands; aider's .aider.chat.history.md) when it is rewritten. aider keeps its history
    in each project's root: name the file or the project folder.

    Each file's position is kept in the database with the messages it recorded, so a restart resumes
    where it stopped: nothing lost, nothing twice. A last line still being written is waited for; a file
    rewritten or rotated is read again from the start (what is already stored is skipped).

    A file that cannot be read or recorded is reported once on stderr and tried again when it changes;
    every other file keeps being followed. A watched directory that is deleted is watched for until it
    comes back. With --once the exit status is 0 when any file could be read (failures on stderr), 1
    when none could.
    """
    dirs = list(directories) or default_directories()
    if not dirs:
        defaults = ", ".join(DEFAULT_FOLDERS_SHOWN)
        raise click.UsageError(f"no directory to watch: give one (none of {defaults} exists; {AIDER_NOTE})")
    settings = current_settings()
    follower = build_follower(settings, composition.open_database(settings), fmt=fmt, agent=agent_id, per=per)
    shown = _Shown()
    results = shown.catch_up(follower, dirs)
    if once:
        if shown.failures and all(r.failed for r in results):
            raise SystemExit(1)
        return
    stop = threading.Event()

    def stop_on(signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stop_on)
    signal.signal(signal.SIGINT, stop_on)
    _follow_live(follower, dirs, shown, stop)


class _Shown:
    """What `watch` prints: stored counts on stdout; failures (the follower hands each over once until the
    file changes) and other warnings (each once) on stderr."""

    def __init__(self) -> None:
        self.warned: set[str] = set()
        self.failures = 0
        self.unlisted: set[Path] = set()
        """Folders that could not be listed: looked at again when they change."""

    def show(self, done: Followed) -> None:
        if done.problem and (done.failed or done.problem not in self.warned):
            self.warned.add(done.problem)
            click.echo(f"warning: {done.problem}", err=True)
        self.failures += done.failed
        if done.stored or done.restarted:
            again = " (rewritten: read again from the start)" if done.restarted else ""
            click.echo(
                f"{done.path}: stored {done.stored} message(s) for {', '.join(done.agents) or '-'}{again}"
            )

    def catch_up(self, follower: Follower, dirs: Sequence[Path]) -> list[Followed]:
        """Follow every log file under `dirs`; a folder that cannot be listed is reported, the rest read."""
        problems: dict[Path, str] = {}
        files = log_files([d for d in dirs if d.exists()], problems)
        for folder, problem in problems.items():
            self.failures += 1
            if problem not in self.warned:
                self.warned.add(problem)
                click.echo(f"warning: {problem}", err=True)
            self.unlisted.add(folder)
        results = follower.follow_all(files)
        for done in results:
            self.show(done)
        return results


def _roots(dirs: Sequence[Path]) -> dict[Path, tuple[int, int] | None]:
    """Each watched root's identity (device, inode), None while it does not exist."""
    found: dict[Path, tuple[int, int] | None] = {}
    for d in dirs:
        try:
            stat = d.stat()
            found[d] = (stat.st_dev, stat.st_ino)
        except OSError:
            found[d] = None
    return found


def _follow_live(follower: Follower, dirs: Sequence[Path], shown: _Shown, stop: threading.Event) -> None:
    """Follow changes until `stop`. Each folder that can be listed is watched on its own (one folder that
    cannot be would make a recursive watch fail whole); the watch is set up again whenever a root is
    deleted, replaced or comes back, a folder appears, or a folder that could not be listed changes, and
    what appeared meanwhile is caught up on."""
    import watchfiles

    seen = _roots(dirs)
    announced = False
    while not stop.is_set():
        now = _roots(dirs)
        if now != seen:  # a root went or came back while no watch was running
            _say_roots(seen, now)
            shown.catch_up(follower, [d for d, known in now.items() if known != seen[d]])
            seen = now
        folders = set(_folders([d for d, known in seen.items() if known is not None]))
        if not folders:
            stop.wait(1.0)
            continue

        def wanted(_change: watchfiles.Change, path: str) -> bool:
            return is_log_name(path) or Path(path) in shown.unlisted or os.path.isdir(path)

        established = False
        try:
            for changes in watchfiles.watch(
                *sorted(folders),
                watch_filter=wanted,
                recursive=False,
                stop_event=stop,
                rust_timeout=1000,
                yield_on_timeout=True,
            ):
                if not established:  # the watch is in place: what was written while it was set up
                    established = True
                    shown.catch_up(follower, [d for d, known in seen.items() if known is not None])
                    if not announced:
                        announced = True
                        click.echo(f"watching {', '.join(str(d) for d in dirs)}", err=True)
                touched = {Path(p) for change, p in changes if change != watchfiles.Change.deleted}
                for path in sorted(p for p in touched if is_log_name(p.name) and not p.is_dir()):
                    shown.show(follower.follow(path))
                opened = sorted(
                    p for p in touched if p.is_dir() and (p in shown.unlisted or p not in folders)
                )
                if opened:
                    shown.unlisted.difference_update(opened)
                    shown.catch_up(follower, opened)
                if opened or _roots(dirs) != seen:
                    break  # watch again: a root made again, a new or newly listable folder
        except OSError as exc:  # a folder removed while the watch was being set up: look again
            click.echo(f"warning: cannot watch a folder under {', '.join(map(str, dirs))} ({exc})", err=True)
            stop.wait(1.0)


def _folders(roots: Sequence[Path]) -> list[Path]:
    """The roots and every folder under them that can be listed (as absolute paths, as events name them)."""
    found: list[Path] = []
    for root in roots:
        found.append(Path(os.path.abspath(root)))
        if root.is_dir():
            found.extend(Path(os.path.abspath(folder)) for folder, _dirs, _names in list(os.walk(root))[1:])
    return found


def _say_roots(before: dict[Path, tuple[int, int] | None], after: dict[Path, tuple[int, int] | None]) -> None:
    for root, known in after.items():
        if known == before[root]:
            continue
        if known is None:
            click.echo(f"warning: {root} is gone: watching for it to come back", err=True)
        else:
            click.echo(f"{root} is there again: reading it", err=True)
