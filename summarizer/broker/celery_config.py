"""The Celery configuration, derived from Settings; shared by the worker app and by wake-up senders.

It lives here rather than in `workers` so that the host side (which must never import `workers`) can send
wake-ups with exactly the broker, queue and serializer the workers consume.

With no SUMMARIZER_BROKER_URL the broker is kombu's filesystem transport in the data directory: no server
at all, one worker process with its embedded beat. With a Redis URL it is the distributed fleet.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from summarizer.settings import Settings

QUEUE = "summarizer"
# The periodic work (dispatch, rescue, small-batch flush, aging, alert evaluation) has a queue of its own,
# consumed by every worker's reserved maintenance slot (workers/maintenance.py): a backlog of updates in
# QUEUE never delays it.
MAINTENANCE_QUEUE = "summarizer.maintenance"
CELERY_APP = "workers.app"
"""The Celery app every `celery -A` command line names (the module workers/app.py)."""
TASK_UPDATE = "summarizer.update_summary"
TASK_DISPATCH = "summarizer.dispatch"
TASK_AGE = "summarizer.age_summaries"
TASK_AGE_PAGE = "summarizer.age_page"
TASK_RESCUE = "summarizer.rescue_leases"
# kombu imports it by name when a connection is made, so importing this module stays cheap.
REDIS_TRANSPORT = "summarizer.broker.redis_transport:Transport"
TASK_ALERTS = "summarizer.evaluate_alerts"
MAINTENANCE_TASKS = (TASK_DISPATCH, TASK_RESCUE, TASK_AGE, TASK_AGE_PAGE, TASK_ALERTS)


def embedded_broker_folder(settings: Settings) -> Path:
    return settings.data_dir / "broker"


def celery_config(settings: Settings) -> dict[str, Any]:
    embedded = not settings.broker_url
    time_limit = settings.task_time_limit
    conf: dict[str, Any] = {
        "broker_url": settings.broker_url or "filesystem://",
        "broker_connection_retry_on_startup": True,
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_serializer": "json",
        "task_ignore_result": True,
        "task_default_queue": QUEUE,
        "task_routes": {name: {"queue": MAINTENANCE_QUEUE} for name in MAINTENANCE_TASKS},
        # The DB is the truth, the message only a wake-up: ack after the work, requeue if the worker dies.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_time_limit": time_limit,
        "task_soft_time_limit": max(1.0, time_limit - 10),
        "worker_pool": settings.worker_pool,
        "worker_concurrency": settings.worker_concurrency,
        "worker_hijack_root_logger": False,
        "worker_send_task_events": not embedded,
        "task_send_sent_event": not embedded,
        "beat_schedule": beat_schedule(settings),
        "beat_schedule_filename": str(settings.data_dir / "celerybeat-schedule"),
    }
    if embedded:  # a Redis fleet keeps nothing on disk here; the beat makes its schedule file's folder
        folder = embedded_broker_folder(settings)
        for sub in ("queue", "processed", "control"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        conf["broker_transport_options"] = {
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),
            "store_processed": False,
        }
        conf["worker_enable_remote_control"] = False
    else:
        # Redis redelivers an unacked message after the visibility timeout: keep it past the time limit,
        # or a long task would be delivered twice while still running.
        conf["broker_transport_options"] = {"visibility_timeout": int(time_limit * 2 + 60)}
        if settings.broker_url.startswith("redis://"):
            # kombu's Redis transport with a fix that keeps a worker alive through a broker outage.
            conf["broker_transport"] = REDIS_TRANSPORT
    return conf


# A periodic message older than its interval is superseded by the next one, so it may expire (that keeps
# a stopped fleet from finding a pile of them on restart); but never sooner than this: a broker that polls
# (kombu's filesystem transport checks once a second) would otherwise deliver every message of a short
# interval already expired, and the job would never run. The maintenance queue has reserved consumers,
# so a message waits there only behind other periodic work, never behind the update backlog.
MIN_EXPIRES_SECONDS = 30.0


def _expires(seconds: float) -> float:
    return max(MIN_EXPIRES_SECONDS, seconds)


def _periodic(expires: float) -> dict[str, Any]:
    return {"expires": _expires(expires), "queue": MAINTENANCE_QUEUE}


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    return {
        "dispatch": {
            "task": TASK_DISPATCH,
            "schedule": timedelta(seconds=settings.dispatch_interval),
            "options": _periodic(settings.dispatch_interval * 2),
        },
        "rescue-leases": {
            "task": TASK_RESCUE,
            "schedule": timedelta(seconds=settings.rescue_interval),
            "options": _periodic(settings.rescue_interval * 2),
        },
        "age-summaries": {
            "task": TASK_AGE,
            "schedule": timedelta(seconds=settings.aging_interval),
            "options": _periodic(settings.aging_interval),
        },
        "evaluate-alerts": {
            "task": TASK_ALERTS,
            "schedule": timedelta(seconds=settings.alert_interval),
            "options": _periodic(settings.alert_interval),
        },
    }
