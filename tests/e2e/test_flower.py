"""`summarizer flower`: refuses to run without credentials, and monitors a real worker fleet when it runs.

The fleet tests share one stack (a private Redis, a worker on PostgreSQL with the fake LLM, Flower on a free
port, summary tasks already run) to keep the module quick; the browser test loads Flower's tasks page in
headless Chromium and keeps a screenshot in the test's temporary directory.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest
from celery import Celery
from click.testing import CliRunner

from summarizer.broker.celery_config import QUEUE, TASK_AGE, TASK_UPDATE, celery_config
from summarizer.broker.wakeup import CeleryWakeup
from summarizer.cli import commands_flower
from summarizer.cli.main import cli
from summarizer.settings import SettingsError, load_settings
from summarizer.storage.backends import connect_database
from tests.acceptance.cli import run_cli
from tests.e2e.flower_support import Browser, FlowerClient, basic_auth_header, require_chromium
from tests.support.fleet import Fleet, RedisServer, free_port, wait_for
from tests.support.workload import feed, make_store

CREDENTIALS = "ops:correct-horse-battery"
AGENTS = [f"flower-agent-{n}" for n in range(3)]

Test = TypeVar("Test", bound=Callable[..., None])


def fleet_test(test: Test) -> Test:
    """Marks of the tests that need the PostgreSQL and Redis services and start processes."""
    marked: Test = pytest.mark.slow(pytest.mark.postgres(pytest.mark.redis(test)))
    return marked


# --- the command itself: no Flower without valid credentials -------------------------------------------


@pytest.fixture
def exec_calls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[list[str], dict[str, str]]]:
    """Record what `summarizer flower` would exec instead of replacing the test process with Flower."""
    calls: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr(commands_flower, "_exec", lambda argv, env: calls.append((argv, env)))
    for name in ("SUMMARIZER_FLOWER_BASIC_AUTH", "FLOWER_BASIC_AUTH", "FLOWER_MAX_TASKS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SUMMARIZER_BROKER_URL", "redis://127.0.0.1:6379/15")
    monkeypatch.setenv("SUMMARIZER_DATA_DIR", str(tmp_path / "data"))
    return calls


def test_the_real_command_refuses_to_start_without_credentials(tmp_path: Path) -> None:
    env = {
        "SUMMARIZER_BROKER_URL": "redis://127.0.0.1:6379/15",
        "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
        "FLOWER_BASIC_AUTH": "",
    }
    result = run_cli("flower", "--port", str(free_port()), env=env, timeout=60)
    assert result.returncode == 2, result
    assert "refuses to start without basic auth" in result.stderr
    assert "SUMMARIZER_FLOWER_BASIC_AUTH=user:password" in result.stderr
    assert "--insecure" in result.stderr
    assert "Visit me" not in result.stdout + result.stderr  # Flower's banner: it never started


def test_without_credentials_flower_is_never_started(exec_calls: list[object]) -> None:
    result = CliRunner().invoke(cli, ["flower"])
    assert result.exit_code == 2
    assert "refuses to start without basic auth" in result.output
    assert exec_calls == []


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("SUMMARIZER_FLOWER_BASIC_AUTH", "ops", "has no ':'"),
        ("SUMMARIZER_FLOWER_BASIC_AUTH", ":hunter2", "has an empty user"),
        ("SUMMARIZER_FLOWER_BASIC_AUTH", "ops:", "has an empty password"),
        ("SUMMARIZER_FLOWER_BASIC_AUTH", "ops:hunter2,,dev:hunter3", "entry 2 of"),
        ("FLOWER_BASIC_AUTH", "ops:hunter2,dev", "entry 2 of FLOWER_BASIC_AUTH has no ':'"),
    ],
)
def test_malformed_credentials_are_refused_without_echoing_them(
    exec_calls: list[object], monkeypatch: pytest.MonkeyPatch, variable: str, value: str, problem: str
) -> None:
    monkeypatch.setenv(variable, value)
    result = CliRunner().invoke(cli, ["flower"])
    assert isinstance(result.exception, SettingsError)
    message = str(result.exception)
    assert problem in message
    assert variable in message
    assert "hunter" not in message
    assert exec_calls == []


def test_credentials_reach_flower_through_its_environment_not_its_command_line(
    exec_calls: list[tuple[list[str], dict[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUMMARIZER_FLOWER_BASIC_AUTH", "ops:pw:with:colons, dev:other")
    monkeypatch.setenv("FLOWER_BASIC_AUTH", "ignored:because-ours-wins")
    monkeypatch.setenv("FLOWER_MAX_TASKS", "123")  # the user's own Flower settings win over our defaults
    result = CliRunner().invoke(cli, ["flower", "--port", "5601", "--", "--url_prefix=flower"])
    assert result.exit_code == 0, result.output
    [(argv, env)] = exec_calls
    assert argv == [
        sys.executable,
        *("-m", "celery", "-A", "workers.app", "flower"),
        *("--port=5601", "--address=127.0.0.1", "--url_prefix=flower"),
    ]
    assert not any("pw" in arg or "other" in arg for arg in argv)
    assert env["FLOWER_BASIC_AUTH"] == "ops:pw:with:colons,dev:other"
    assert "SUMMARIZER_FLOWER_BASIC_AUTH" not in env
    assert env["FLOWER_MAX_TASKS"] == "123"
    assert env["FLOWER_PERSISTENT"] == "False"
    assert env["FLOWER_PURGE_OFFLINE_WORKERS"] == "600"
    assert env["FLOWER_TASKS_COLUMNS"].startswith("name,args,")


def test_flowers_own_variable_is_accepted(
    exec_calls: list[tuple[list[str], dict[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWER_BASIC_AUTH", "ops:secret")
    assert CliRunner().invoke(cli, ["flower"]).exit_code == 0
    [(_, env)] = exec_calls
    assert env["FLOWER_BASIC_AUTH"] == "ops:secret"


def test_insecure_starts_without_auth_and_says_so(
    exec_calls: list[tuple[list[str], dict[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWER_BASIC_AUTH", "  ")  # blank: Flower would turn it into one empty credential
    result = CliRunner().invoke(cli, ["flower", "--insecure", "--address", "0.0.0.0"])
    assert result.exit_code == 0, result.output
    assert "WITHOUT authentication" in result.output
    assert "reachable from the network" in result.output
    [(_, env)] = exec_calls
    assert "FLOWER_BASIC_AUTH" not in env


def test_credentials_on_the_command_line_are_refused(exec_calls: list[object]) -> None:
    result = CliRunner().invoke(cli, ["flower", "--insecure", "--", "--basic_auth=ops:pw"])
    assert result.exit_code == 2
    assert "not on the command line" in result.output
    assert exec_calls == []


def test_the_embedded_broker_is_refused(exec_calls: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUMMARIZER_BROKER_URL", "")
    monkeypatch.setenv("SUMMARIZER_FLOWER_BASIC_AUTH", "ops:pw")
    result = CliRunner().invoke(cli, ["flower"])
    assert isinstance(result.exception, SettingsError)
    assert "SUMMARIZER_BROKER_URL" in str(result.exception)
    assert exec_calls == []


# --- a worker fleet monitored by Flower ---------------------------------------------------------------------


@dataclass(frozen=True)
class Stack:
    flower: FlowerClient
    fleet: Fleet
    task_ids: frozenset[str]


def _flower_sees_worker(client: FlowerClient) -> bool:
    """Flower's event receiver is live once a worker heartbeat has reached it (tasks sent before are lost)."""
    metrics = client.get("/metrics").body
    return re.search(r'^flower_worker_online\{worker="w1@[^"]+"\} 1\.0$', metrics, re.MULTILINE) is not None


