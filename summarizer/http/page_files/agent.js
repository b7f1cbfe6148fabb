// The operator's page, part 3: one agent (tiers, each item's sources and their messages, the window,
// provenance).
"use strict";

const TIERS = [
  ["session", "Previously in This Session"],
  ["yesterday", "Yesterday"],
  ["week", "This Week"],
];

// ----- one agent ------------------------------------------------------------------------------------

async function optional(path) {
  try {
    return { ok: true, body: await api(path) };
  } catch (error) {
    if (error.status === 401) throw error;
    return { ok: false, status: error.status, error };
  }
}

async function showAgent(id) {
  showOnly("agent");
  $("agent-title").textContent = id;
  const base = `/v1/agents/${id.split("/").map(encodeURIComponent).join("/")}`;
  const [summary, history, context, provenance, steering] = await Promise.all([
    api(`${base}/summary`), api(`${base}/history`), api(`${base}/context`), optional(`${base}/provenance`),
    optional(`${base}/instructions`),
  ]);
  const exchanges = new Map(history.exchanges.map((e) => [e.id, e]));
  const evicted = history.exchanges.filter((e) => e.state === "evicted").length;
  fill("agent-head",
    stat("Summary version", summary.version ?? "none yet", summary.updated_at ? `updated ${when(summary.updated_at)}` : ""),
    stat("Summary tokens", `${num(summary.token_count)} / ${num(summary.max_tokens)}`, meter(summary.token_count / summary.max_tokens)),
    stat("Window tokens", `${num(history.window_tokens)} / ${num(history.budget_tokens) || "∞"}`, `${plural(history.exchanges.length - evicted, "exchange")} in the window`),
    stat("Evicted exchanges", evicted, summary.covered_through_exchange_id ? `summarized through #${summary.covered_through_exchange_id}` : "none summarized yet"),
    stat("Pins", (summary.pins || []).length, (summary.pins || []).map((p) => p.name).join(", ") || "none"),
    stat("Summary instructions", steering.ok && steering.body.instructions ? "set" : "none",
      steering.ok && steering.body.instructions ? steering.body.instructions : ""));
  drawTiers(summary, exchanges, base);
  drawWindow(context);
  drawProvenance(provenance, exchanges);
  resetRecall(base);
}

function stat(label, value, extra) {
  return el("div", { class: "card stat" }, el("div", { class: "stat-label" }, label),
    el("div", { class: "stat-value" }, value), typeof extra === "string" ? el("div", { class: "muted small" }, extra) : extra);
}

function meter(share) {
  const bar = el("div", { class: "meter" }, el("div", {}));
  bar.firstChild.style.width = `${Math.min(100, Math.round(share * 100))}%`;
  return bar;
}

function drawTiers(summary, exchanges, base) {
  const blocks = TIERS.map(([tier, heading]) => {
    const items = summary.tiers[tier] || [];
    const list = items.map((item) => el("li", { class: "item", tabindex: "0", "data-item": item.id,
      onclick: (ev) => selectItem(ev.currentTarget, item, exchanges, base),
      onkeydown: (ev) => { if (ev.key === "Enter") selectItem(ev.currentTarget, item, exchanges, base); } },
      el("div", { class: "item-text" }, item.text),
      el("div", { class: "item-meta" }, el("span", { class: `badge imp-${item.importance}` }, item.importance),
        ` ${num(item.source_tokens)} source tokens · ${item.exchange_ids.length === 1 ? "exchange" : "exchanges"} ${rangeText(item.exchange_ids)} · ${when(item.ended_at)}`)));
    return el("div", { class: "tier" }, el("h3", {}, heading, el("span", { class: "count" }, plural(items.length, "item"))),
      items.length ? el("ul", { class: "items" }, list) : el("p", { class: "muted small" }, "Nothing in this tier."));
  });
  fill("tiers", blocks);
  fill("sources", el("p", { class: "muted" }, "Select a summary item."));
}

function rangeText(ids) {
  if (!ids.length) return "none";
  const sorted = [...ids].sort((a, b) => a - b);
  return sorted.length > 1 && sorted[sorted.length - 1] - sorted[0] === sorted.length - 1
    ? `#${sorted[0]}–#${sorted[sorted.length - 1]}` : sorted.map((i) => `#${i}`).join(", ");
}

