"""Values assigned to a name that says it is secret: `password=...`, `DB_PASSWORD: ...`, `"api_key": "..."`,
`SUMMARIZER_API_TOKENS=a,b`, `client_secret='...'`, `?token=...`, in singular or plural.

A name is strong when it says so outright (password, passphrase, secret, token, api/access/private key):
any literal under it is masked unless it is a placeholder or an expression. A name is weak when it may as
well name ordinary data (`key`, `auth`, `credential`): its value is masked only when it reads as random
key material. A bare value runs to the next whitespace or quote, so `password=Tr0ub4dor&3xQ9z` is masked
whole; only a URL query (`?token=...&x=1`), a following `name=` (`password=a;user=b`) or trailing
punctuation ends it sooner.
"""

from __future__ import annotations

import re
from functools import lru_cache

from summarizer.domain.credential_shapes import token_kind
from summarizer.domain.credential_values import (
    MASK_PREFIX,
    key_material,
    looks_random,
    mask,
    placeholder,
    secret_value,
)

_KEYWORD_RX = re.compile(
    r"(?:passw(?:or)?d|passphrase|pass|pwd|secret|token|key|credential|auth)s?(?![a-z0-9])"
)
"""The end of a secret-looking name, searched for in a lower-cased copy (a case-blind search costs more)."""
_VALUE_RX = re.compile(
    r"(?P<sep>\\?[\"'\]]?[ \t]*+(?::=|=>|=(?!=)|:(?![:/]))[ \t]*+)"
    r"(?:\\\"(?P<eq>[^\"\\\n]*+)\\\"|\"(?P<dq>(?:[^\"\\\n]|\\.)*+)\"|'(?P<sq>(?:[^'\\\n]|\\.)*+)'"
    r"|`(?P<bq>[^`\n]*+)`|(?P<bare>[^\s\"'`]++))"
)
_QUOTES = {"eq": '\\"', "dq": '"', "sq": "'", "bq": "`"}
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-$")
_STRONG_KEY = re.compile(
    r"(?:api|access|secret|private|priv|client|auth|service|account|master|signing|encryption|license|db"
    r"|database|app|admin|ssh|gpg|pgp|deploy|consumer|session|webhook)[_.-]?keys?$"
)
_COUNTED = re.compile(
    r"(?:input|output|total|max|min|cached|reasoning|prompt|completion|num|n|context|thinking|budget|remaining"
    r"|used|read|creation|count|estimated|new|old|per|limit)[_.-]?tokens?$"
)
"""Token counts, not tokens: `input_tokens`, `maxTokens`, `total_tokens`."""
_NEXT_ASSIGNMENT = re.compile(r"[&;,](?=[A-Za-z_][\w.-]*+=)")
_TRAILING = ".,;:"
RESCAN_LIMIT = 256
"""A refused value longer than this is not searched again for the names inside it."""
MAX_WEAK_VALUE = 512
"""Longer values under a weak name (`key`, `auth`) are data, not key material."""
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_KEY_KINDS = {"api": "api-key", "access": "access-key", "private": "private-key", "priv": "private-key"}
_KINDS = (
    ("passphrase", "password"),
    ("passwd", "password"),
    ("password", "password"),
    ("pass", "password"),
    ("pwd", "password"),
    ("secret", "secret"),
    ("token", "token"),
    ("credential", "credential"),
    ("auth", "secret"),
)


@lru_cache(maxsize=1024)
def name_kind(name: str) -> tuple[str, bool] | None:
    """The kind of secret a field or variable name holds, and whether the name is strong (says so
    outright): `DB_PASSWORD` -> ("password", True), `MY_KEYS` -> ("key", False), `path` -> None."""
    folded = name.lower().rstrip("\"'] ")
    if _COUNTED.search(folded):
        return None
    if folded.endswith("s") and not folded.endswith(("pass", "ss")):
        folded = folded[:-1]
    for ending, kind in _KINDS:
        if folded.endswith(ending):
            bare = ending in {"pass", "pwd"} and len(folded) == len(ending)
            return (kind, not bare and kind != "credential" and ending != "auth")
    if folded.endswith("key"):
        strong = _STRONG_KEY.search(folded)
        if strong is None:
            return ("key", False)
        return (_KEY_KINDS.get(re.split(r"[_.-]?key", strong.group(0))[0], "key"), True)
    return None


def value_kind(name: str, value: str, *, quoted: bool = False) -> str | None:
    """The kind `value` is masked as under `name`, or None when it is left alone."""
    found = name_kind(name)
    if found is None or MASK_PREFIX in value:
        return None
    kind, strong = found
    if strong and kind == "password":
        kept = len(value) >= 3 and not placeholder(value) if quoted else secret_value(value)
    elif strong:
        kept = key_material(value)
    else:
        kept = len(value) <= MAX_WEAK_VALUE and looks_random(value)
    return (token_kind(value) or kind) if kept else None


def _bare_value(value: str, in_query: bool) -> str:
    """Where a bare value ends: a URL query's `&`, a following `name=`, or trailing punctuation."""
    if in_query:
        value = re.split(r"[&#]", value, maxsplit=1)[0]
    cut = _NEXT_ASSIGNMENT.search(value)
    if cut is not None:
        value = value[: cut.start()]
    while value:
        last = value[-1]
        if last in _TRAILING or (last in _CLOSERS and value.count(_CLOSERS[last]) < value.count(last)):
            value = value[:-1]
            continue
        break
    return value


def _name_start(lowered: str, keyword_start: int) -> int:
    start = keyword_start
    while start > 0 and keyword_start - start < 64 and lowered[start - 1] in _NAME_CHARS:
        start -= 1
    return start


def _masked_value(text: str, match: re.Match[str], name: str, in_query: bool) -> tuple[str, int] | None:
    """The replacement of the value part of `match`, and where the replaced span ends; None to keep it."""
    group = match.lastgroup or "bare"
    quote = _QUOTES.get(group)
    if quote is not None:
        quoted = match.group(group)
        kind = value_kind(name, quoted, quoted=True)
        if kind is None:
            return None
        return f"{match.group('sep')}{quote}{mask(kind, quoted)}{quote}", match.end()
    value = _bare_value(match.group("bare"), in_query)
    kind = value_kind(name, value) if value else None
    if kind is None:
        return None
    return f"{match.group('sep')}{mask(kind, value)}", match.start("bare") + len(value)


def mask_assignments(text: str, lowered: str) -> str:
    """`name=value` style assignments to secret-looking names masked. The names are found in `lowered`
    (`text` lower-cased, positions aligned); the value is only read where such a name ends."""
    out: list[str] = []
    done = floor = 0  # `floor`: no name before it is read again (masked already, or inside a long value)
    value_at = _VALUE_RX.match
    for found in _KEYWORD_RX.finditer(lowered):
        keyword_start, keyword_end = found.span()
        if keyword_start < floor:
            continue
        match = value_at(text, keyword_end)
        if match is None:
            continue
        start = _name_start(lowered, keyword_start)
        before = lowered[start - 1] if start > 0 else ""
        if before == "[":  # a mask already: `[secret:KIND …LAST]`
            continue
        replaced = _masked_value(text, match, text[start:keyword_end], before in ("?", "&"))
        if replaced is None:
            if match.end() - keyword_end > RESCAN_LIMIT:  # a long run is read once, not once per name in it
                floor = match.end()
            continue
        replacement, end = replaced
        out.append(text[done:keyword_end])
        out.append(replacement)
        done = floor = end
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)
