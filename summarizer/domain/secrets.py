"""Secret masking for every text that is stored, logged, alerted, served or delivered.

Two nets: the values this process knows are secret (its API keys, tokens, passwords, the passwords inside its
URLs; registered once where the settings are read), replaced wherever they appear whatever they look like;
and patterns of well-known credential shapes (provider keys, Authorization headers, `user:password@` in a
URL, `api_key=...` pairs), for secrets this process was never told about. Pure Python: the engine's errors,
the storage writes and the log pipeline all use it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

MASK = "***"
MIN_SECRET_CHARS = 6
"""Shorter registered values are not masked as free text (they would blot out ordinary words)."""

PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # A password between "user:" and "@" in any scheme://user:password@host URL.
    (
        # Matched from its "://" (after any scheme character), not from the scheme's first letter: tried
        # from every letter of a long run, the scheme made a megabyte of text take minutes.
        re.compile(r"(?<=[a-zA-Z0-9+.-])(?P<head>://[^:/@\s]*:)(?!\[secret:)[^@\s/]+(?P<tail>@)"),
        rf"\g<head>{MASK}\g<tail>",
    ),
    # Provider API keys: Anthropic and OpenAI (sk-...), Groq (gsk_...), xAI (xai-...), Google (AIza...),
    # GitHub (ghp_... and friends), Hugging Face (hf_...), Slack (xox.-...).
    (
        re.compile(r"\b(?:sk-|gsk_|xai-|AIza|gh[pousr]_|github_pat_|hf_|xox[abprs]-)[A-Za-z0-9_-]{8,}"),
        MASK,
    ),
    # Authorization header values: Bearer / Basic credentials.
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"), rf"\1 {MASK}"),
    # key=value and "key": "value" forms for secret-looking keys inside free text. A credential mask from
    # stored content (`[secret:KIND …LAST]`, summarizer/domain/credentials.py) is left as it is.
    (
        re.compile(
            r"(?i)(?<!\[)\b(api[_-]?key|x-api-key|password|passwd|secret|token|authorization)"
            r"(\"?\s*[:=]\s*\"?)(?!\[secret:)([^\s\",;&]+)"
        ),
        rf"\1\2{MASK}",
    ),
)
_MIGHT_MATCH = re.compile(
    r"://|sk-|gsk_|xai-|AIza|gh[pousr]_|github_pat_|hf_|xox|bearer|basic|api[_-]?key|password|passwd|secret"
    r"|token|authorization",
    re.I,
)

_lock = threading.Lock()
_rules: list[Callable[[str], str]] = []
_known: frozenset[str] = frozenset()
_known_pattern: re.Pattern[str] | None = None


def register(values: Iterable[str]) -> None:
    """Add secret values this process knows (keys, tokens, passwords); each is masked wherever it
    appears from now on. URLs among them add their embedded password too."""
    global _known, _known_pattern
    found = set()
    for value in values:
        value = value.strip()
        if not value:
            continue
        password = url_password(value)
        if password:
            found.add(password)
        if len(value) >= MIN_SECRET_CHARS:
            found.add(value)
    with _lock:
        known = _known | {v for v in found if len(v) >= MIN_SECRET_CHARS}
        if known == _known:
            return
        _known = known
        # Longest first, so a key that contains another is masked whole.
        alternatives = sorted(known, key=len, reverse=True)
        _known_pattern = re.compile("|".join(re.escape(v) for v in alternatives)) if alternatives else None


def known_values() -> frozenset[str]:
    """The registered values (the same object until the next `register` or `forget_all` changes them)."""
    return _known


def forget_all() -> None:
    """Drop every registered value (tests that change settings within one process)."""
    global _known, _known_pattern
    with _lock:
        _known, _known_pattern = frozenset(), None


def url_password(text: str) -> str:
    """The password inside a `scheme://user:password@host` URL, or ""."""
    if "://" not in text or "@" not in text:
        return ""
    try:
        return urlsplit(text).password or ""
    except ValueError:
        return ""


def mask_url(url: str) -> str:
    """`url` with the password (if any) replaced by the mask: safe to print."""
    return redact(url)


def also_mask(rule: Callable[[str], str]) -> None:
    """Apply `rule` after this module's own patterns in every `redact` (the conversation rules of
    `credentials.py` register themselves here when imported, so a log line, an alert or an error never
    shows what a stored message would not, without this module importing them)."""
    if rule not in _rules:
        _rules.append(rule)


def redact(text: str) -> str:
    """`text` with every registered secret value and every known credential shape masked."""
    known = _known_pattern
    if known is not None:
        text = known.sub(MASK, text)
    if _MIGHT_MATCH.search(text):
        for pattern, replacement in PATTERNS:
            text = pattern.sub(replacement, text)
    for rule in _rules:
        text = rule(text)
    return text


def redact_optional(text: str | None) -> str | None:
    return None if text is None else redact(text)


def redact_json(value: object) -> object:
    """Every string inside a JSON-like value, masked (keys kept)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(v) for v in value]
    return value
