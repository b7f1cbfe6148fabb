"""A real `summarizer watch` process for the watch tests: started in its own process group with the test's
settings (none of the developer's), its output in a log file, killed with its group at the end."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from tests.support.fleet import wait_for
from tests.support.services import ROOT


def waited(condition: Callable[[], object], log: Path, what: str) -> None:
    """Wait for `condition` (60 s at most); a timeout shows what the watcher said."""
    try:
        wait_for(condition, 60, what)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the watcher said:\n{log.read_text()}") from None


@contextlib.contextmanager
def watch_process(
    env: dict[str, str],
    args: Sequence[str],
    log: Path,
    *,
    prefix: Sequence[str] = (),
    strip: tuple[str, ...] = ("SUMMARIZER_",),
    started: bool = True,
) -> Iterator[subprocess.Popen[bytes]]:
    """`summarizer watch ARGS` with `env` over the environment less the variables starting with `strip`;
    with `started`, yields once it says it is watching. `prefix` runs it under another command."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(strip)} | env
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "summarizer", "watch", *args],
            env=full,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        if started:
            waited(lambda: "watching" in log.read_text(), log, "the watcher to start")
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(15)
