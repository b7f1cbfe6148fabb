"""A fallback chain: an LLM that answers from a second provider while the first one is down.

Only provider-scoped failures (credentials, quota, overload, an unreachable server) move calls to the
fallback: the failing call is answered by the fallback at once, and so is every call while the primary's
health says open. A request-scoped failure (a bad batch, a refusal, a cut-off answer) is raised as it is:
another provider would not make that batch good. An answer from the fallback says so in `extra`.
"""

from __future__ import annotations

from dataclasses import replace

from summarizer.engine.ports import LLM, LLMAnswer, LLMError, LLMRequest
from summarizer.llm.provider_errors import is_provider_scoped
from summarizer.llm.provider_health import ProviderHealth


class FallbackLLM:
    def __init__(
        self, primary: LLM, fallback: LLM, health: ProviderHealth, *, fallback_name: str = "fallback"
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self.health = health
        self._fallback_name = fallback_name

    def complete(self, request: LLMRequest) -> LLMAnswer:
        if not self.health.allow_call():
            return self._from_fallback(request, reason="primary provider open")
        try:
            answer = self.primary.complete(request)
        except LLMError as exc:
            if not is_provider_scoped(exc):
                self.health.record_success()
                raise
            self.health.record_failure(exc)
            return self._from_fallback(request, reason=str(exc))
        except BaseException:
            self.health.record_success()  # not the provider's failure: release a probe, keep it closed
            raise
        self.health.record_success()
        return answer

    def _from_fallback(self, request: LLMRequest, *, reason: str) -> LLMAnswer:
        answer = self.fallback.complete(request)
        extra = {**answer.extra, "fallback": self._fallback_name, "fallback_reason": reason[:300]}
        return replace(answer, extra=extra)  # every figure kept: tokens, cache reads and writes, model
