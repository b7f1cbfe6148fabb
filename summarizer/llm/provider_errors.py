"""What both SDK adapters share about failures: retry-after headers, and which failures are the provider's.

A provider-scoped failure (credentials, quota, overload, an unreachable server, a model the server does not
offer) would fail the same way for every agent; a request-scoped one (a bad request, a refusal, an answer
cut short or malformed) belongs to one batch. The fallback chain switches providers only on the first kind.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping

from summarizer.engine.ports import LLMError, LLMPermanentError, LLMTransientError

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