def _finished(client: FlowerClient, expected: int) -> dict[str, dict[str, object]]:
    tasks = client.tasks()
    done = {uuid: t for uuid, t in tasks.items() if t.get("state") == "SUCCESS"}
    return done if len(done) >= expected else {}


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, postgres_url: str, redis_server_url: str
) -> Iterator[Stack]:
    """Redis, one worker and `summarizer flower`; wake-ups for AGENTS and one aging sweep, all finished."""
    workdir = tmp_path_factory.mktemp("flower")
    redis = RedisServer(workdir)
    db = connect_database(postgres_url)
    env = {
        "SUMMARIZER_DATABASE_URL": postgres_url,
        "SUMMARIZER_BROKER_URL": redis.url,
        "SUMMARIZER_DATA_DIR": str(workdir / "data"),
        "SUMMARIZER_LLM": "fake",
        "SUMMARIZER_BATCH_SIZE": "3",
        "SUMMARIZER_FLOWER_BASIC_AUTH": CREDENTIALS,
    }
    fleet = Fleet(env, workdir)
    settings = load_settings(broker_url=redis.url, data_dir=workdir / "data")
    wakeup = CeleryWakeup(settings)
    client_app = Celery("flower-test-client", set_as_current=False)
    client_app.config_from_object(celery_config(settings))
    try:
        redis.start()
        fleet.worker("w1", concurrency=2)
        port = free_port()
        fleet.cli("flower", "flower", "--port", str(port))
        flower = FlowerClient(port, CREDENTIALS)
        wait_for(lambda: _flower_sees_worker(flower), 60, "Flower to see worker w1")
        assert flower.get("/api/tasks").status == 200, "Flower does not accept the credentials"
        store = make_store(db)
        for agent_id in AGENTS:
            feed(store, agent_id, 5, on_queued=wakeup)  # 3 evictions: one batch, one wake-up each
        client_app.send_task(TASK_AGE, queue=QUEUE)  # by name, as the beat would
        wait_for(lambda: _finished(flower, len(AGENTS) + 1), 60, "Flower to list the finished tasks")
        yield Stack(flower, fleet, frozenset(_finished(flower, len(AGENTS) + 1)))
    finally:
        client_app.close()
        wakeup.close()
        fleet.close()
        redis.stop()
        db.dispose()


