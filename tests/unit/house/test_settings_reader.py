"""Only the composition root reads settings from the environment: no module of the package but
summarizer/composition names `load_settings` (import-linter sees modules, not names, and
`summarizer.settings` re-exports the loader for tests and benchmarks)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("summarizer", "workers", "migrations")
ALLOWED = ("summarizer/composition/", "summarizer/settings/")


def names_of_the_loader(source: str) -> list[int]:
    """The lines that import `load_settings` or refer to it as an attribute (`settings.load_settings`)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.ImportFrom) and any(alias.name == "load_settings" for alias in node.names)
        ) or (isinstance(node, ast.Attribute) and node.attr == "load_settings"):
            lines.append(node.lineno)
    return lines


def test_the_finder_finds_an_import_and_an_attribute() -> None:
    source = "from summarizer.settings import load_settings\nimport summarizer\nsummarizer.settings.load_settings()\n"
    assert names_of_the_loader(source) == [1, 3]
    assert names_of_the_loader("from summarizer.settings import Settings\ndef load_settings(): ...\n") == []


def test_only_the_composition_root_names_the_settings_loader() -> None:
    found = {
        f"{relative}:{line}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if not (relative := path.relative_to(ROOT).as_posix()).startswith(ALLOWED)
        for line in names_of_the_loader(path.read_text(encoding="utf-8"))
    }
    assert found == set()
