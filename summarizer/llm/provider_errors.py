"""What every SDK adapter shares about failures: how an SDK exception becomes an engine error, retry-after
headers, and which failures are the provider's.

`classify` is the one ladder from an SDK's exception to the engine's error classes; an adapter describes
its SDK in an `SdkErrors` (which classes mean a timeout, a connection failure, an HTTP status, missing
credentials, and where a status error keeps the API's message) and nothing else. Statuses in
`TRANSIENT_STATUSES` and every 5xx are retryable (a 429 is the rate-limited kind: it carries the server's
retry-after); any other status, and any other SDK failure, is permanent.

A provider-scoped failure (credentials, quota, overload, an unreachable server, a model the server does not
offer) would fail the same way for every agent; a request-scoped one (a bad request, a refusal, an answer
cut short or malformed) belongs to one batch. The fallback chain switches providers only on the first kind.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from summarizer.engine.ports import LLMError, LLMPermanentError, LLMTransientError

TRANSIENT_STATUSES = frozenset({408, 409, 429})
"""Retryable 4xx statuses: request timeout, conflict, rate limit (every 5xx is retryable too)."""

PROVIDER_STATUSES = frozenset({401, 402, 403, 404, 429, 500, 502, 503, 504, 529})
"""HTTP statuses that say the provider (key, account, model name or service) is at fault, not the batch."""


class ProviderUnreachable(LLMTransientError):
    """No HTTP answer at all: connection refused, DNS failure, TLS failure."""


class MissingCredentials(LLMPermanentError):
    """The adapter has no API key to send."""


def is_provider_scoped(error: LLMError) -> bool:
    if isinstance(error, ProviderUnreachable | MissingCredentials):
        return True
    return error.status in PROVIDER_STATUSES


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date); None when absent."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        return max(0.0, email.utils.mktime_tz(parsed) - time.time())


@dataclass(frozen=True, slots=True)
class SdkErrors:
    """How one SDK reports failures: the exception classes `classify` reads, most specific first."""

    base: type[Exception]
    """Every exception the SDK raises for a failed call derives from it."""
    timeout: type[Exception]
    connection: type[Exception]
    """No HTTP answer (the SDKs derive `timeout` from it, so it is tested second)."""
    status: type[Exception]
    """An HTTP answer with an error status: has `status_code` and `response`."""
    api_message: Callable[[Any], str]
    """The API's own message of a `status` error."""
    no_credentials: str
    """What a missing key says, naming the variable to set."""
    credentials: tuple[type[Exception], ...] = ()
    connection_cause: bool = False
    """True: a connection error shows the underlying network error (the SDK's own text is generic)."""


def is_retryable_status(status: int) -> bool:
    return status >= 500 or status in TRANSIENT_STATUSES


def classify(error: BaseException, sdk: SdkErrors) -> LLMTransientError | LLMPermanentError:
    """The engine error for a failure raised by the SDK `sdk` describes."""
    if isinstance(error, sdk.credentials):
        return MissingCredentials(f"{sdk.no_credentials}: {error}")
    if isinstance(error, sdk.timeout):
        return LLMTransientError(f"request timed out: {error}")
    if isinstance(error, sdk.connection):
        shown = (error.__cause__ or error) if sdk.connection_cause else error
        return ProviderUnreachable(f"connection error: {shown}")
    if isinstance(error, sdk.status):
        failed: Any = error
        status: int = failed.status_code
        detail = sdk.api_message(failed)
        if is_retryable_status(status):
            return LLMTransientError(
                f"HTTP {status}: {detail}",
                status=status,
                retry_after=retry_after_seconds(failed.response.headers),
            )
        return LLMPermanentError(f"HTTP {status}: {detail}", status=status)
    return LLMPermanentError(f"{type(error).__name__}: {error}")
