"""Running the real `summarizer` command in a subprocess, with its own environment."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.support.marks import require_mark

ROOT = Path(__file__).resolve().parents[2]


def run_cli(
    *args: str, env: Mapping[str, str], stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    if args[:1] == ("demo",):
        require_mark("slow", "runs the demo (a worker process)")
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "summarizer", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )
