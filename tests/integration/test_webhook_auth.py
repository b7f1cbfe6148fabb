"""A webhook URL with `user:password@` delivers, with the credentials as Basic auth, never in the URL."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from summarizer.alerting.sinks import Notice, WebhookSink
from tests.support.fake_webhook import fake_webhook


def test_credentials_in_the_webhook_url_become_basic_auth() -> None:
    notice = Notice("raised", 7, "summary_updates_failing", "bot", "critical", "parked", datetime.now(UTC))
    with fake_webhook() as hook:
        url = hook.url.replace("http://", "http://alerts%40ops:s3cr%3At-pw@", 1)
        sink = WebhookSink(url, timeout=5)
        sink.send(notice)
        (post,) = hook.wait_for(1)
    assert post["alert"]["kind"] == "summary_updates_failing"
    expected = base64.b64encode(b"alerts@ops:s3cr:t-pw").decode()
    assert hook.headers[0]["Authorization"] == f"Basic {expected}"
    assert "s3cr" not in repr(sink)


def test_a_url_without_credentials_sends_no_authorization() -> None:
    notice = Notice("raised", 8, "queue_depth_high", None, "warning", "deep", datetime.now(UTC))
    with fake_webhook() as hook:
        WebhookSink(hook.url, timeout=5).send(notice)
        hook.wait_for(1)
    assert "Authorization" not in hook.headers[0]
