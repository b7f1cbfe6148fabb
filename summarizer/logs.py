"""Structured logging for every process: JSON when output is not a terminal, readable columns when it is.

Every line carries an event name (a stable, machine-readable first argument such as "summary.truncated"),
a UTC timestamp and a level, plus whatever context is bound (agent_id, task_id...). Secrets are masked
before rendering: API keys, passwords inside URLs, authorization headers and any value under a key that
names a secret. Standard-library log records (Celery, Alembic) go through the same pipeline.
"""

from __future__ import annotations

import functools
import logging
import re
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any

import structlog

from summarizer.domain import credentials  # noqa: F401 - registers the conversation rules in redact
from summarizer.domain.secrets import MASK, redact

SECRET_KEY_PATTERN = re.compile(
    r"(api[_-]?key|authorization|password|passwd|secret|token|credentials?|auth)$", re.I
)
NOT_SECRET_KEYS = frozenset(
    {"tokens", "llm_input_tokens", "llm_output_tokens", "summary_tokens", "max_tokens"}
)


def redact_text(text: str) -> str:
    """Registered secret values and known credential shapes masked (see `summarizer.domain.secrets`)."""
    return redact(text)


@functools.lru_cache(maxsize=4096)
def _names_a_secret(key: str) -> bool:
    return key.lower() not in NOT_SECRET_KEYS and SECRET_KEY_PATTERN.search(key) is not None


def _redact_value(key: str, value: Any) -> Any:
    if isinstance(key, str) and _names_a_secret(key):
        return MASK if value not in (None, "") else value
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {k: _redact_value(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_redact_value("", v) for v in value)
    return value


def redact_secrets(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: mask secrets in every value of the event, recursively."""
    for key in list(event_dict):
        event_dict[key] = _redact_value(key, event_dict[key])
    return event_dict


def configure_logging(*, json: bool | None = None, level: str = "INFO") -> None:
    """Configure structlog and the standard library once per process (call where the process starts)."""
    as_json = not sys.stderr.isatty() if json is None else json
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        redact_secrets,
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if as_json
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
