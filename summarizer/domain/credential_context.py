"""Credentials recognised by what surrounds them: Authorization values, the password of a URL, command-line
credentials (`curl -u`, `mysql -p`, `sshpass -p`, `redis-cli -a`, `--password VALUE`), private key blocks
of every kind and the secret access key beside an AWS key id.

Each pass runs only when the text holds its trigger, opens with a literal and consumes possessively, so
the cost stays linear whatever the input.
"""

from __future__ import annotations

import base64
import binascii
import re

from summarizer.domain.credential_shapes import token_kind
from summarizer.domain.credential_values import (
    MASK_PREFIX,
    MIN_TAIL_CHARS,
    code_like,
    mask,
    placeholder,
    secret_value,
)

_TOKEN = r"[A-Za-z0-9_-]"
_SCHEME_RX = re.compile(
    rf"(?P<scheme>[Bb](?:earer|EARER|asic|ASIC)(?<!{_TOKEN}[Bb]earer)(?<!{_TOKEN}[Bb]EARER)"
    rf"(?<!{_TOKEN}[Bb]asic)(?<!{_TOKEN}[Bb]ASIC))[ \t]++(?P<credential>[A-Za-z0-9._~+/=-]++)"
)
"""Authorization header values."""
_URL_RX = re.compile(
    # scheme://user:password@host. The user and password hold no quote, brace or bracket, and a host must
    # follow the `@`: JSON-LD (`"url":"https://a.com","name":"A","publisher":{"@id":...}`) is no URL.
    r"(?P<userinfo>://(?<=[A-Za-z0-9+.-]://)[^:/@\s\"'`<>{}\[\](),;]*+:)"
    r"(?P<password>[^@\s/\"'`<>{}\[\]]++)@(?=[A-Za-z0-9\[])"
)
_CURL_USER_RX = re.compile(
    r"(?P<flag>(?:-u|--user)(?<![\w-]-u)(?<![\w-]--user)(?:=|[ \t]++))"
    r"(?:(?P<quote>[\"'])(?P<quser>[^:\"'\n]*+):(?P<qpassword>[^\"'\n]++)(?P=quote)"
    r"|(?P<user>[^\s:\"']++):(?P<password>[^\s\"']++))"
)
_ATTACHED_P_RX = re.compile(
    # mysql -pSECRET, mysqldump -p'SECRET', mariadb -p"SECRET" (a bare -p asks for the password instead).
    r"(?P<tool>\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlsh))\b(?P<args>[^\n|;&]{0,100}?[ \t])"
    r"-p(?P<password>\"[^\"\n]++\"|'[^'\n]++'|[^\s\"']++)"
)
_SEPARATE_FLAG_RX = re.compile(
    # sshpass -p SECRET, sshpass -pSECRET, redis-cli -a SECRET, docker login -p SECRET.
    r"(?P<tool>\b(?:sshpass|redis-cli|docker[ \t]++login|podman[ \t]++login|helm[ \t]++registry[ \t]++login))"
    r"(?P<args>[^\n|;&]{0,100}?[ \t])-[pa](?P<space>[ \t]*+)(?P<password>\"[^\"\n]++\"|'[^'\n]++'|[^\s\"']++)"
)
_LONG_FLAG_RX = re.compile(
    # --password VALUE, --db-password VALUE, --token VALUE, --api-key VALUE (the `=` form is an assignment).
    r"--(?P<name>[a-z0-9-]*?(?:password|passwd|pass|token|api-key|apikey|secret|secret-key|access-key))"
    r"[ \t]++(?P<password>\"[^\"\n]++\"|'[^'\n]++'|[^\s\"'-][^\s\"']*+)"
)
_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
AWS_SECRET_DISTANCE = 200
"""How near (in characters, either side) an access key id its secret access key is looked for."""


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
    if password.startswith(MASK_PREFIX) or placeholder(password):
        return match.group(0)
    return f"{match.group('userinfo')}{mask('url-password', password)}@"


def _unquoted(value: str) -> tuple[str, str]:
    """The value without its quotes, and the quote ('' when bare)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1], value[0]
    return value, ""


def _command_password(value: str) -> bool:
    return secret_value(value) and not value.startswith(MASK_PREFIX)


def _replace_curl_user(match: re.Match[str]) -> str:
    quote = match.group("quote") or ""
    user = match.group("quser") if quote else match.group("user")
    password = match.group("qpassword") if quote else match.group("password")
    if not _command_password(password) or password.isdigit():
        return match.group(0)
    return f"{match.group('flag')}{quote}{user}:{mask('password', password)}{quote}"


def _replace_tool_password(match: re.Match[str]) -> str:
    value, quote = _unquoted(match.group("password"))
    if not _command_password(value):
        return match.group(0)
    head = match.group(0)[: match.start("password") - match.start()]
    return f"{head}{quote}{mask('password', value)}{quote}"


def _replace_long_flag(match: re.Match[str]) -> str:
    value, quote = _unquoted(match.group("password"))
    if not _command_password(value) or (not quote and code_like(value)):
        return match.group(0)
    head = match.group(0)[: match.start("password") - match.start()]
    kind = "token" if "token" in match.group("name") else "password"
    return f"{head}{quote}{mask(token_kind(value) or kind, value)}{quote}"


def mask_commands(text: str, lowered: str) -> str:
    """Authorization values, URL passwords and command-line credentials masked."""
    if "bearer" in lowered or "basic" in lowered:
        text = _SCHEME_RX.sub(_replace_scheme, text)
    if "://" in text and "@" in text:
        text = _URL_RX.sub(_replace_url_password, text)
    if "-u" in text and ("curl" in lowered or "wget" in lowered or "http" in lowered):
        text = _CURL_USER_RX.sub(_replace_curl_user, text)
    if " -p" in text and ("mysql" in lowered or "mariadb" in lowered):
        text = _ATTACHED_P_RX.sub(_replace_tool_password, text)
    if "sshpass" in lowered or "redis-cli" in lowered or " login" in lowered:
        text = _SEPARATE_FLAG_RX.sub(_replace_tool_password, text)
    if "--" in text:
        text = _LONG_FLAG_RX.sub(_replace_long_flag, text)
    return text


def mask_private_keys(text: str) -> str:
    """Each private key block (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... BLOCK), its armour lines kept and
    its body masked; a block without its end line (a truncated paste) is masked to the end of the text."""
    if "PRIVATE KEY" not in text:
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
        if body.strip().startswith(MASK_PREFIX) or not body.strip():
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


def mask_aws_secrets(text: str) -> str:
    """The 40-character secret access key beside each AWS access key id, masked."""
    if "AKIA" not in text and "ASIA" not in text and "ABIA" not in text and "ACCA" not in text:
        return text
    spans: list[tuple[int, int]] = []
    scanned = 0
    for key_id in _AWS_KEY_ID.finditer(text):
        start = max(key_id.start() - AWS_SECRET_DISTANCE, scanned)
        stop = min(key_id.end() + AWS_SECRET_DISTANCE, len(text))
        for secret in _AWS_SECRET.finditer(text, start, stop):
            value = secret.group(0)
            if _aws_secret(value) and (not spans or secret.start() >= spans[-1][1]):
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


def _aws_secret(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() or c in "/+" for c in value)
    )
