"""Credentials pasted into a conversation, on both databases: planted in user text, tool input and tool
output, recorded over HTTP, evicted and summarized (offline, and through the fake Anthropic API with a
model that copies what it reads), then looked for in every surface and in the database itself."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import String, cast, select

from summarizer import composition
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import messages, metadata
from summarizer.storage.sql.stores.conversations import ConversationStore
from summarizer.testing.fake_http import Reply
from summarizer.testing.fake_messages_api import FakeMessagesAPI, tool_use_reply
from tests.support.http_api import api_client, canonical, hermetic_settings

PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0IzW7yWR7Qkr"
# Each planted credential: the text it is written in, and the part of it that must never be read back.
PLANTED: list[tuple[str, str]] = [
    (
        "ANTHROPIC_API_KEY=sk-ant-api03-Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ-XYZW",
        "Zq8vLr2NtY5wKd9sFb1X",
    ),
    ("client = OpenAI(api_key='sk-proj-Rk4mT9wQz2Lb7NcY1vHs8JdF3gXp6AeU0oKi5WrBn')", "Rk4mT9wQz2Lb7NcY1vHs"),
    (
        "aws_access_key_id AKIAZ7QWERTYUIOP9XQZ secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "K7MDENG/bPxRfiCY",
    ),
    ("push with ghp_Q7wErT9yUiOp1AsDfGhJkLzXcVbNm2345678", "Q7wErT9yUiOp1AsDfGhJ"),
    ("git clone https://oauth2:glpat-Xy7Zq2Wv9Lm4Nb1Kc8Pd@gitlab.com/a/b.git", "Xy7Zq2Wv9Lm4Nb1K"),
    ("slack xoxb-2468013579-1357924680-AbCdEfGhIjKl", "2468013579-1357924680"),
    ("maps key AIzaSyD4k9Lm2Nq7Rt1Vw8Xz3Bc6Fg0Hj5Kp2Ls", "D4k9Lm2Nq7Rt1Vw8Xz3B"),
    ("STRIPE=sk_live_51Hx7Kq2Lm9Nz4Bv1Cw8Dy3Ef", "51Hx7Kq2Lm9Nz4Bv1Cw8"),
    (
        "session eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJBZGEifQ.7pQ2vX9mLk4Nz1Bc8Yw3HsJd",
        "7pQ2vX9mLk4Nz1Bc8Yw3",
    ),
    ("curl -H 'Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c'", "9f8e7d6c5b4a3f2e1d0c"),
    ("curl -H 'Authorization: Basic YWRtaW46czNjcjN0UGFzcw=='", "YWRtaW46czNjcjN0UGFzcw"),
    (f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----", "u1SU1LfVLPHCozMxH2Mo"),
    ("DATABASE_URL=postgresql://app:Wh1teRabbit42x@db.internal/main", "Wh1teRabbit42x"),
    ('config {"password": "Tr0ub4dorPlanted3"}', "Tr0ub4dorPlanted3"),
]
SECRETS = [secret for _, secret in PLANTED]
AGENT = "leaky"


def copying_model(body: Mapping[str, Any]) -> Reply:
    """A model that copies the text of each exchange of its prompt (tags left out) into the summary item."""
    prompt = "\n".join(
        block.get("text", "") if isinstance(block, dict) else str(block)
        for message in body.get("messages", [])
        for block in (message["content"] if isinstance(message["content"], list) else [message["content"]])
    )
    add = []
    for match in re.finditer(r'<exchange id="(\d+)"[^>]*>(.*?)</exchange>', prompt, re.S):
        add.append(
            {
                "exchange_ids": [int(match.group(1))],
                "text": re.sub(r"<[^>]*>|\s+", " ", match.group(2)).strip()[:400],
                "importance": "high",
            }
        )
    tools = body.get("tools") or [{"name": "apply_summary_operations"}]
    return tool_use_reply(str(tools[0]["name"]), {"add": add})


@pytest.fixture
def provider() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(messages_default=copying_model) as fake:
        yield fake


def _exchange(n: int, planted: str) -> list[dict[str, Any]]:
    return [
        canonical("user", f"Step {n}: please use this\n{planted}", id=f"u{n}"),
        canonical(
            "tool_call",
            "",
            id=f"c{n}",
            tool_call_id=f"t{n}",
            name="bash",
            input={"command": f"echo '{planted}'", "env": {"PGPASSWORD": "Wh1teRabbit42x"}},
        ),
        canonical("tool_result", f"output of step {n}:\n{planted}", id=f"r{n}", tool_call_id=f"t{n}"),
        canonical("assistant", f"Done with step {n}; it printed {planted}", id=f"a{n}"),
    ]


def _settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database, llm: str, url: str) -> Settings:
    extra: dict[str, Any] = {}
    if llm == "anthropic":
        extra = {
            "anthropic_api_key": "test-key-for-the-fake",
            "anthropic_base_url": url,
            "llm_max_retries": 0,
        }
    return hermetic_settings(
        monkeypatch,
        tmp_path,
        llm=llm,
        window_tokens=400,
        batch_size=1,
        database_url=db.url.render_as_string(hide_password=False),
        **extra,
    )


def _database_text(db: Database) -> str:
    """Every value of every table, and for SQLite the database files' bytes too (search index included)."""
    parts: list[str] = []
    with db.read() as conn:
        for table in metadata.sorted_tables:
            for row in conn.execute(select(*(cast(c, String) for c in table.c))):
                parts.extend(str(v) for v in row if v is not None)
    if db.url.get_backend_name() == "sqlite" and db.url.database:
        for path in Path(db.url.database).parent.glob(Path(db.url.database).name + "*"):
            parts.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(parts)


