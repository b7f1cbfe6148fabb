"""`summarizer watch` as a real process: a watched root deleted and made again at once (as `git clean` or a
restored backup does; the folder often gets its old inode back) is watched again, and a root named before
it exists is watched from the moment it appears; each within the watch's usual delay."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from summarizer.ingest.reader import read_records
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.statements.schema import messages
from tests.acceptance.cli import run_cli
from tests.e2e.test_http_curl import server_env
from tests.support.watch_process import waited, watch_process

pytestmark = pytest.mark.slow

SESSION = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "claude_code"
    / "queue_operations_then_user_lines.jsonl"
)
SESSION_ID = b"5e55a0b1-0000-4000-8000-000000000020"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    found = server_env(tmp_path, f"sqlite:///{(tmp_path / 'watch.db').as_posix()}")
    assert run_cli("db", "upgrade", env=found).returncode == 0
    return found


def write_session(path: Path, session: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(SESSION.read_bytes().replace(SESSION_ID, session.encode()))


def recorded(env: dict[str, str], path: Path) -> bool:
    """Whether the database holds every message `ingest` reads from `path`, under its agents."""
    records = read_records(path, "claude-code", None, 1 << 20)
    agents = sorted({r.agent_id for r in records})
    db = connect_database(env["SUMMARIZER_DATABASE_URL"])
    try:
        with db.read() as conn:
            query = select(func.count()).select_from(messages).where(messages.c.agent_id.in_(agents))
            return int(conn.execute(query).scalar_one()) == len(records)
    finally:
        db.dispose()


def test_a_root_deleted_and_made_again_at_once_is_watched_again(env: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "projects"
    first = root / "-home-me-kiln" / "one.jsonl"
    write_session(first, "one")
    log = tmp_path / "watch.log"
    with watch_process(env, [str(root)], log) as proc:
        waited(lambda: recorded(env, first), log, "the first session recorded")
        shutil.rmtree(root)  # and at once made again, as a restore does
        second = root / "-home-me-kiln" / "two.jsonl"
        write_session(second, "two")
        waited(lambda: recorded(env, second), log, "a session in the remade root recorded")
        third = root / "-home-me-kiln" / "three.jsonl"  # and the remade root is watched live
        write_session(third, "three")
        waited(lambda: recorded(env, third), log, "a later session recorded")
        assert proc.poll() is None
    assert "Traceback" not in log.read_text(), log.read_text()


def test_a_root_named_before_it_exists_is_watched_once_it_appears(
    env: dict[str, str], tmp_path: Path
) -> None:
    present, later = tmp_path / "present", tmp_path / "later"
    write_session(present / "-home-me-kiln" / "here.jsonl", "here")
    log = tmp_path / "watch.log"
    with watch_process(env, [str(present), str(later)], log) as proc:
        assert f"warning: {later} does not exist yet: read once it appears" in log.read_text()
        first = later / "-home-me-kiln" / "new.jsonl"
        write_session(first, "new")
        waited(lambda: recorded(env, first), log, "a session in the root that appeared recorded")
        second = later / "-home-me-kiln" / "newer.jsonl"
        write_session(second, "newer")
        waited(lambda: recorded(env, second), log, "a later session in it recorded")
        assert proc.poll() is None
    assert f"{later} is there: reading it" in log.read_text()


def test_watch_once_refuses_a_root_that_does_not_exist(env: dict[str, str], tmp_path: Path) -> None:
    done = run_cli("watch", "--once", str(tmp_path / "nowhere"), env=env)
    assert done.returncode == 2
    assert f"{tmp_path / 'nowhere'}: no such file or folder" in done.stderr
    assert "Traceback" not in done.stderr
