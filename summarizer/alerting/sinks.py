"""Where an alert goes besides the `alerts` table: the structured log, a webhook, email.

A sink sends one `Notice` (an alert was raised, or resolved) and either returns or raises `DeliveryError`
with a short reason. Sinks never retry by themselves: the alert service records each attempt in the alert's
`delivery` column and retries on its next evaluation, so a slow or dead endpoint costs one bounded attempt
(the timeout) per evaluation and never blocks a worker.

Everything that leaves the process passes through `redact_text` first: alert messages quote worker errors,
and those can carry a URL with a password in it. Error reasons never include the webhook URL, which for
Slack-style hooks is itself the secret.
"""

from __future__ import annotations

import base64
import json
import smtplib
import socket
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any, Literal, Protocol

import structlog

from summarizer.domain.errors import SummarizerError
from summarizer.logs import redact_text

log = structlog.get_logger("summarizer.alerts")

Event = Literal["raised", "resolved"]
MAX_REASON_CHARS = 300


class DeliveryError(SummarizerError):
    """One attempt to hand an alert to a sink failed; the reason is short and holds no secret."""


@dataclass(frozen=True, slots=True)
class Notice:
    """What a sink is told: an alert was raised, or its incident is over."""

    event: Event
    alert_id: int | None
    kind: str
    agent_id: str | None
    severity: str
    message: str
    created_at: datetime
    resolved_at: datetime | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def subject(self) -> str:
        """One line naming the incident: the Slack `text` and the mail subject."""
        agent = f" for agent {self.agent_id}" if self.agent_id else ""
        ref = f" #{self.alert_id}" if self.alert_id is not None else ""
        if self.event == "resolved":
            return f"[summarizer] RESOLVED{ref}: {self.kind}{agent}"
        return f"[summarizer] {self.severity.upper()}{ref}: {self.kind}{agent}"

    @property
    def text(self) -> str:
        lines = [self.subject, redact_text(self.message)]
        if self.event == "resolved" and self.resolved_at is not None:
            lasted = max(0, round((self.resolved_at - self.created_at).total_seconds()))
            lines.append(f"Resolved at {self.resolved_at.isoformat()} after {lasted}s.")
        else:
            lines.append(f"Raised at {self.created_at.isoformat()}.")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The webhook body: Slack reads `text`; other receivers get the structured `alert` too."""
        return {
            "text": self.text,
            "alert": {
                "event": self.event,
                "id": self.alert_id,
                "kind": self.kind,
                "agent_id": self.agent_id,
                "severity": self.severity,
                "message": redact_text(self.message),
                "details": json.loads(redact_text(json.dumps(self.details, default=str))),
                "created_at": self.created_at.isoformat(),
                "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
            },
        }


class Sink(Protocol):
    @property
    def name(self) -> str:
        """The key of this sink's entry in `alerts.delivery` (stable: it is stored)."""
        ...

    def send(self, notice: Notice) -> None:
        """Deliver once, or raise DeliveryError."""
        ...


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return redact_text(f"{type(exc).__name__}: {text}")[:MAX_REASON_CHARS]


class LogSink:
    """The structured log line: the sink that needs no network, written when the alert is raised."""

    name = "log"

    def send(self, notice: Notice) -> None:
        fields: dict[str, Any] = {
            "kind": notice.kind,
            "alert_id": notice.alert_id,
            "alert_agent": notice.agent_id,
            "severity": notice.severity,
            "message": notice.message,
        }
        if notice.event == "resolved":
            log.warning("alert.resolved", **fields)
        elif notice.severity == "critical":
            log.critical("alert.raised", **fields)
        else:
            log.warning("alert.raised", **fields)


