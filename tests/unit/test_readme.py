"""The README stays a newcomer's page: small, with the two commands, the install line and links into the
docs that all lead somewhere (the site's own links are checked by `mkdocs build --strict`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_at_most_20_kb() -> None:
    size = len(README.read_bytes())
    assert size <= 20_000, f"README.md is {size} bytes; move sections into docs/ and link them"


def test_the_readme_gives_the_two_commands_and_the_install_line() -> None:
    text = README.read_text()
    for needed in (
        "scripts/demo",
        "scripts/test",
        "pip install tiered-summarizer",
        "docs/getting-started.md",
    ):
        assert needed in text, needed


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    targets = [t for t in LINK.findall(README.read_text()) if "://" not in t]
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
