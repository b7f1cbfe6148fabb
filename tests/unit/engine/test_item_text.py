"""The non-answer detector and the text hygiene, against real error strings.

Every string in REAL_ERRORS was seen in the wild; its source is named next to it. SDK_ERRORS are produced
by the installed Anthropic SDK itself from real API error bodies.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import pytest

from summarizer.engine.errors import AnswerRejected
from summarizer.engine.item_text import has_visible_content, non_answer, sanitize, text_problem
from summarizer.engine.validation import GateContext, validate_answer
from tests.unit.engine.helpers import add_op

REAL_ERRORS: list[tuple[str, str]] = [
    # anthropic-sdk-python str(APIStatusError), quoted in github.com/0ca/BoxPwnr/issues/69
    (
        "Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}",
        "BoxPwnr#69",
    ),
    # Claude Code, github.com/anthropics/claude-code/issues/61365
    (
        "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. "
        "If it persists, check status.claude.com.",
        "claude-code#61365",
    ),
    # Claude Code, github.com/anthropics/claude-code/issues/63567
    ("API Error: 529 Overloaded.", "claude-code#63567"),
    # Claude Code, github.com/anthropics/claude-code/issues/5184
    (
        'API Error (529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}) '
        "· Retrying in 1 seconds… (attempt 1/10)",
        "claude-code#5184",
    ),
    # Claude Code, github.com/anthropics/claude-code/issues/39745
    (
        'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded. '
        'https://docs.claude.com/en/api/errors"},"request_id":"req_011CZTEFvft13DajMTp9pp64"}',
        "claude-code#39745",
    ),
    # Claude Code, github.com/anthropics/claude-code/issues/89143
    ("529 Overloaded", "claude-code#89143"),
    # Claude Code, github.com/anthropics/claude-code/issues/7218
    ("API Error: Operation aborted", "claude-code#7218"),
    # Claude Code, github.com/anthropics/claude-code/issues/2919
    ("API Error (Request timed out.) · Retrying in 8 seconds… (attempt 5/10)", "claude-code#2919"),
    # Anthropic API body quoted in github.com/anthropics/claude-code/issues/66314
    (
        'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is '
        'too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}',
        "claude-code#66314",
    ),
    # github.com/ex-machina-co/opencode-anthropic-auth/issues/167
    (
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade "
        "or purchase credits.",
        "opencode-anthropic-auth#167",
    ),
    # github.com/anthropics/claude-quickstarts/issues/229
    (
        "{'type': 'invalid_request_error', 'message': 'Your credit balance is too low to access the Anthropic "
        "API. Please go to Plans & Billing to upgrade or purchase credits.'}}",
        "claude-quickstarts#229",
    ),
    # continuedev/continue#5499 (title)
    (
        'HTTP 400 Bad Request from https://api.anthropic.com/v1/messages {"type":"error","error":{"type":'
        '"invalid_request_error","message":"Your credit balance is too low"}}',
        "continue#5499",
    ),
    # openai-python str(RateLimitError), github.com/langchain-ai/chat-langchain/issues/428
    (
        "Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan and "
        "billing details. For more information on this error, read the docs: https://platform.openai.com/docs/"
        "guides/error-codes/api-errors.', 'type': 'insufficient_quota', 'param': None, 'code': "
        "'insufficient_quota'}}",
        "chat-langchain#428",
    ),
    # openai-python, github.com/hitsz-ids/airda/issues/19
    (
        "openai.RateLimitError: Error code: 429 - {'error': {'message': 'You exceeded your current quota, "
        "please check your plan and billing details.', 'type': 'insufficient_quota', 'param': None, "
        "'code': 'insufficient_quota'}}",
        "airda#19",
    ),
    # github.com/continuedev/continue/issues/10835
    (
        "429 You exceeded your current quota, please check your plan and billing details. For more "
        "information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        "continue#10835",
    ),
    # OpenAI API body, github.com/Center-for-AI-Innovation/ai-ta-backend/issues/67
    (
        "{'message': 'You exceeded your current quota, please check your plan and billing details.', "
        "'type': 'insufficient_quota', 'param': None, 'code': 'insufficient_quota'}",
        "ai-ta-backend#67",
    ),
    # openai-python InternalServerError from an Envoy proxy, github.com/openai/openai-python/issues/1626
    (
        "upstream connect error or disconnect/reset before headers. reset reason: connection failure, "
        "transport failure reason: delayed connect error: 111",
        "openai-python#1626",
    ),
    # github.com/anthropics/claude-code/issues/8803
    (
        "503 upstream connect error or disconnect/reset before headers. reset reason: remote connection "
        "failure, transport failure reason: delayed connect error: Connection refused",
        "claude-code#8803",
    ),
    # nginx/Cloudflare page in openai.InternalServerError, github.com/n3d1117/chatgpt-telegram-bot/issues/637
    (
        "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>"
        "\n<hr><center>cloudflare</center>",
        "chatgpt-telegram-bot#637",
    ),
    # github.com/yoheinakajima/babyagi/issues/64
    (
        'HTTP code 502 from API (<!DOCTYPE html>\n\n <html class="no-js" lang="en-US">\n<head>\n\n<title>'
        "api.openai.com | 502: Bad gateway</title>",
        "babyagi#64",
    ),
    # the same page, as an item could echo it
    (
        '<!DOCTYPE html>\n <html class="no-js" lang="en-US">\n<head>\n<title>api.openai.com | 502: Bad gateway',
        "babyagi#64",
    ),
    # Cloudflare text page, github.com/lencx/ChatGPT/issues/673
    (
        "Bad gateway\nThe web server reported a bad gateway error.\n\nRay ID: 7ab160c02b5ddb96\nError "
        "reference number: 502",
        "lencx/ChatGPT#673",
    ),
    # github.com/anomalyco/opencode/issues/35163
    ("HTTP 502 Bad Gateway", "opencode#35163"),
    # Anthropic API body, github.com/anthropics/claude-code/issues/24451
    (
        'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 128001 '
        '> 64000, which is the maximum allowed number of output tokens for claude-opus-4-5-20251101"}}',
        "claude-code#24451",
    ),
    # Gemini CLI, github.com/google-gemini/gemini-cli/issues/12214
    (
        '[API Error: [{ "error": { "code": 400, "message": "The input token count (134123) exceeds the maximum '
        'number of tokens allowed (131072).", "status": "INVALID_ARGUMENT" } } ]]',
        "gemini-cli#12214",
    ),
    # Claude Code stack trace, github.com/anthropics/claude-code/issues/35782
    (
        'Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} at generate '
        "(/$bunfs/root/src/entrypoints/cli.js:409:9268)",
        "claude-code#35782",
    ),
    # anthropic-sdk-python, anthropic/_exceptions.py APIConnectionError and APITimeoutError defaults
    ("Connection error.", "anthropic _exceptions.py"),
    (
        "Request timed out or interrupted. This could be due to a network timeout, dropped connection, or "
        "request cancellation. See https://docs.anthropic.com/en/api/errors#long-requests for more details.",
        "anthropic _exceptions.py",
    ),
    # openai-python APITimeoutError default
    ("Request timed out.", "openai _exceptions.py"),
    # a traceback from openai-python, github.com/yoheinakajima/babyagi/issues/64
    ('Traceback (most recent call last):\n  File "./babyagi.py", line 176, in <module>', "babyagi#64"),
    # the example forms of the filed problem
    ("HTTP 500: Internal server error", "filed problem"),
    ("Internal Server Error", "common HTTP reason phrase"),
    ("503 Service Unavailable", "common HTTP reason phrase"),
]

REFUSALS = [
    "I'm not able to help with that.",
    "I\u2019m not able to help summarize this conversation.",
    "Unfortunately, I am unable to summarize this content.",
    "Unfortunately I can't do that.",
    "I'm afraid I can't summarize this.",
    "I must decline this request.",
    "I won't be able to assist with this request.",
    "I apologize, but I cannot comply.",
    "Sorry, I can't help with summarizing this conversation.",
    "I can't help with summarizing this conversation.",  # the refusal text of the fake Messages API
    "The conversation mentions secrets, so I am not able to provide a summary.",
]

INVISIBLE = [
    "\u200b",
    "\u200b\u200b\u200b",
    "\u200b \u2060\ufeff",
    "\u00ad",
    " \u200d ",
    "...",
    "—",
    "\u3000",
]

ORDINARY = [
    "Fixed the 529 Overloaded handling: the worker now retries with backoff.",
    "Handled Error code 429 from the API by honouring retry-after.",
    "API error handling: added retries for 529 and 503.",
    "Investigated API errors (HTTP 500) from the billing service; root cause was a pool timeout.",
    "Internal server error on /login fixed by a null check in the session loader.",
    "Wrapped the login form in a <div> with a flex layout.",
    "Unfortunately the migration failed; rolled back and pinned PostgreSQL 15.",
    "User said the assistant cannot access the private repo; switched to a public fork.",
    "Debugged why the client can't connect; the proxy dropped TLS.",
    "Renamed overloaded_error handling into a retry policy module.",
    "Set the request timeout to 30 s after Request timed out errors in CI.",
    "Chose PostgreSQL over MySQL for JSONB and row locks.",
    "Added a 404 Not Found page and a 500 page to the web app.",
    "Traced the 502 Bad Gateway errors to nginx buffering; disabled proxy_buffering.",
    "Refactored the HTTP client; status 500 responses now raise ServerError.",
    "Implementó autenticación JWT con firma RS256.",
    "实现了 JWT 认证。",
]


def _sdk_errors() -> list[str]:
    """str() of the Anthropic SDK's own exceptions, built by the SDK from real API error bodies."""
    client = anthropic.Anthropic(api_key="test-key", base_url="http://127.0.0.1:9")
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages")
    bodies: list[tuple[int, Any]] = [
        (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        (500, {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}),
        (
            429,
            {
                "type": "error",
                "error": {
                    "type": "rate_limit_error",
                    "message": "Number of request tokens has exceeded your per-minute rate limit",
                },
            },
        ),
        (401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        (
            400,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "prompt is too long: 215000 tokens > 200000 maximum",
                },
            },
        ),
        (
            502,
            "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>",
        ),
        (503, "upstream connect error or disconnect/reset before headers. reset reason: overflow"),
    ]
    texts = []
    for status, body in bodies:
        content = json.dumps(body) if not isinstance(body, str) else body
        response = httpx2.Response(status, content=content.encode(), request=request)
        texts.append(str(client._make_status_error_from_response(response)))
    texts.append(str(anthropic.APIConnectionError(request=request)))
    texts.append(str(anthropic.APITimeoutError(request=request)))
    return texts


