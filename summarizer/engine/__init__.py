"""The summary engine: the structured tiered summary, the operations the LLM answers with, the gate,
the cost ladder, aging and the hard token cap. Pure: the LLM is a port, the token counter is passed in.
"""

from summarizer.engine.engine import AgingOutcome, EngineConfig, SummaryEngine, UpdateOutcome
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.ladder import LadderConfig, UpdatePath
from summarizer.engine.model import Importance, Summary, SummaryItem, Tier
from summarizer.engine.ports import (
    LLM,
    AnswerUnusable,
    LLMAnswer,
    LLMPermanentError,
    LLMRequest,
    LLMTransientError,
)
from summarizer.engine.provenance import (
    ForgetReason,
    Forgotten,
    exchange_citations,
    partition_problems,
)
from summarizer.engine.render import NO_SUMMARY_YET, SUMMARY_UNAVAILABLE, render_summary

__all__ = [
    "LLM",
    "NO_SUMMARY_YET",
    "SUMMARY_UNAVAILABLE",
    "AgingOutcome",
    "AnswerRejected",
    "AnswerUnusable",
    "EngineConfig",
    "ForgetReason",
    "Forgotten",
    "Importance",
    "LLMAnswer",
    "LLMPermanentError",
    "LLMRequest",
    "LLMTransientError",
    "LadderConfig",
    "Summary",
    "SummaryEngine",
    "SummaryItem",
    "Tier",
    "UpdateOutcome",
    "UpdatePath",
    "exchange_citations",
    "partition_problems",
    "render_summary",
]