def _split_credentials(url: str) -> tuple[str, str]:
    """`https://user:pass@host/path` -> (`https://host/path`, a Basic Authorization value): urllib sends
    no credentials from a URL on its own (it would try to resolve `user:pass@host` as the host)."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, ""
    user = urllib.parse.unquote(parts.username or "")
    password = urllib.parse.unquote(parts.password or "")
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc)), f"Basic {token}"


class WebhookSink:
    """HTTP POST of the notice as JSON (Slack incoming-webhook compatible). Any 2xx answer is delivered."""

    name = "webhook"

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        scheme = url.split(":", 1)[0].lower()
        if scheme not in ("http", "https"):
            raise ValueError(f"the alert webhook needs an http(s) URL, got scheme {scheme!r}")
        self._url, self._authorization = _split_credentials(url)
        self._timeout = timeout

    def __repr__(self) -> str:
        return "WebhookSink(url=***)"

    def send(self, notice: Notice) -> None:
        headers = {"Content-Type": "application/json", "User-Agent": "summarizer-alerts"}
        if self._authorization:
            headers["Authorization"] = self._authorization
        request = urllib.request.Request(
            self._url, data=json.dumps(notice.to_json()).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                response.read(4096)
        except urllib.error.HTTPError as exc:
            raise DeliveryError(f"HTTP {exc.code} {exc.reason}"[:MAX_REASON_CHARS]) from None
        except urllib.error.URLError as exc:
            reason = exc.reason if isinstance(exc.reason, BaseException) else OSError(str(exc.reason))
            raise DeliveryError(_reason(reason)) from None
        except (OSError, ValueError) as exc:  # timeouts, resets, malformed responses
            raise DeliveryError(_reason(exc)) from None


@dataclass(frozen=True, slots=True)
class SmtpConfig:
    host: str
    recipients: tuple[str, ...]
    port: int = 587
    user: str = ""
    password: str = field(default="", repr=False)
    sender: str = ""
    starttls: bool = True
    use_ssl: bool = False
    timeout: float = 10.0

    @property
    def from_address(self) -> str:
        if self.sender:
            return self.sender
        if "@" in self.user:
            return self.user
        return f"summarizer@{socket.getfqdn() or 'localhost'}"


class SmtpSink:
    """One mail per notice over SMTP (implicit TLS, STARTTLS or plain), logging in when a user is set.

    With STARTTLS configured and a server that does not offer it, the attempt fails rather than sending
    the password in the clear.
    """

    name = "email"

    def __init__(self, config: SmtpConfig) -> None:
        if not config.recipients:
            raise ValueError("the alert mail sink needs at least one recipient")
        self.config = config

    def message(self, notice: Notice) -> EmailMessage:
        cfg = self.config
        msg = EmailMessage()
        msg["Subject"] = notice.subject
        msg["From"] = cfg.from_address
        msg["To"] = ", ".join(cfg.recipients)
        msg["Date"] = format_datetime(notice.resolved_at or notice.created_at)
        msg["Message-ID"] = make_msgid(domain=cfg.from_address.rpartition("@")[2] or None)
        body = notice.text
        if notice.details:
            body += "\n\nDetails:\n" + redact_text(json.dumps(notice.details, indent=2, default=str))
        msg.set_content(body + "\n")
        return msg

    def send(self, notice: Notice) -> None:
        cfg = self.config
        message = self.message(notice)
        try:
            client: smtplib.SMTP
            if cfg.use_ssl:
                context = ssl.create_default_context()
                client = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=cfg.timeout, context=context)
            else:
                client = smtplib.SMTP(cfg.host, cfg.port, timeout=cfg.timeout)
            with client:
                if cfg.starttls and not cfg.use_ssl:
                    client.starttls(context=ssl.create_default_context())
                if cfg.user:
                    client.login(cfg.user, cfg.password)
                refused = client.send_message(message)
        except (smtplib.SMTPException, OSError, ValueError) as exc:
            raise DeliveryError(_reason(exc)) from None
        if refused:
            # Delivered to the others: a retry would mail them twice, so this only warns.
            log.warning("alert.mail_recipients_refused", alert_id=notice.alert_id, refused=sorted(refused))
