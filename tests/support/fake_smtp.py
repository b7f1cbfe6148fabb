"""A fake SMTP server: just enough ESMTP (EHLO/HELO, AUTH PLAIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT) on a
free 127.0.0.1 port, in a thread, for smtplib to deliver to. It keeps each message, parsed, and can refuse
mail with a chosen reply to play a failing sink. Not a mail server: no TLS, no queueing, no relaying."""

from __future__ import annotations

import base64
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage


@dataclass(frozen=True)
class ReceivedMail:
    sender: str
    recipients: tuple[str, ...]
    message: EmailMessage
    login: tuple[str, str] | None


class FakeSmtpServer:
    def __init__(self, *, credentials: tuple[str, str] | None = None) -> None:
        self.credentials = credentials
        self.refuse_mail_with: str | None = None
        """E.g. "451 try again later": answer MAIL FROM with it and deliver nothing."""
        self.mails: list[ReceivedMail] = []
        self._changed = threading.Condition()
        fake = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                fake._session(self)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def wait_for(self, count: int, timeout: float = 5.0) -> list[ReceivedMail]:
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.mails) >= count, timeout):
                raise AssertionError(f"expected {count} mails, got {len(self.mails)}")
            return list(self.mails)

    def _session(self, h: socketserver.StreamRequestHandler) -> None:
        session = _Session(self, h)
        session.reply("220 fake-smtp ESMTP ready")
        for raw in h.rfile:
            verb, _, arg = raw.decode("utf-8", "replace").rstrip("\r\n").partition(" ")
            if not session.handle(verb.upper(), arg):
                return

    def _auth(self, arg: str) -> tuple[str, str] | None:
        mechanism, _, initial = arg.partition(" ")
        if mechanism.upper() != "PLAIN" or not initial:
            return None
        _, user, password = base64.b64decode(initial).decode().split("\0")
        return (user, password) if (user, password) == self.credentials else None

    @staticmethod
    def _read_data(h: socketserver.StreamRequestHandler) -> bytes:
        lines: list[bytes] = []
        for raw in h.rfile:
            if raw in (b".\r\n", b".\n"):
                break
            lines.append(raw[1:] if raw.startswith(b"..") else raw)
        return b"".join(lines)

    def _keep(self, sender: str, recipients: list[str], data: bytes, login: tuple[str, str] | None) -> None:
        message = message_from_bytes(data, policy=policy.default)
        assert isinstance(message, EmailMessage)
        with self._changed:
            self.mails.append(ReceivedMail(sender, tuple(recipients), message, login))
            self._changed.notify_all()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class _Session:
    """One client connection's state: who logged in, the envelope being built."""

    def __init__(self, server: FakeSmtpServer, h: socketserver.StreamRequestHandler) -> None:
        self.server = server
        self.h = h
        self.sender = ""
        self.recipients: list[str] = []
        self.login: tuple[str, str] | None = None

    def reply(self, line: str) -> None:
        self.h.wfile.write(line.encode() + b"\r\n")
        self.h.wfile.flush()

    def handle(self, verb: str, arg: str) -> bool:
        """Answer one command; False when the client said QUIT."""
        server = self.server
        if verb == "EHLO":
            self.reply("250-fake-smtp")
            self.reply("250 AUTH PLAIN" if server.credentials else "250 8BITMIME")
        elif verb == "HELO":
            self.reply("250 fake-smtp")
        elif verb == "AUTH":
            self.login = server._auth(arg)
            self.reply("235 authenticated" if self.login else "535 bad credentials")
        elif verb == "MAIL":
            self.mail(arg)
        elif verb == "RCPT":
            self.recipients.append(_address(arg))
            self.reply("250 ok")
        elif verb == "DATA":
            self.reply("354 end with <CRLF>.<CRLF>")
            server._keep(self.sender, self.recipients, server._read_data(self.h), self.login)
            self.reply("250 queued")
        elif verb in ("RSET", "NOOP"):
            self.reply("250 ok")
        elif verb == "QUIT":
            self.reply("221 bye")
            return False
        else:
            self.reply("502 not implemented")
        return True

    def mail(self, arg: str) -> None:
        if self.server.credentials and self.login is None:
            self.reply("530 authentication required")
        elif self.server.refuse_mail_with:
            self.reply(self.server.refuse_mail_with)
        else:
            self.sender, self.recipients = _address(arg), []
            self.reply("250 ok")


def _address(arg: str) -> str:
    """'FROM:<a@b> SIZE=12' -> 'a@b'."""
    return arg.partition("<")[2].partition(">")[0]


@contextmanager
def fake_smtp_server(*, credentials: tuple[str, str] | None = None) -> Iterator[FakeSmtpServer]:
    server = FakeSmtpServer(credentials=credentials)
    server.start()
    try:
        yield server
    finally:
        server.stop()