@pytest.mark.parametrize(
    ("text", "source"), REAL_ERRORS, ids=[f"{i}-{s}" for i, (_, s) in enumerate(REAL_ERRORS)]
)
def test_real_api_error_strings_are_not_summaries(text: str, source: str) -> None:
    assert non_answer(sanitize(text)) is not None, source


def test_the_sdk_own_error_strings_are_not_summaries() -> None:
    texts = _sdk_errors()
    assert len(texts) == 9
    assert texts[0].startswith("Error code: 529 - {")
    assert [t for t in texts if non_answer(t) is None] == []


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_not_summaries(text: str) -> None:
    assert non_answer(text) == "refusal" or non_answer(text) == "apology"


@pytest.mark.parametrize("text", INVISIBLE)
def test_invisible_text_is_not_a_summary(text: str) -> None:
    assert not has_visible_content(text)
    assert text_problem(sanitize(text), 200) is not None


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_summaries_pass(text: str) -> None:
    assert text_problem(text, 200) is None


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Added JWT\x00 auth", "Added JWT auth"),
        ("\x1b[31mred\x1b[0m text", "red text"),
        ("bell\x07 and \x7fdel and \x85next", "bell and del and next"),
        ("keeps\ttabs\nand newlines", "keeps\ttabs\nand newlines"),
        ("lone \ud800 surrogate", "lone  surrogate"),
        ("title \x1b]0;pwned\x07 set", "title  set"),
        ("plain text", "plain text"),
        ("fixed in \u202egnp.exe\u202c today", "fixed in gnp.exe today"),
        ("\u2066isolated\u2069 \u200eLTR\u200f mark \u061c", "isolated LTR mark "),
        ("Hebrew \u05e9\u05dc\u05d5\u05dd stays", "Hebrew \u05e9\u05dc\u05d5\u05dd stays"),
    ],
)
def test_sanitize_strips_control_characters(raw: str, clean: str) -> None:
    assert sanitize(raw) == clean
    clean.encode("utf-8")  # storable


def test_the_gate_stores_no_control_characters() -> None:
    ctx = GateContext(batch_exchange_ids=[1], visible_items={}, max_item_chars=200)
    ops = validate_answer(
        {"add": [add_op([1], text="Added\x00 JWT \x1b[1mauth\x1b[0m.")], "drop": []},
        ctx,
    )
    assert ops.add[0].text == "Added JWT auth."
    with pytest.raises(AnswerRejected, match="empty text"):
        validate_answer({"add": [add_op([1], text="\x00\x00\x1b[0m")]}, ctx)
    with pytest.raises(AnswerRejected, match="without a letter or digit"):
        validate_answer({"add": [add_op([1], text="\u200b\u200b")]}, ctx)
    dropped = validate_answer(
        {"add": [], "drop": [{"exchange_ids": [1], "reason": "noise\x00" + "x" * 400}]}, ctx
    )
    assert "\x00" not in dropped.drop[0].reason
    assert len(dropped.drop[0].reason) == 300