function selectItem(node, item, exchanges, base) {
  for (const other of document.querySelectorAll(".item.selected")) other.classList.remove("selected");
  node.classList.add("selected");
  const rows = item.exchange_ids.map((id) => {
    const e = exchanges.get(id);
    if (!e) return el("li", { class: "source" }, `Exchange #${id} (no longer in the history)`);
    return el("li", { class: "source", "data-exchange": e.id }, el("div", { class: "source-title" }, `#${e.id} ${e.title}`),
      el("div", { class: "muted small" }, `${plural(e.message_count, "message")} · ${num(e.tokens)} tokens · started ${when(e.started_at)}` +
        (e.evicted_at ? ` · evicted ${when(e.evicted_at)}${e.evict_reason ? ` (${e.evict_reason})` : ""}` : " · in the window")),
      exchangeMessages(base, e));
  });
  fill("sources", el("p", { class: "small" }, `Item ${item.id} was made from ${plural(item.exchange_ids.length, "exchange")}:`),
    el("ul", { class: "sources" }, rows));
}

// An exchange's messages behind a disclosure, fetched from /exchanges/ID the first time it is opened.
function exchangeMessages(base, exchange) {
  const holder = el("div", {}, el("p", { class: "muted small" }, "Loading…"));
  let loaded = false;
  async function load(ev) {
    if (!ev.currentTarget.open || loaded) return;
    loaded = true;
    try {
      const answer = await api(`${base}/exchanges/${exchange.id}`);
      holder.replaceChildren(el("ul", { class: "msgs" }, answer.messages.map((m) => messageItem(m, when(m.created_at)))));
    } catch (error) {
      if (error.status === 401) return; // api() has logged out
      loaded = false; // closing and opening again retries
      holder.replaceChildren(el("p", { class: "error" }, `The messages could not be read (${error.message}).`));
    }
  }
  return el("details", { class: "exchange", ontoggle: load },
    el("summary", {}, `Show ${exchange.message_count === 1 ? "its message" : exchange.message_count ? `its ${num(exchange.message_count)} messages` : "its messages"}`), holder);
}

// One stored message: its kind, the tool's name, where it sits, then its text and a tool call's input.
function messageItem(m, place) {
  const input = m.input === null || m.input === undefined ? "" : JSON.stringify(m.input);
  return el("li", { class: `msg ${m.kind}` },
    el("div", { class: "msg-head" }, el("span", { class: "kind" }, m.kind), m.name ? ` ${m.name}` : "",
      m.is_error ? [" ", el("span", { class: "badge failed" }, "error")] : null, el("span", { class: "muted" }, ` · ${place}`)),
    el("div", { class: "msg-body" }, [m.content, input].filter(Boolean).join("\n")));
}

function drawWindow(context) {
  const messages = context.messages.map((m) => messageItem(m, m.exchange_id ? `exchange #${m.exchange_id}` : "preamble"));
  const rendered = el("details", {}, el("summary", {}, "The summary as the model sees it"), el("pre", {}, context.summary));
  fill("window", rendered, messages.length ? el("ul", { class: "msgs" }, messages) : el("p", { class: "muted" }, "The window is empty."));
}

function drawProvenance(answer, exchanges) {
  if (!answer.ok) {
    fill("provenance", el("p", { class: "muted" },
      `Provenance not available (the server answered ${answer.status} for /provenance).`));
    return;
  }
  const ledger = answer.body.exchanges || [];
  const counts = {};
  for (const e of ledger) counts[e.state] = (counts[e.state] || 0) + 1;
  const dropped = ledger.filter((e) => e.state === "dropped");
  const summaryLine = el("p", { class: "small" }, Object.entries(counts).map(([s, n]) => `${n} ${s}`).join(" · ") || "No evicted exchanges.");
  if (!dropped.length) {
    fill("provenance", summaryLine, el("p", { class: "muted" }, "Nothing has been dropped."));
    return;
  }
  const rows = dropped.map((e) => el("tr", {}, el("td", {}, `#${e.id}`),
    el("td", {}, exchanges.get(e.id) ? exchanges.get(e.id).title : ""), el("td", { class: "wrap" }, e.reason || "—"),
    el("td", { class: "num" }, e.version ?? "—")));
  fill("provenance", summaryLine, el("table", {}, el("thead", {}, el("tr", {},
    ["Exchange", "Title", "Reason", "Version"].map((h) => el("th", {}, h)))), el("tbody", {}, rows)));
}