def _leaks(where: str, text: str) -> list[str]:
    return [f"{where}: {secret}" for secret in SECRETS if secret in text]


@pytest.mark.parametrize("llm", ["offline", "anthropic"])
def test_no_planted_credential_is_readable_anywhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database, provider: FakeMessagesAPI, llm: str
) -> None:
    settings = _settings(monkeypatch, tmp_path, db, llm, provider.base_url)
    client = api_client(db, settings)
    messages = [m for n, (planted, _) in enumerate(PLANTED, start=1) for m in _exchange(n, planted)]
    answer = client.post(f"/v1/agents/{AGENT}/messages", json={"messages": messages})
    assert answer.status_code == 200, answer.text
    assert answer.json()["evicted_exchanges"] >= len(PLANTED) // 2
    service = composition.build_update_service(settings, db)
    for _ in range(10):
        if not service.run(AGENT).requeued:
            break

    history = client.get(f"/v1/agents/{AGENT}/history").json()
    summary = client.get(f"/v1/agents/{AGENT}/summary").json()
    assert summary["version"] is not None, "the evicted exchanges were summarized"
    surfaces = {
        "history": json.dumps(history),
        "summary": json.dumps(summary),
        "context": client.get(f"/v1/agents/{AGENT}/context").text,
        "recall": client.get(f"/v1/agents/{AGENT}/recall", params={"q": "step printed output"}).text,
        "exchanges": "".join(
            client.get(f"/v1/agents/{AGENT}/exchanges/{x['id']}").text for x in history["exchanges"]
        ),
        "provenance": client.get(f"/v1/agents/{AGENT}/provenance").text,
        "operator page": client.get("/ui/").text,
        "database": _database_text(db),
    }
    if llm == "anthropic":
        prompts = [json.dumps(r.body) for r in provider.requests_to("/v1/messages")]
        assert prompts, "the provider fake was asked"
        surfaces["prompt"] = "\n".join(prompts)
    leaks = [leak for where, text in surfaces.items() for leak in _leaks(where, text)]
    assert leaks == []
    assert "[secret:anthropic-key …XYZW]" in surfaces["exchanges"]
    assert "[secret:" in surfaces["summary"], "the summary copied the masked text"
    assert "[secret:private-key" in surfaces["database"]


def test_raw_content_is_kept_when_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database
) -> None:
    settings = hermetic_settings(monkeypatch, tmp_path, keep_raw_credentials=True)
    client = api_client(db, settings)
    planted = PLANTED[0][0]
    assert (
        client.post(f"/v1/agents/{AGENT}/messages", json={"messages": _exchange(1, planted)}).status_code
        == 200
    )
    assert planted in client.get(f"/v1/agents/{AGENT}/exchanges/1").text


def test_a_resent_message_with_a_credential_is_recognised_and_counted_masked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db: Database
) -> None:
    client = api_client(db, hermetic_settings(monkeypatch, tmp_path))
    body = {"messages": _exchange(1, PLANTED[0][0])}
    first = client.post(f"/v1/agents/{AGENT}/messages", json=body).json()
    again = client.post(f"/v1/agents/{AGENT}/messages", json=body).json()
    assert (first["stored"], again["stored"], again["skipped"]) == (4, 0, 4)
    store = ConversationStore(db)
    with db.read() as conn:
        rows = conn.execute(
            select(messages.c.content, messages.c.tokens).where(messages.c.agent_id == AGENT)
        ).all()
    user = next(row for row in rows if row.content.startswith("Step 1"))
    assert "[secret:anthropic-key …XYZW]" in user.content
    assert user.tokens == store.count(NewMessage(Kind.USER, user.content))  # counted on the masked text
    assert user.tokens < store.count(
        NewMessage(Kind.USER, user.content.replace("[secret:anthropic-key …XYZW]", PLANTED[0][0]))
    )
