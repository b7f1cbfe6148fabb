"""Where the tests find the real public agent logs: `../shared/corpora` beside the project's root (or the
folder SUMMARIZER_CORPORA names), never a copy inside the project.

Paths are built at import time, so module constants and parameter lists can name the files; a test that
reads them asks for the `corpora` fixture (tests/conftest.py), which calls `require_corpora()`: where the
folder is absent the test is skipped with one line saying so, and under CI (`CI=true`) it fails instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = "SUMMARIZER_CORPORA"
# Read once at import: the tests' hermetic environment removes SUMMARIZER_* variables while they run.
CORPORA = Path(os.environ.get(ENV) or ROOT.parent / "shared" / "corpora").resolve()
PROJECT_FIXTURES = "project-fixtures"


def corpus_path(relative: str) -> Path:
    """The file or folder `relative` under the corpora, e.g. "project-fixtures/claude_code/x.jsonl"."""
    return CORPORA / relative


def fixture_path(relative: str) -> Path:
    """A real log the project once kept under tests/fixtures: the same path under project-fixtures/."""
    return corpus_path(f"{PROJECT_FIXTURES}/{relative}")


def corpora_present() -> bool:
    return (CORPORA / PROJECT_FIXTURES).is_dir()


def require_corpora() -> Path:
    """The corpora folder; without it, skip the running test (fail it under CI)."""
    if corpora_present():
        return CORPORA
    why = f"real agent logs not found: {CORPORA} is absent (set {ENV} to their folder)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{why}; CI must have them", pytrace=False)
    pytest.skip(why)
