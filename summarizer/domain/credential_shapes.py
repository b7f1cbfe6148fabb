"""Provider keys and tokens recognised by their own shape, wherever they stand.

The facts (prefixes, lengths, alphabets) are those the maintained secret scanners publish for each
provider (gitleaks' rule set, detect-secrets' plugins). Boundaries do not depend on `_` or `-`: a key is
found after `__` (Markdown bold), `_` or `MY_KEY_`, and a run of key characters that ends in `_` or `-`
loses them before it is masked (`__sk-ant-...__` keeps its closing `__`). A key is only refused where a
letter or digit touches its prefix (`task-...` does not hold an `sk-` key).

Linear time: each shape is one expression that opens with its literal prefix (the engine jumps from one
occurrence to the next), checks its left neighbour with a look-behind placed after the literal and consumes
its run possessively. A text is searched only for the shapes whose prefix it holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from summarizer.domain.credential_values import mask

_RUN = "[A-Za-z0-9_-]*+"
_ALNUM_RUN = "[A-Za-z0-9]*+"
_END = "(?![A-Za-z0-9])"


def _mixed(body: str) -> bool:
    return (
        any(c.isdigit() for c in body) and any(c.isupper() for c in body) and any(c.islower() for c in body)
    )


def _has_digit(body: str) -> bool:
    return any(c.isdigit() for c in body)


def _any(_body: str) -> bool:
    return True


def _aws_key_id(body: str) -> bool:
    """Not an elided example (`AKIAXXXXXXXXXXXXXXXX`)."""
    return len(set(body)) >= 6


def _openai(body: str) -> bool:
    """`sk-proj-`, `sk-svcacct-`, `sk-admin-` keys, the legacy `sk-` + 48, or any long mixed-case run."""
    return body.startswith(("proj-", "svcacct-", "admin-", "None-")) or "T3BlbkFJ" in body or _mixed(body)


@dataclass(frozen=True)
class Shape:
    literal: str
    """What the text must hold, case-sensitively, for the shape to be searched for."""
    kind: str
    rest: str
    """The expression after the literal."""
    min_body: int = 0
    """Fewest characters after the literal (after trailing `_` and `-` are dropped)."""
    check: Callable[[str], bool] = _any
    """Judges the characters after the literal."""

    def compiled(self) -> re.Pattern[str]:
        literal = re.escape(self.literal)
        return re.compile(f"{literal}(?<![A-Za-z0-9]{literal}){self.rest}")


SHAPES: tuple[Shape, ...] = (
    Shape("sk-ant-", "anthropic-key", _RUN, 20),
    Shape("sk-", "openai-key", _RUN, 20, _openai),
    Shape("sk_", "stripe-key", f"(?:live|test|prod)_{_ALNUM_RUN}", 15),
    Shape("rk_", "stripe-key", f"(?:live|test|prod)_{_ALNUM_RUN}", 15),
    Shape("whsec_", "stripe-key", _ALNUM_RUN, 24),
    *(
        Shape(p, "aws-key", f"[A-Z0-9]{{16}}{_END}", 16, _aws_key_id)
        for p in ("AKIA", "ASIA", "ABIA", "ACCA")
    ),
    Shape("gh", "github-token", f"[pousr]_{_ALNUM_RUN}", 32),
    Shape("github_pat_", "github-token", "[A-Za-z0-9_]*+", 22),
    Shape("gl", "gitlab-token", f"(?:pat|ptt|dt|rt|cbt|ft|imt|oas|soat|agent)-{_RUN}", 24, _has_digit),
    Shape("GR1348941", "gitlab-token", _RUN, 20),
    Shape("xox", "slack-token", "[abposer]-[A-Za-z0-9-]*+", 12, _has_digit),
    Shape("xapp-", "slack-token", "[0-9]-[A-Za-z0-9-]*+", 12),
    Shape("hooks.slack.com/", "slack-webhook", "(?:services|workflows|triggers)/[A-Za-z0-9+/_-]*+", 30),
    Shape("AIza", "google-api-key", f"[A-Za-z0-9_-]{{35}}{_END}"),
    Shape("ya29.", "google-token", _RUN, 20, _has_digit),
    Shape("GOCSPX-", "google-client-secret", f"[A-Za-z0-9_-]{{28}}{_END}"),
    Shape("hf_", "huggingface-token", _ALNUM_RUN, 30, lambda b: not b.islower() and not b.isupper()),
    Shape("npm_", "npm-token", f"[A-Za-z0-9]{{36}}{_END}"),
    Shape("pypi-AgEIcHlwaS5vcmc", "pypi-token", _RUN, 50),
    Shape("SG.", "sendgrid-key", f"[A-Za-z0-9_-]{{22}}\\.[A-Za-z0-9_-]{{43}}{_END}"),
    Shape("do", "digitalocean-token", f"[opr]_v1_[a-f0-9]{{64}}{_END}"),
    Shape("shp", "shopify-token", f"(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}{_END}"),
    Shape("gsk_", "groq-key", _ALNUM_RUN, 40, _has_digit),
    Shape("xai-", "xai-key", _ALNUM_RUN, 50, _has_digit),
    Shape("dapi", "databricks-token", f"[a-f0-9]{{32}}{_END}"),
    Shape("SK", "twilio-key", f"[0-9a-fA-F]{{32}}{_END}", 32, lambda b: _has_digit(b) and not b.isdigit()),
    Shape("AGE-SECRET-KEY-1", "age-key", f"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{{58}}{_END}"),
    Shape("lin_api_", "linear-key", f"[A-Za-z0-9]{{40}}{_END}"),
    Shape("r8_", "replicate-token", f"[A-Za-z0-9]{{37}}{_END}", 37, _has_digit),
    Shape("PMAK-", "postman-key", f"[a-f0-9]{{24}}-[a-f0-9]{{34}}{_END}"),
    Shape("dp.pt.", "doppler-token", f"[A-Za-z0-9]{{43}}{_END}"),
)
_PASSES = tuple((shape, shape.compiled()) for shape in SHAPES)
_JWT_RX = re.compile(r"eyJ(?<![A-Za-z0-9]eyJ)[A-Za-z0-9_-]*+(?:\.[A-Za-z0-9_-]*+){0,2}+")
"""A JSON Web Token: three base64url parts, the first an encoded JSON object. The expression matches any
run that opens with `eyJ` (so a failed candidate is consumed, not retried from each later `eyJ` in it);
the replacement checks the three parts."""


def _split_tail(run: str) -> tuple[str, str]:
    """`run` without the `_` and `-` it ends with, and those characters."""
    kept = run.rstrip("_-")
    return kept, run[len(kept) :]


def _judged(shape: Shape, run: str) -> tuple[str, str] | None:
    """(the credential, what follows it in the run) when `run` is one of `shape`, else None."""
    value, tail = _split_tail(run)
    body = value[len(shape.literal) :]
    if len(body) < shape.min_body or not shape.check(body):
        return None
    return value, tail


def token_kind(token: str) -> str | None:
    """The kind of a provider key or token that is the whole of `token`, or None."""
    for shape, rx in _PASSES:
        if token.startswith(shape.literal) and rx.fullmatch(token):
            judged = _judged(shape, token)
            if judged is not None and not judged[1]:
                return shape.kind
    return jwt_kind(token)


def _jwt(value: str) -> bool:
    parts = value.split(".")
    return len(parts) == 3 and len(value) >= 30 and len(parts[1]) >= 8 and len(parts[2]) >= 8


def jwt_kind(token: str) -> str | None:
    return "jwt" if _JWT_RX.fullmatch(token) and _jwt(token) else None


def _replacer(shape: Shape) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        judged = _judged(shape, match.group(0))
        if judged is None:
            return match.group(0)
        value, tail = judged
        return mask(shape.kind, value) + tail

    return replace


_REPLACERS = tuple((shape.literal, rx, _replacer(shape)) for shape, rx in _PASSES)


def _replace_jwt(match: re.Match[str]) -> str:
    value, tail = _split_tail(match.group(0))
    if not _jwt(value):
        return match.group(0)
    return mask("jwt", value) + tail


_LONG_RUN = re.compile(r"[A-Za-z0-9_-]{16,}+")
"""Every shape holds a run of 16 or more key characters (a JWT's header, the part after `SG.` or `ya29.`),
at most 20 characters after its literal begins."""
LITERAL_REACH = 20
_FAR_LITERALS = frozenset({"hooks.slack.com/"})
"""Literals further than LITERAL_REACH from the long run of their shape: looked for in the whole text."""


def _near_long_runs(text: str) -> str:
    """The parts of `text` where a shape may start: each long run and the characters just before it."""
    return "\n".join(text[max(0, m.start() - LITERAL_REACH) : m.end()] for m in _LONG_RUN.finditer(text))


def mask_shapes(text: str) -> str:
    """`text` with every provider key and token masked. Only the literals found near a long run of key
    characters are searched for in the whole text."""
    near = _near_long_runs(text)
    if not near:
        return text
    for literal, rx, replace in _REPLACERS:
        if literal in (text if literal in _FAR_LITERALS else near):
            text = rx.sub(replace, text)
    if "eyJ" in near:
        text = _JWT_RX.sub(_replace_jwt, text)
    return text
