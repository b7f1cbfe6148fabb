"""Credentials pasted into a conversation, masked before the message is stored.

`secrets.py` masks the values this process knows and a few shapes in its own logs and errors; this module
masks what agents and users say: provider keys, cloud and forge tokens, JWTs, Authorization values, PEM
private keys, passwords in URLs and `password=...` style assignments. A credential becomes
`[secret:KIND …LAST]`: the kind and its last four characters (none for a value under 12 characters, where
four would give away a third of it), so the model and the reader still know one was there.

Linear time whatever the input: each shape is one expression that opens with its literal prefix (so the
engine jumps from one occurrence to the next), matches only where the prefix starts a run of the
characters it consumes (a look-behind placed after the literal) and consumes the run possessively, so no
character is read more than a few times; a megabyte of `sk-sk-sk-...` or `password=password=...` costs
one pass. A text is searched only for the shapes whose prefix it holds. A text without a credential
shape is returned unchanged (the same object), and masking twice changes nothing.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import replace

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.messages import NewMessage

MASK_PREFIX = "[secret:"
MIN_TAIL_CHARS = 12
"""Shorter credentials are masked without their last four characters."""

_TOKEN = r"[A-Za-z0-9_-]"
_KEY_PREFIXES = (
    *("sk-", "AKIA", "ASIA", "gh[pousr]_", "github_pat_", "glpat-", "xox[abprs]-", "xapp-", "AIza"),
    *("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
)


def _starting_a_run(literal: str, run: str = _TOKEN) -> str:
    """`literal`, matched only where it starts a run of `run` characters. The look-behind comes after the
    literal, so the engine skips ahead to where the literal occurs instead of trying every position."""
    return f"{literal}(?<!{run}{literal})"


# One expression per shape, each opening with its literal: an alternation of them all would be tried at
# every position of the text, and cost ten times as much.
_TOKEN_RXS = tuple(re.compile(f"{_starting_a_run(prefix)}{_TOKEN}*+") for prefix in _KEY_PREFIXES)
"""Provider keys and tokens, recognised by their prefix; the whole run is checked against its shape."""
_JWT_RX = re.compile(f"{_starting_a_run('eyJ', '[A-Za-z0-9_.-]')}{_TOKEN}++\\.{_TOKEN}++\\.{_TOKEN}++")
"""JSON Web Tokens: three base64url parts, the first an encoded JSON object."""
_SCHEME_RX = re.compile(
    rf"(?P<scheme>[Bb](?:earer|EARER|asic|ASIC)(?<!{_TOKEN}[Bb]earer)(?<!{_TOKEN}[Bb]EARER)"
    rf"(?<!{_TOKEN}[Bb]asic)(?<!{_TOKEN}[Bb]ASIC))[ \t]++(?P<credential>[A-Za-z0-9._~+/=-]++)"
)
"""Authorization header values."""
_URL_RX = re.compile(r"(?P<userinfo>://(?<=[A-Za-z0-9+.-]://)[^:/@\s]*+:)(?P<password>[^@\s/]++)@")
"""The password of scheme://user:password@host."""
_KEYWORDS = r"password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key"
_KEYWORD_RX = re.compile(r"a(?:pi|ccess)|p(?:ass(?:wor|wd|ph)|rivate)|secret|token")
"""Secret-looking names, searched for in a lower-cased copy (a case-blind search costs 20 times more)."""
_ASSIGNMENT_RX = re.compile(
    # password=..., "api_key": "...", TOKEN: ... (the key may carry any prefix: DB_PASSWORD, client_secret).
    rf"(?<!\[)(?P<key>(?i:{_KEYWORDS}))"
    r"(?P<sep>[\"']?[ \t]*+[:=][ \t]*+)"
    r"(?:\"(?P<dq>[^\"\\\n]++)\"|'(?P<sq>[^'\\\n]++)'|(?P<bare>[^\s\"'`,;&<>(){}\[\]]++))"
)
_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} )?PRIVATE KEY-----")
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]{1,20} )?PRIVATE KEY-----")
_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
AWS_SECRET_DISTANCE = 200
"""How near (in characters, either side) an access key id its secret access key is looked for."""

