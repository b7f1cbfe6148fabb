"""Which kind of provider-scoped failure an LLM error is, for the circuit breaker.

`provider_errors.is_provider_scoped` says whether every agent's call would fail the same way; this names
how: `auth`, `quota` and `connection` (and a model the server does not offer, `not_found`) open the
breaker at once; `overloaded`, `rate_limit` and `server` only after a run of them with no success between
(one 529 is a hiccup, a run of them is an outage). Anything else is the agent's own failure.
"""

from __future__ import annotations

from typing import Final

from summarizer.engine.ports import LLMError
from summarizer.llm.provider_errors import MissingCredentials, ProviderUnreachable, is_provider_scoped

AUTH: Final = "auth"
QUOTA: Final = "quota"
NOT_FOUND: Final = "not_found"
CONNECTION: Final = "connection"
OVERLOADED: Final = "overloaded"
RATE_LIMIT: Final = "rate_limit"
SERVER: Final = "server"

IMMEDIATE: Final = frozenset({AUTH, QUOTA, NOT_FOUND, CONNECTION})
COUNTED: Final = frozenset({OVERLOADED, RATE_LIMIT, SERVER})


def fault_kind(error: BaseException) -> str | None:
    """The provider-scoped kind of `error`; None for an agent-scoped (or non-LLM) failure."""
    if not isinstance(error, LLMError) or not is_provider_scoped(error):
        return None
    if isinstance(error, MissingCredentials):
        return AUTH
    if isinstance(error, ProviderUnreachable):
        return CONNECTION
    status = error.status
    if status in (401, 403):
        return AUTH
    if status == 402:
        return QUOTA
    if status == 404:
        return NOT_FOUND
    if status == 429:
        return RATE_LIMIT
    if status in (503, 529):
        return OVERLOADED
    return SERVER
