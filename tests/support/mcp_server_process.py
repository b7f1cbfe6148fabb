"""`summarizer mcp --transport http` as a real server process for tests: started on a free port with the
given settings, stopped (its whole process group) afterwards, its log checked for tracebacks."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.support.fleet import free_port, stop_group, wait_for
from tests.support.services import ROOT


def full_env(env: dict[str, str]) -> dict[str, str]:
    """The test's process environment without the developer's SUMMARIZER_* variables, plus `env`."""
    return {k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")} | env


@contextlib.contextmanager
def mcp_http_server(env: dict[str, str], log: Path, *args: str) -> Iterator[str]:
    """The server's endpoint URL while it runs; its log must hold no traceback when it stops."""
    port = free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "summarizer", "mcp", "--transport", "http", "--port", str(port), *args],
            env=full_env(env),
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: "MCP server on" in log.read_text(), 60, "summarizer mcp --transport http")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_group(proc)
    assert "Traceback" not in log.read_text(), log.read_text()
