"""What an item's text may be.

Two jobs, both on text that came from a model (untrusted):

- `sanitize` removes what must never be stored: NUL and the other control characters (except newline
  and tab), bidirectional controls (an override shows text other than it is), terminal escape sequences
  and lone surrogates. A NUL cannot go into a PostgreSQL JSONB
  column at all, and an escape sequence repaints the terminal of whoever prints the summary.
- `text_problem` says why a text is not a summary: empty or invisible, too long, or a refusal, an API
  error, an HTTP error body or an HTML page dressed up as one.

Each pattern is one way a non-answer looks, and each has a test built from real SDK and API error
strings. Most are anchored at the start of the text, so that an item may still report that a user "said
the build cannot start" or that the worker now "retries on 529 Overloaded".
"""

from __future__ import annotations

import re
import unicodedata

_ANSI_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# Control characters (newline and tab stay), lone surrogates, and the bidirectional controls (marks,
# embeddings, overrides, isolates): an override makes an item display as something other than it says.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def sanitize(text: str) -> str:
    """`text` without control characters (newline and tab stay), bidirectional controls, escape sequences
    or lone surrogates."""
    if text.isprintable():  # the usual case: nothing to strip
        return text
    return _CONTROL.sub("", _ANSI_ESCAPE.sub("", text))