_SHAPES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("sk-ant-", "anthropic-key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}")),
    ("sk-proj-", "openai-key", re.compile(r"sk-proj-[A-Za-z0-9_-]{20,}")),
    (
        "sk-",
        "openai-key",
        re.compile(r"sk-(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}"),
    ),
    ("AKIA", "aws-key", re.compile(r"AKIA[A-Z0-9]{16}")),
    ("ASIA", "aws-key", re.compile(r"ASIA[A-Z0-9]{16}")),
    ("github_pat_", "github-token", re.compile(r"github_pat_[A-Za-z0-9_]{22,}")),
    ("gh", "github-token", re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}")),
    ("glpat-", "gitlab-token", re.compile(r"glpat-[A-Za-z0-9_-]{20,}")),
    ("xox", "slack-token", re.compile(r"xox[abprs]-(?=[A-Za-z0-9-]*[0-9])[A-Za-z0-9-]{10,}")),
    ("xapp-", "slack-token", re.compile(r"xapp-(?=[A-Za-z0-9-]*[0-9])[A-Za-z0-9-]{10,}")),
    ("AIza", "google-api-key", re.compile(r"AIza[0-9A-Za-z_-]{35}")),
    ("sk_", "stripe-key", re.compile(r"sk_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("rk_", "stripe-key", re.compile(r"rk_(?:live|test)_[A-Za-z0-9]{16,}")),
)
_KEY_KINDS = (
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("privatekey", "private-key"),
    ("secretkey", "secret"),
    ("secret", "secret"),
    ("accesskey", "access-key"),
    ("apikey", "api-key"),
    ("token", "token"),
)
_PLACEHOLDER_STARTS = ("$", "%", "<", "{", "*", "[", "(", "#", "@")
_NOT_VALUES = frozenset({"null", "none", "nil", "true", "false", "undefined", "required", "optional"})
_PLACEHOLDER_TEXT = (
    "test testing example sample dummy fake placeholder changeme change me your my here secret password pass "
    "passwd key token api dev local localhost postgres postgresql mysql redis user demo foo bar xxx"
)
_PLACEHOLDER_WORDS = frozenset(_PLACEHOLDER_TEXT.split())
"""A value made only of these words and digits (`postgres`, `test123`, `test_secret_key`, `changeme`) is the
default of an example or a test suite, not a credential: masking it would hide what the text is about."""
_WORDS = re.compile(r"[A-Za-z]++")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_.]*+")
_DIGITS = re.compile(r"[0-9.]++")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def mask(kind: str, value: str) -> str:
    """The mask of one credential: its kind, and its last four characters when it is long enough."""
    if len(value) < MIN_TAIL_CHARS:
        return f"{MASK_PREFIX}{kind}]"
    return f"{MASK_PREFIX}{kind} …{value[-4:]}]"


def token_kind(token: str) -> str | None:
    """The kind of a provider key or token that is the whole of `token`, or None."""
    for prefix, kind, shape in _SHAPES:
        if token.startswith(prefix) and shape.fullmatch(token):
            return kind
    return None


def key_kind(key: str) -> str | None:
    """The kind of secret a field or variable name holds (`DB_PASSWORD` -> password), or None."""
    folded = key.lower().replace("-", "").replace("_", "")
    for ending, kind in _KEY_KINDS:
        if folded.endswith(ending):
            return kind
    return None


def _placeholder(value: str) -> bool:
    return (
        not value
        or value.startswith(_PLACEHOLDER_STARTS)
        or value.lower() in _NOT_VALUES
        or set(value) <= {".", "x", "X", "*", "-", "_"}
        or _placeholder_words(value)
    )


def _placeholder_words(value: str) -> bool:
    words = _WORDS.findall(value) if len(value) <= 64 else []
    return bool(words) and all(word.lower() in _PLACEHOLDER_WORDS for word in words)


