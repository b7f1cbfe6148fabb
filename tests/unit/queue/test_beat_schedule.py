"""Beat runs every periodic job, alert evaluation included, and the worker knows every task it schedules."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from summarizer.broker.celery_config import (
    MAINTENANCE_QUEUE,
    MIN_EXPIRES_SECONDS,
    QUEUE,
    TASK_AGE,
    TASK_AGE_PAGE,
    TASK_ALERTS,
    TASK_DISPATCH,
    TASK_RESCUE,
    TASK_UPDATE,
    beat_schedule,
    celery_config,
)
from summarizer.settings import load_settings


def test_beat_schedules_dispatch_rescue_aging_and_alerts() -> None:
    schedule = beat_schedule(load_settings(alert_interval=42, dispatch_interval=2))
    tasks = {entry["task"]: entry["schedule"] for entry in schedule.values()}
    assert tasks[TASK_ALERTS] == timedelta(seconds=42)
    assert tasks[TASK_DISPATCH] == timedelta(seconds=2)
    assert {TASK_RESCUE, TASK_AGE} <= set(tasks)


def test_every_scheduled_task_is_registered_by_the_worker() -> None:
    import workers.tasks  # noqa: F401  (registers the tasks on the app)
    from workers.app import app

    scheduled = {entry["task"] for entry in beat_schedule(load_settings()).values()}
    assert scheduled <= set(app.tasks.keys())


def test_periodic_messages_outlive_a_polling_broker() -> None:
    """The embedded filesystem broker is polled once a second: a short interval must not expire its jobs."""
    schedule = beat_schedule(load_settings(dispatch_interval=0.5, rescue_interval=0.5))
    assert all(entry["options"]["expires"] >= MIN_EXPIRES_SECONDS for entry in schedule.values())
    assert beat_schedule(load_settings(dispatch_interval=30))["dispatch"]["options"]["expires"] == 60


def test_a_redis_fleet_configuration_creates_no_local_folder(tmp_path: Path) -> None:
    from summarizer.broker.celery_config import celery_config

    data_dir = tmp_path / "data"
    conf = celery_config(load_settings(broker_url="redis://127.0.0.1:6379/9", data_dir=data_dir))
    assert conf["broker_url"].startswith("redis://")
    assert not data_dir.exists()
    celery_config(load_settings(broker_url="", data_dir=data_dir))
    assert (data_dir / "broker" / "queue").is_dir()  # the embedded broker lives in that folder


def test_periodic_work_has_its_own_queue_and_updates_keep_theirs() -> None:
    """Periodic messages never wait behind the update backlog: they go to the maintenance queue."""
    settings = load_settings()
    schedule = beat_schedule(settings)
    assert {entry["options"]["queue"] for entry in schedule.values()} == {MAINTENANCE_QUEUE}
    routes = celery_config(settings)["task_routes"]
    for task in (TASK_DISPATCH, TASK_RESCUE, TASK_AGE, TASK_AGE_PAGE, TASK_ALERTS):
        assert routes[task] == {"queue": MAINTENANCE_QUEUE}
    assert TASK_UPDATE not in routes
    assert MAINTENANCE_QUEUE != QUEUE


def test_an_update_worker_reserves_a_maintenance_consumer() -> None:
    from workers.maintenance import maintenance_command

    argv = maintenance_command("INFO", MAINTENANCE_QUEUE)
    assert argv[argv.index("-Q") + 1] == MAINTENANCE_QUEUE
    assert "--no-maintenance-slot" in argv  # the child never starts a slot of its own
