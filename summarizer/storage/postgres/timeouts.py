"""How long PostgreSQL may keep a process waiting: for a connection to be answered, for a statement.

A server that accepts the TCP connection and then says nothing (a hung host, a half-open NAT entry, a
proxy whose backend is gone) would otherwise hold a command, a hook or a worker forever: psycopg waits
on the socket without limit. The connect timeout is psycopg's `connect_timeout`, put in the URL so the
migrations' own engine (migrations/env.py) keeps it too; a URL that names one keeps its own. The
statement timeout is the server's `statement_timeout`, set for every pooled session through the
connection's `options`; the migrations' engine does not get it, since a migration may rewrite a large
table. `timeout_reason` turns either expiry into the one line a command prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import URL

CONNECT_TIMEOUT_S = 5
STATEMENT_TIMEOUT_S = 30.0
STATEMENT_TIMEOUT_SQLSTATE = "57014"  # query_canceled: the statement timeout, or a cancel request


@dataclass(frozen=True, slots=True)
class Timeouts:
    connect_s: int = CONNECT_TIMEOUT_S
    """Seconds a connection may take, TCP connect and the server's answer to the startup included."""
    statement_s: float = STATEMENT_TIMEOUT_S
    """Seconds one statement may run on the server; 0: no limit."""

    def url(self, url: URL) -> URL:
        """`url` with the connect timeout, unless it names its own."""
        if "connect_timeout" in url.query:
            return url
        return url.update_query_dict({"connect_timeout": str(self.connect_s)})

    def options(self, url: URL, *more: str) -> str:
        """The `options` connection parameter: the URL's own, the statement timeout, then `more`."""
        given = url.query.get("options", "")
        parts = [given if isinstance(given, str) else " ".join(given)]
        if self.statement_s > 0:
            parts.append(f"-c statement_timeout={max(1, round(self.statement_s * 1000))}")
        return " ".join(p for p in (*parts, *more) if p)


def timeout_reason(exc: BaseException, shown_url: str, timeouts: Timeouts) -> str | None:
    """One line saying which wait ran out when `exc` (a SQLAlchemy error or psycopg's own) is the connect
    or the statement timeout's expiry; None for any other error."""
    cause = getattr(exc, "orig", None) or exc
    if type(cause).__name__ == "ConnectionTimeout":
        return (
            f"the database at {shown_url} did not answer within {timeouts.connect_s} s "
            "(SUMMARIZER_DATABASE_CONNECT_TIMEOUT)"
        )
    if getattr(cause, "sqlstate", None) == STATEMENT_TIMEOUT_SQLSTATE and "timeout" in str(cause):
        return (
            f"the database at {shown_url} did not finish a statement within {timeouts.statement_s:g} s "
            "(SUMMARIZER_DATABASE_STATEMENT_TIMEOUT)"
        )
    return None