def _bare_value_kind(key_word: str, value: str) -> str | None:
    """The kind of an unquoted `key=value` value, or None when it reads as code or prose, not a secret:
    a name or dotted attribute (`password=password`, `token=self.token`), a number, a placeholder."""
    if _placeholder(value) or len(value) < 3 or _IDENTIFIER.fullmatch(value) or _DIGITS.fullmatch(value):
        return None
    return token_kind(value) or _assignment_kind(key_word)


def _assignment_kind(key_word: str) -> str:
    return key_kind(key_word) or "secret"


def _basic_credential(value: str) -> bool:
    """True for a `Basic` value that decodes to `user:password`."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _bearer_credential(value: str) -> bool:
    """True for a `Bearer` value that looks like a token, not a word of prose ("bearer tokens")."""
    return len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _replace_token(match: re.Match[str]) -> str:
    token = match.group(0)
    kind = token_kind(token)
    return mask(kind, token) if kind else token


def _replace_jwt(match: re.Match[str]) -> str:
    jwt = match.group(0)
    return mask("jwt", jwt) if len(jwt) >= 30 else jwt


def _replace_scheme(match: re.Match[str]) -> str:
    scheme, credential = match.group("scheme"), match.group("credential")
    if scheme.lower() == "basic":
        found = len(credential) >= 8 and _basic_credential(credential)
        return f"{scheme} {mask('basic-auth', credential)}" if found else match.group(0)
    if not _bearer_credential(credential):
        return match.group(0)
    return f"{scheme} {mask(token_kind(credential) or 'bearer', credential)}"


def _replace_url_password(match: re.Match[str]) -> str:
    password = match.group("password")
    if password.startswith(MASK_PREFIX) or _placeholder(password):
        return match.group(0)
    return f"{match.group('userinfo')}{mask('url-password', password)}@"


_SHAPE_PASSES: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    *(
        (prefix.split("[")[0].lower(), rx, _replace_token)
        for prefix, rx in zip(_KEY_PREFIXES, _TOKEN_RXS, strict=True)
    ),
    ("eyj", _JWT_RX, _replace_jwt),
    ("bearer", _SCHEME_RX, _replace_scheme),
    ("basic", _SCHEME_RX, _replace_scheme),
    ("://", _URL_RX, _replace_url_password),
)
"""Each pass with the lower-case text a text must hold for the pass to find anything."""
_ASSIGNMENT_TRIGGERS = ("api", "access", "pass", "private", "secret", "token")


def _replace_assignment(match: re.Match[str]) -> str:
    whole = match.group(0)
    key_word, sep = match.group("key"), match.group("sep")
    for quote, group in (('"', "dq"), ("'", "sq")):
        quoted: str | None = match.group(group)
        if quoted is not None:
            if _placeholder(quoted) or len(quoted) < 3:
                return whole
            kind = token_kind(quoted) or _assignment_kind(key_word)
            return f"{key_word}{sep}{quote}{mask(kind, quoted)}{quote}"
    bare = match.group("bare")
    found = _bare_value_kind(key_word, bare)
    return f"{key_word}{sep}{mask(found, bare)}" if found else whole


def _mask_assignments(text: str) -> str:
    """`key=value` style assignments masked: the names are found in a lower-cased copy, and the full
    expression is tried (case-blind) only where one starts."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer: keep positions aligned
        lowered = text.translate(_ASCII_LOWER)
    out: list[str] = []
    done = 0
    for found in _KEYWORD_RX.finditer(lowered):
        if found.start() < done:
            continue
        match = _ASSIGNMENT_RX.match(text, found.start())
        if match is None:
            continue
        out.append(text[done : match.start()])
        out.append(_replace_assignment(match))
        done = match.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _mask_pem(text: str) -> str:
    """Each PEM private key block, its header and footer kept and its body masked; a block without its
    footer (a truncated paste) is masked to the end of the text."""
    if "PRIVATE KEY-----" not in text:
        return text
    out: list[str] = []
    position = 0
    while True:
        begin = _PEM_BEGIN.search(text, position)
        if begin is None:
            break
        end = _PEM_END.search(text, begin.end())
        body_end = end.start() if end is not None else len(text)
        body = text[begin.end() : body_end]
        tail = "".join(c for c in body[-64:] if c.isalnum())
        out.append(text[position : begin.end()])
        if body.strip().startswith(MASK_PREFIX):
            out.append(body)
        else:
            lead, trail = body[: len(body) - len(body.lstrip())], body[len(body.rstrip()) :]
            out.append(lead + mask("private-key", tail if len(body) >= MIN_TAIL_CHARS else "") + trail)
        if end is None:
            position = len(text)
            break
        out.append(text[end.start() : end.end()])
        position = end.end()
    if not out:
        return text
    out.append(text[position:])
    return "".join(out)


