"""`summarizer watch`: follow coding agents' log directories and record new lines as they are written."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType

import click

from summarizer import composition
from summarizer.cli.params import AGENT_ID
from summarizer.cli.runtime import current_settings
from summarizer.composition.follow import build_follower


@click.command()
@click.argument("directories", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "claude-code", "codex", "gemini-cli", "cline", "canonical"]),
    default="auto",
    show_default=True,
    help="auto: each file's format detected from its first line.",
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
    """Follow agent log DIRECTORIES (default: ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp and
    Cline's task folder in VS Code or a fork, those that exist) and record each new line of their *.jsonl
    files as it is written, and each JSON document log (*.json: Gemini CLI before 0.39, Cline) when it
    is rewritten.

    Each file's position is kept in the database with the messages it recorded, so a restart resumes
    where it stopped: nothing lost, nothing twice. A last line still being written is waited for; a file
    rewritten or rotated is read again from the start (what is already stored is skipped).
    """
    from summarizer.ingest.follow import default_directories
    from summarizer.service.follow import Followed, is_log_name, log_files

    dirs = list(directories) or default_directories()
    if not dirs:
        raise click.UsageError(
            "no directory to watch: give one (~/.claude/projects, ~/.codex/sessions and ~/.gemini/tmp do not exist)"
        )
    settings = current_settings()
    follower = build_follower(settings, composition.open_database(settings), fmt=fmt, agent=agent_id, per=per)
    reported: set[str] = set()

    def show(done: Followed) -> None:
        if done.problem and done.problem not in reported:
            reported.add(done.problem)
            click.echo(f"warning: {done.problem}", err=True)
        if done.stored or done.restarted:
            again = " (rewritten: read again from the start)" if done.restarted else ""
            click.echo(
                f"{done.path}: stored {done.stored} message(s) for {', '.join(done.agents) or '-'}{again}"
            )

    for done in follower.follow_all(log_files(dirs)):
        show(done)
    if once:
        return
    import watchfiles

    stop = threading.Event()

    def stop_on(signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stop_on)
    signal.signal(signal.SIGINT, stop_on)
    click.echo(f"watching {', '.join(str(d) for d in dirs)}", err=True)
    for changes in watchfiles.watch(
        *dirs, watch_filter=lambda _change, path: is_log_name(path), stop_event=stop, rust_timeout=1000
    ):
        for path in sorted({Path(p) for change, p in changes if change != watchfiles.Change.deleted}):
            show(follower.follow(path))
