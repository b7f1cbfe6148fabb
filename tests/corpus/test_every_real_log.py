"""Every real agent log of the corpora (../shared/corpora), imported as a user would: `summarizer ingest`
with no `--format` into a fresh SQLite database, and `summarizer watch --once` over a copy of it, must store
the user prompts, assistant replies, tool calls and tool results that an independent reading of the file
finds (manifest.toml; the reading is counts.py). Where the manifest names a known gap the product is wrong
today: the case is an expected failure, strict, so it fails once the gap is closed."""

from __future__ import annotations

import ast
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import func, select

from summarizer.cli.main import cli
from summarizer.ingest.follow import DOCUMENT_FORMATS, FOLLOWED_FORMATS
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages
from tests.corpus.counts import KINDS, count
from tests.corpus.manifest import Entry, entries, logs_in_corpora, params
from tests.support.http_api import cli_settings
from tests.support.services import copy_sqlite_template

pytestmark = pytest.mark.usefixtures("corpora")

WATCHED = frozenset({*FOLLOWED_FORMATS, *DOCUMENT_FORMATS})
COUNTERS = ("counts.py", "counts_documents.py")


@pytest.fixture
def sqlite_db(tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    """A fresh, migrated SQLite database, and the environment that points the commands at it."""
    db = connect_database(copy_sqlite_template(sqlite_template, tmp_path / "corpus.db"))
    cli_settings(monkeypatch, tmp_path, db)
    yield db
    db.dispose()


def stored(db: Database) -> dict[str, int]:
    with db.read() as conn:
        rows = conn.execute(select(messages.c.kind, func.count()).group_by(messages.c.kind)).all()
    found = {str(kind): int(n) for kind, n in rows}
    return {kind: found.get(kind, 0) for kind in KINDS}


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_the_manifest_lists_every_real_log(corpora: Path) -> None:
    listed = [e.path for e in entries()]
    assert len(listed) == len(set(listed))
    assert set(listed) == logs_in_corpora(corpora)


def test_the_independent_reading_imports_nothing_of_the_product() -> None:
    for name in COUNTERS:
        tree = ast.parse(Path(__file__).with_name(name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            assert not any(m.split(".")[0] == "summarizer" for m in modules), (name, modules)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e.path)
def test_the_independent_reading_gives_the_manifest_counts(entry: Entry) -> None:
    assert count(entry.file, entry.layout).as_dict() == entry.counts


@pytest.mark.parametrize("entry", params(entries()))
def test_ingest_without_a_format_stores_what_the_file_holds(entry: Entry, sqlite_db: Database) -> None:
    agent = ["--agent", entry.agent] if entry.agent else []
    result = run("ingest", str(entry.file), *agent)
    if entry.nothing and result.exit_code == 1:
        assert "no message found" in result.output, result.output
    else:
        assert result.exit_code == 0, result.output
    if entry.format != "*":
        assert f"format: {entry.format} (" in result.output
    assert stored(sqlite_db) == entry.counts


WATCHED_ENTRIES = [e for e in entries() if e.format in WATCHED]


@pytest.mark.parametrize("entry", params(WATCHED_ENTRIES, watching=True))
def test_watch_once_stores_what_ingest_does(entry: Entry, sqlite_db: Database, tmp_path: Path) -> None:
    logs = tmp_path / "logs" / "project"
    logs.mkdir(parents=True)
    copy = logs / (".aider.chat.history.md" if entry.format == "aider" else entry.file.name)
    shutil.copyfile(entry.file, copy)
    if entry.format in FOLLOWED_FORMATS and not copy.read_bytes().endswith(b"\n"):
        # Agents end every line of their logs; a few files lost the last newline upstream, and watch rightly
        # waits for a line's end before reading it.
        with copy.open("ab") as stream:
            stream.write(b"\n")
    result = run("watch", "--once", str(logs.parent))
    assert result.exit_code == 0, result.output
    said = re.search(rf"{re.escape(copy.name)}: stored (\d+) message", result.output)
    assert said or entry.nothing, result.output
    assert stored(sqlite_db) == entry.counts