def _mask_aws_secrets(text: str) -> str:
    """The 40-character secret access key beside each AWS access key id, masked."""
    if "AKIA" not in text and "ASIA" not in text:
        return text
    spans: list[tuple[int, int]] = []
    scanned = 0
    for key_id in _AWS_KEY_ID.finditer(text):
        start = max(key_id.start() - AWS_SECRET_DISTANCE, scanned)
        stop = min(key_id.end() + AWS_SECRET_DISTANCE, len(text))
        for secret in _AWS_SECRET.finditer(text, start, stop):
            value = secret.group(0)
            if _looks_random(value) and (not spans or secret.start() >= spans[-1][1]):
                spans.append(secret.span())
        scanned = max(scanned, stop)
    if not spans:
        return text
    out, position = [], 0
    for start, stop in spans:
        out.append(text[position:start])
        out.append(mask("aws-secret", text[start:stop]))
        position = stop
    out.append(text[position:])
    return "".join(out)


def _looks_random(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() or c in "/+" for c in value)
    )


def mask_credentials(text: str) -> str:
    """`text` with every credential shape masked; the same object when there is none."""
    if len(text) < 8:  # shorter than any credential shape
        return text
    lowered = text.lower()  # which passes can find anything: a fast search each, for short texts too
    masked = _mask_aws_secrets(_mask_pem(text))
    for trigger, rx, replacement in _SHAPE_PASSES:
        if trigger in lowered:
            masked = rx.sub(replacement, masked)
    for trigger in _ASSIGNMENT_TRIGGERS:
        if trigger in lowered:
            masked = _mask_assignments(masked)
            break
    return text if masked == text else masked


def mask_json(value: object, key: str | None = None) -> object:
    """A JSON-like value with every string masked and its structure kept; a string under a secret-looking
    key (`"password": "..."`) is masked whole. Returns `value` itself when nothing changed."""
    if isinstance(value, str):
        if key is not None and not _placeholder(value) and len(value) >= 3 and key_kind(key):
            if value.startswith(MASK_PREFIX):
                return value
            return mask(token_kind(value) or _assignment_kind(key), value)
        return mask_credentials(value)
    if isinstance(value, dict):
        items = {k: mask_json(v, k if isinstance(k, str) else None) for k, v in value.items()}
        return value if all(items[k] is value[k] for k in value) else items
    if isinstance(value, list | tuple):
        masked = [mask_json(v) for v in value]
        return value if all(m is v for m, v in zip(masked, value, strict=True)) else masked
    return value


def mask_message(message: NewMessage) -> NewMessage:
    """`message` with the credentials in its text and tool input masked; itself when it holds none.
    InvalidMessage for a tool input nested too deeply to walk (the readers refuse such JSON earlier)."""
    content = mask_credentials(message.content)
    try:
        tool_input = mask_json(message.input)
    except RecursionError:
        raise InvalidMessage("the tool input is nested too deeply", message.where) from None
    if content is message.content and tool_input is message.input:
        return message
    return replace(message, content=content, input=tool_input)
