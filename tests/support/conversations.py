"""Hypothesis strategies for valid random conversations, and the window invariants to check on them."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage

STEP_KINDS = ["user", "assistant", "tool_call", "tool_result", "carrier", "mark", "clear", "system"]


@st.composite
def conversations(draw: st.DrawFn, max_steps: int = 60) -> list[NewMessage]:
    """A valid message sequence: tool results only answer calls made earlier in the same exchange."""
    steps = draw(st.lists(st.sampled_from(STEP_KINDS), min_size=1, max_size=max_steps))
    out: list[NewMessage] = []
    open_calls: list[str] = []
    in_exchange = False
    n_calls = 0
    for step in steps:
        tokens = draw(st.integers(min_value=0, max_value=300))
        if step == "user":
            out.append(NewMessage(Kind.USER, f"request {len(out)}", tokens=tokens))
            open_calls, in_exchange = [], True
        elif step == "assistant":
            out.append(NewMessage(Kind.ASSISTANT, "answer", tokens=tokens))
        elif step == "tool_call":
            n_calls += 1
            call_id = f"call-{n_calls}"
            open_calls.append(call_id)
            out.append(
                NewMessage(Kind.TOOL_CALL, "", tool_call_id=call_id, name="bash", input={}, tokens=tokens)
            )
        elif step == "tool_result" and open_calls:
            call_id = draw(st.sampled_from(open_calls))
            out.append(NewMessage(Kind.TOOL_RESULT, "out", tool_call_id=call_id, tokens=tokens))
        elif step == "carrier" and in_exchange:
            out.append(NewMessage(Kind.USER, "and this", continues_exchange=True, tokens=tokens))
        elif step == "mark":
            out.append(NewMessage(Kind.MARK, "cp"))
        elif step == "clear":
            out.append(NewMessage(Kind.CLEAR, ""))
        elif step == "system":
            out.append(NewMessage(Kind.SYSTEM, "note", tokens=tokens))
    return out


@dataclass(frozen=True)
class WindowMessage:
    seq: int
    kind: Kind
    exchange: int | None
    in_window: bool
    tokens: int
    tool_call_id: str | None
    continues_exchange: bool


def check_window_invariants(
    rows: list[WindowMessage], budget: int, window_tokens: int, exchanges_in_window: int
) -> None:
    """The four invariants the foundation issue names, the safety floor, and the running total matching a recount."""
    window = [r for r in rows if r.in_window]
    conversation = [r for r in window if r.exchange is not None]
    if conversation:
        first = conversation[0]
        assert first.kind is Kind.USER, f"window starts at {first}"
        assert not first.continues_exchange, f"window starts at a tool-result carrier {first}"
    calls_in_window = {r.tool_call_id for r in window if r.kind is Kind.TOOL_CALL}
    for r in window:
        if r.kind is Kind.TOOL_RESULT:
            assert r.tool_call_id in calls_in_window, f"orphaned tool_result {r}"
    by_exchange: dict[int, set[bool]] = {}
    for r in rows:
        if r.exchange is not None:
            by_exchange.setdefault(r.exchange, set()).add(r.in_window)
    split = {n: sides for n, sides in by_exchange.items() if len(sides) > 1}
    assert not split, f"exchanges split across the window edge: {split}"
    if by_exchange:
        newest = max(by_exchange)
        cleared = any(r.kind is Kind.CLEAR for r in rows if r.exchange == newest)
        assert cleared or by_exchange[newest] == {True}, f"newest exchange {newest} left the window"
    recount = sum(r.tokens for r in window)
    assert recount == window_tokens, f"running total {window_tokens} != recount {recount}"
    if budget > 0 and exchanges_in_window > 1:
        assert window_tokens <= budget, f"{window_tokens} tokens over budget {budget}"