def has_visible_content(text: str) -> bool:
    """At least one letter or digit: a text of spaces, zero-width characters or punctuation is not."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


_Q = "['\u2019]?"  # an apostrophe, straight or curly, or none
_I_WONT = (
    rf"i\s*(?:can\s*not|cannot|can{_Q}t|won{_Q}t|will\s+not|(?:am|{_Q}m)\s+(?:unable|not\s+able)"
    rf"|(?:must|have\s+to)\s+decline|(?:am|{_Q}m)\s+afraid|(?:do\s+not|don{_Q}t)\s+feel\s+comfortable)"
)
_LEAD_IN = r"(?:(?:unfortunately|regrettably|sadly|apologies|my\s+apologies|sorry|however)\W+)?"
_STATUS_PHRASES = (
    r"internal\s+server\s+error|bad\s+gateway|service\s+(?:temporarily\s+)?unavailable|gateway\s+time-?out"
    r"|too\s+many\s+requests|overloaded|request\s+timed\s+out|connection\s+error|network\s+error"
    r"|not\s+found|forbidden|unauthorized|bad\s+request|server\s+error|request\s+entity\s+too\s+large"
)
_PROVIDER_MESSAGES = (
    r"you\s+exceeded\s+your\s+current\s+quota|your\s+credit\s+balance\s+is\s+too\s+low"
    r"|rate\s+limit\s+(?:reached|exceeded)\s+for|this\s+request\s+would\s+exceed\s+(?:the|your)\s+rate\s+limit"
    r"|upstream\s+connect\s+error|upstream\s+request\s+timeout|could\s+not\s+resolve\s+authentication\s+method"
    r"|prompt\s+is\s+too\s+long|incorrect\s+api\s+key\s+provided|invalid\s+x-api-key|invalid\s+api\s+key"
    r"|the\s+server\s+had\s+an\s+error\s+while\s+processing|request\s+was\s+aborted"
    r"|request\s+timed\s+out\s+or\s+interrupted|the\s+model\s+is\s+(?:currently\s+)?overloaded"
    r"|the\s+engine\s+is\s+currently\s+overloaded|that\s+model\s+is\s+currently\s+overloaded"
)

_NON_ANSWER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("refusal", re.compile(rf"^\W*{_LEAD_IN}{_I_WONT}\b", re.I)),
    (
        "refusal",
        re.compile(
            rf"\bi\s*(?:can\s*not|cannot|can{_Q}t|won{_Q}t|will\s+not|(?:am|{_Q}m)\s+(?:unable|not\s+able))"
            r"\s+(?:to\s+)?(?:help|assist|comply|fulfil+|provide|summari[sz]e|process|complete)\b",
            re.I,
        ),
    ),
    ("apology", re.compile(rf"^\W*(?:i\s*{_Q}m\s+sorry\b|i\s+am\s+sorry\b|sorry,|i\s+apologi[sz]e)", re.I)),
    ("refusal", re.compile(r"\bas\s+an\s+(?:ai|a\.i\.|language\s+model)\b", re.I)),
    ("error text", re.compile(r"^\W*(?:error|exception|fatal)\s*:", re.I)),
    ("error text", re.compile(r"traceback \(most recent call last\)", re.I)),
    ("error text", re.compile(r"^\W*(?:[a-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)\b\s*[:(]")),
    ("error text", re.compile(r"^\W*(?:api\s+)?error\s+code\s*:?\s*\d{3}\b", re.I)),
    ("error text", re.compile(r"^\W*api\s+error\s*[:(]", re.I)),
    (
        "error text",
        re.compile(
            r"^\W*(?:https?(?:/\d(?:\.\d)?)?(?:\s+(?:code|error|status))?|status(?:\s+code)?)\s*:?\s*[1-5]\d\d\b",
            re.I,
        ),
    ),
    (
        "error text",
        re.compile(rf"^\W*[1-5]\d\d\s*[-:]?\s*(?:{_STATUS_PHRASES}|{_PROVIDER_MESSAGES})\b", re.I),
    ),
    ("error text", re.compile(rf"^\W*(?:{_STATUS_PHRASES})(?:\s*\(?[1-5]\d\d\)?)?\W*$", re.I)),
    ("error text", re.compile(rf"^\W*(?:{_PROVIDER_MESSAGES})", re.I)),
    ("error text", re.compile(r"\{\s*\\?['\"]type\\?['\"]\s*:\s*\\?['\"]error\\?['\"]", re.I)),
    (
        "error text",
        re.compile(r"\{\s*\\?['\"]error\\?['\"]\s*:\s*\{\s*\\?['\"](?:message|type|code)\\?['\"]", re.I),
    ),
    ("error text", re.compile(r"\\?['\"]type\\?['\"]\s*:\s*\\?['\"]\w+_error\\?['\"]", re.I)),
    (
        "error text",
        re.compile(r"^\W*[\[{(]\s*\\?['\"](?:type|error|message|code|status|detail)\\?['\"]\s*:", re.I),
    ),
    ("error text", re.compile(r"\bat\s+(?:async\s+)?[\w.$<>]+\s+\((?:file:|node:|/)")),
    ("HTML", re.compile(r"^\s*<[a-z!?/][^>]*>", re.I)),
    (
        "HTML",
        re.compile(
            r"<!doctype\s+html|<html[\s>]|</html\s*>|<body[\s>]|</body\s*>|<head\s*>|</head\s*>", re.I
        ),
    ),
    (
        "HTML",
        re.compile(
            r"\bthe\s+web\s+server\s+reported\s+an?\s+[\w ]{0,40}error\b|\bcloudflare\s+ray\s+id\b", re.I
        ),
    ),
)


def non_answer(text: str) -> str | None:
    """What kind of non-answer `text` is ("refusal", "error text", ...), or None when it reads as a summary."""
    for label, pattern in _NON_ANSWER_PATTERNS:
        if pattern.search(text):
            return label
    return None


def text_problem(text: str, max_chars: int) -> str | None:
    """Why this text cannot be an item's text, or None when it can. Give it sanitized text."""
    if not text.strip():
        return "empty text"
    if not has_visible_content(text):
        return f"text without a letter or digit: {text[:20]!r}"
    if len(text) > max_chars:
        return f"text of {len(text)} characters is over the limit of {max_chars}"
    label = non_answer(text)
    if label:
        return f"{label} instead of a summary: {text[:60]!r}"
    return None