@fleet_test
def test_flower_lists_summarizer_tasks_under_readable_names(stack: Stack) -> None:
    tasks = stack.flower.tasks()
    names = sorted(str(tasks[uuid]["name"]) for uuid in stack.task_ids)
    assert names == sorted([TASK_UPDATE] * len(AGENTS) + [TASK_AGE])
    updates = [t for t in tasks.values() if t["name"] == TASK_UPDATE]
    for agent_id in AGENTS:  # the arguments are shown too: one wake-up per agent
        assert sum(agent_id in str(t["args"]) for t in updates) == 1, (agent_id, updates)
    assert all(str(t["worker"]).startswith("w1@") for t in updates)
    assert [t["result"] for t in updates] == ["'ok'"] * len(AGENTS)  # each update folded its batch
    types = stack.flower.get("/api/task/types")
    assert types.status == 200
    assert TASK_UPDATE in types.json()["task-types"]


@fleet_test
def test_flower_refuses_requests_without_valid_credentials(stack: Stack) -> None:
    for path in ("/api/tasks", "/api/workers", "/tasks", "/"):
        assert stack.flower.get(path, credentials=None).status == 401, path
        assert stack.flower.get(path, credentials="ops:wrong").status == 401, path
    assert stack.flower.get("/tasks").status == 200
    assert stack.flower.get("/api/workers?refresh=1").status == 200


@fleet_test
def test_the_password_is_in_flowers_environment_not_its_command_line(stack: Stack) -> None:
    pid = stack.fleet.procs["flower"].pid  # `summarizer flower` exec'd: the same process is Flower now
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert b"flower" in cmdline
    assert b"workers.app" in cmdline
    password = CREDENTIALS.split(":", 1)[1].encode()
    assert not any(password in arg for arg in cmdline)
    assert f"FLOWER_BASIC_AUTH={CREDENTIALS}".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(
        b"\0"
    )


@fleet_test
def test_prometheus_metrics_count_summarizer_task_events(stack: Stack) -> None:
    reply = stack.flower.get("/metrics")
    assert reply.status == 200
    assert reply.content_type.startswith("text/plain")
    succeeded = [
        line
        for line in reply.body.splitlines()
        if line.startswith("flower_events_total{")
        and f'task="{TASK_UPDATE}"' in line
        and 'type="task-succeeded"' in line
    ]
    assert len(succeeded) == 1, reply.body
    assert float(succeeded[0].rsplit(" ", 1)[1]) == len(AGENTS)
    runtime = rf'^flower_task_runtime_seconds_count\{{[^}}]*task="{re.escape(TASK_UPDATE)}"[^}}]*\}} {len(AGENTS)}\.0$'
    assert re.search(runtime, reply.body, re.MULTILINE), reply.body
    # Flower 2.x serves /metrics and /healthcheck without authentication, even with basic auth on; this
    # pins that fact (documented in commands_flower) so a change in Flower is noticed.
    assert stack.flower.get("/metrics", credentials=None).status == 200
    assert stack.flower.get("/healthcheck", credentials=None).body == "OK"


# --- the tasks page in a real browser ----------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> None:
    require_chromium()


@fleet_test
def test_tasks_page_in_headless_chromium(stack: Stack, chromium: None, tmp_path: Path) -> None:
    screenshot = tmp_path / "flower-tasks.png"  # kept with pytest's temporary directories, never in the repo
    browser = Browser(tmp_path)
    try:
        browser.start()
        browser.send_header_everywhere("Authorization", basic_auth_header(CREDENTIALS))
        browser.open(f"{stack.flower.base}/tasks")
        # The table is filled by an XHR after load; wait for every agent's row, not just the first.
        try:
            wait_for(
                lambda: all(a in browser.page_text() for a in AGENTS) and TASK_UPDATE in browser.page_text(),
                30,
                "the tasks table to list the summary tasks",
            )
        except AssertionError:
            browser.screenshot(
                screenshot.with_name("flower-tasks-failed.png")
            )  # what the page showed instead
            raise
        text = browser.page_text()
        assert TASK_AGE in text
        assert "SUCCESS" in text
        assert "'ok'" in text  # the result column: the update's outcome
        browser.screenshot(screenshot)
    finally:
        browser.close()
    png = screenshot.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) > 20_000  # a rendered table, not a blank page
