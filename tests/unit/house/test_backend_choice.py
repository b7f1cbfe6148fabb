"""The database backend is chosen once: outside the backend packages, no module asks which database it
runs on (shared SQL calls the chosen backend's hooks instead), but for the few listed here with their
reasons."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from summarizer.domain.errors import SummarizerError
from summarizer.storage.backends import BACKENDS, backend_for, connect_database, store_for
from summarizer.storage.sql.dialect import dialect_of

ROOT = Path(__file__).resolve().parents[3]
ASKING = re.compile(
    r"dialect\.name|isinstance\(.*Database\b|get_backend_name\(|startswith\(\(?[\"'](?:sqlite|postgres)|"
    r"^\s*(?:import|from) psycopg\b"
)
BACKEND_PACKAGES = ("summarizer/storage/sqlite/", "summarizer/storage/postgres/")
ALLOWED = {
    "summarizer/storage/sql/backend.py": "the backend record: whether a URL names its database",
    "summarizer/storage/sql/dialect.py": "the hooks record: finds a connection's hooks by its dialect",
    "summarizer/storage/backends.py": "the one choice: names the URL's database when no backend serves it",
    "summarizer/storage/sql/statements/types.py": "column types: SQLAlchemy hands them the dialect at bind time",
}


def asking_modules() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted([*(ROOT / "summarizer").rglob("*.py"), *(ROOT / "workers").rglob("*.py")]):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(BACKEND_PACKAGES):
            continue
        lines = [line.strip() for line in path.read_text().splitlines() if ASKING.search(line)]
        if lines:
            found[name] = lines
    return found


def test_only_the_listed_modules_ask_which_database() -> None:
    unexpected = {name: lines for name, lines in asking_modules().items() if name not in ALLOWED}
    assert not unexpected, f"ask the chosen backend (storage/sql/dialect.py) instead: {unexpected}"


def test_every_listed_exception_still_asks() -> None:
    """A listed module that no longer asks comes off the list."""
    assert sorted(asking_modules()) == sorted(ALLOWED)


def test_a_url_chooses_one_backend_and_that_backend_builds_the_store(tmp_path: Path) -> None:
    assert [b.name for b in BACKENDS] == ["sqlite", "postgresql"]
    assert backend_for("postgresql+psycopg://u@h/db").name == "postgresql"
    db = connect_database(f"sqlite:///{tmp_path / 'one.db'}")
    try:
        assert backend_for(str(db.url)).dialect is db.dialect
        assert type(store_for(db)).__name__ == "SqliteStore"
        with db.read() as conn:
            assert dialect_of(conn) is db.dialect
    finally:
        db.dispose()


def test_a_database_no_backend_serves_is_one_clear_error() -> None:
    with pytest.raises(SummarizerError, match=r"names 'mysql', which is not supported \(use sqlite://"):
        backend_for("mysql://u:secret@h/db")


def test_a_connection_to_an_unregistered_database_says_so() -> None:
    class _Other:
        class dialect:
            name = "oracle"

    with pytest.raises(LookupError, match="no storage backend registered for the 'oracle' database"):
        dialect_of(_Other())  # type: ignore[arg-type]
