"""A value the database refuses, as an error of the input rather than a crash.

PostgreSQL checks what SQLite does not (a `VARCHAR(200)` longer than 200 characters, an integer out of its
column's range); such a refusal is the input's fault, never the database being down (that is an
OperationalError, ridden out by `watch` and the workers). The recording paths raise it as `ValueRefused`
with the database's one-line reason, masked: the statement and its values (which may hold what credential
masking left, or a whole transcript) never reach a message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DataError

from summarizer.domain import secrets
from summarizer.domain.errors import ValueRefused

MAX_REASON_CHARS = 200


@contextmanager
def values_checked() -> Iterator[None]:
    """Run a recording; a value the database refuses is raised as `ValueRefused`."""
    try:
        yield
    except DataError as exc:
        raise ValueRefused(
            f"the database refused a value: {refusal(exc)}; nothing of it was stored"
        ) from None


def refusal(exc: DataError) -> str:
    """The database's reason, its first line only (the driver's error; never SQLAlchemy's statement and
    parameters), masked and bounded."""
    cause = exc.orig if exc.orig is not None else exc
    said = next((line.strip() for line in str(cause).splitlines() if line.strip()), type(cause).__name__)
    said = secrets.redact(said)
    return said if len(said) <= MAX_REASON_CHARS else said[: MAX_REASON_CHARS - 1] + "…"
