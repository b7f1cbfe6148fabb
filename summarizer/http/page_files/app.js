// The operator's page: reads the summarizer JSON API with the token typed in and draws the fleet and one
// agent. Plain DOM calls only; every value from the server is set as text, never parsed as HTML.
"use strict";

const TOKEN_KEY = "summarizer.token";
const TIERS = [
  ["session", "Previously in This Session"],
  ["yesterday", "Yesterday"],
  ["week", "This Week"],
];
const QUEUE_STATES = [
  ["pending", "Pending", "waiting for a worker"],
  ["running", "Running", "being summarized"],
  ["failed", "Parked", "failed; needs requeue"],
  ["idle", "Idle", "up to date"],
];
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

let operator = false;
let range = { since: "24h", buckets: 24 };
let agentPage = { q: "", after: null };

// ----- helpers ------------------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function fill(id, ...children) {
  $(id).replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
}

function when(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  const seconds = (Date.now() - date.getTime()) / 1000;
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

function num(value) {
  return typeof value === "number" ? value.toLocaleString("en-US") : value;
}

function plural(n, word) {
  return `${num(n)} ${word}${n === 1 ? "" : "s"}`;
}

function badge(state) {
  return el("span", { class: `badge ${state || "none"}` }, state === "failed" ? "parked" : state || "—");
}

function showStatus(message) {
  $("status").textContent = message || "";
  $("status").hidden = !message;
}

class ApiError extends Error {
  constructor(status, detail) {
    super(`${status}: ${detail}`);
    this.status = status;
  }
}

async function api(path, options) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const reply = await fetch(path, {
    ...options,
    headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
  });
  let body = null;
  try {
    body = await reply.json();
  } catch (_) {
    body = null;
  }
  if (reply.status === 401) {
    logout("The server no longer accepts this token. Log in again.");
    throw new ApiError(401, "token refused");
  }
  if (!reply.ok) {
    const detail = body && body.detail ? JSON.stringify(body.detail) : reply.statusText;
    throw new ApiError(reply.status, detail);
  }
  return body;
}

// ----- login ----------------------------------------------------------------------------------------

function showOnly(section) {
  for (const id of ["login", "fleet", "agent"]) $(id).hidden = id !== section;
  $("nav").hidden = section === "login";
}

function logout(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  // Nothing read with the old token stays in the page.
  for (const id of ["queue-cards", "chart", "alerts", "agents", "agent-head", "tiers", "sources", "window", "provenance"]) {
    fill(id);
  }
  $("agent-q").value = "";
  showOnly("login");
  $("login-error").textContent = message || "";
  $("login-error").hidden = !message;
}

async function login(event) {
  event.preventDefault();
  const token = $("token").value.trim();
  const probe = await fetch("/v1/agents?limit=1", { headers: { Authorization: `Bearer ${token}` } });
  if (probe.status === 401) {
    $("login-error").textContent = "This token is not accepted by the server. Check SUMMARIZER_API_TOKENS.";
    $("login-error").hidden = false;
    return;
  }
  if (!probe.ok) {
    $("login-error").textContent = `The server answered ${probe.status}; try again.`;
    $("login-error").hidden = false;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
  $("login-error").hidden = true;
  await route();
}

async function detectScope() {
  try {
    await api("/v1/stats?since=24h");
    operator = true;
  } catch (error) {
    if (error.status !== 403) throw error;
    operator = false;
  }
  $("scope").textContent = operator ? "operator token" : "token limited to some agents";
}

// ----- fleet ----------------------------------------------------------------------------------------

async function showFleet() {
  showOnly("fleet");
  $("fleet-ops").hidden = !operator;
  $("fleet-scoped").hidden = operator;
  $("fleet-scoped").textContent =
    "This token is limited to some agents: the queue, chart and alerts need an unscoped token.";
  const work = [loadAgents(true)];
  if (operator) work.push(loadQueueCards(), loadChart(), loadAlerts());
  await Promise.all(work);
}

async function loadQueueCards() {
  const stats = await api(`/v1/stats?since=${range.since}`);
  const cards = QUEUE_STATES.map(([state, label, hint]) =>
    el("div", { class: `card stat ${state}` }, el("div", { class: "stat-label" }, label),
      el("div", { class: "stat-value" }, num(stats.queue[state] ?? 0)), el("div", { class: "muted small" }, hint)));
  const rate = (stats.failure_rate * 100).toFixed(1);
  cards.push(el("div", { class: "card stat" }, el("div", { class: "stat-label" }, `Updates (${range.since})`),
    el("div", { class: "stat-value" }, num(stats.updates_completed)),
    el("div", { class: "muted small" }, `${num(stats.updates_failed)} failed (${rate}%), avg ${num(stats.avg_duration_ms) ?? "—"} ms`)));
  fill("queue-cards", cards);
}

function niceMax(value) {
  if (value <= 4) return 4;
  const step = Math.pow(10, Math.floor(Math.log10(value)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= value) return m * step;
  return 10 * step;
}

function bucketLabel(iso, seconds) {
  const date = new Date(iso);
  if (seconds >= 86400 / 2) return date.toISOString().slice(5, 10);
  return date.toISOString().slice(11, 16);
}

async function loadChart() {
  const data = await api(`/v1/stats/series?since=${range.since}&buckets=${range.buckets}`);
  const width = 900, height = 220, left = 40, right = 10, top = 12, bottom = 28;
  const plotW = width - left - right, plotH = height - top - bottom;
  const peak = niceMax(Math.max(1, ...data.buckets.map((b) => b.completed + b.failed)));
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "bars",
    "aria-label": `Summary updates per ${Math.round(data.bucket_seconds / 60)} minutes` });
  for (let i = 0; i <= 4; i++) {
    const y = top + plotH - (plotH * i) / 4;
    chart.append(svg("line", { x1: left, x2: width - right, y1: y, y2: y, class: "grid" }));
    chart.append(svg("text", { x: left - 6, y: y + 4, class: "axis", "text-anchor": "end" }, (peak * i) / 4));
  }
  const slot = plotW / data.buckets.length;
  const labelEvery = Math.ceil(data.buckets.length / 8);
  data.buckets.forEach((b, i) => {
    const x = left + i * slot + slot * 0.15, w = slot * 0.7;
    const okH = (plotH * b.completed) / peak, failH = (plotH * b.failed) / peak;
    const title = `${bucketLabel(b.start, data.bucket_seconds)}: ${b.completed} completed, ${b.failed} failed`;
    const group = svg("g", {});
    group.append(svg("title", {}, title));
    group.append(svg("rect", { x, width: w, y: top + plotH - okH, height: okH, class: "ok" }));
    group.append(svg("rect", { x, width: w, y: top + plotH - okH - failH, height: failH, class: "fail" }));
    chart.append(group);
    if (i % labelEvery === 0) {
      chart.append(svg("text", { x: x + w / 2, y: height - 8, class: "axis", "text-anchor": "middle" },
        bucketLabel(b.start, data.bucket_seconds)));
    }
  });
  const totals = data.buckets.reduce((t, b) => [t[0] + b.completed, t[1] + b.failed], [0, 0]);
  const legend = el("div", { class: "legend" },
    el("span", { class: "key ok" }), `completed (${totals[0]})`,
    el("span", { class: "key fail" }), `failed (${totals[1]})`);
  fill("chart", chart, legend);
}

async function loadAlerts() {
  const alerts = await api("/v1/alerts?limit=100");
  if (!alerts.length) {
    fill("alerts", el("p", { class: "muted" }, "No open alerts."));
    return;
  }
  const rows = alerts.map((a) => el("tr", {},
    el("td", {}, el("span", { class: `badge sev-${a.severity}` }, a.severity)),
    el("td", {}, a.kind),
    el("td", {}, a.agent_id ? el("a", { href: agentHref(a.agent_id) }, a.agent_id) : "fleet"),
    el("td", { class: "wrap" }, a.message),
    el("td", {}, when(a.created_at)),
    el("td", {}, a.acknowledged_at
      ? el("span", { class: "muted" }, "acknowledged")
      : el("button", { type: "button", class: "small-btn", onclick: () => ackAlert(a.id) }, "Ack"))));
  fill("alerts", el("table", {}, el("thead", {}, el("tr", {}, ["Severity", "Kind", "Agent", "Message", "Raised", ""]
    .map((h) => el("th", {}, h)))), el("tbody", {}, rows)));
}

async function ackAlert(id) {
  await api(`/v1/alerts/${id}/ack`, { method: "POST" });
  await loadAlerts();
}

function agentHref(id) {
  return `#/agent/${encodeURIComponent(id)}`;
}

async function loadAgents(fresh) {
  if (fresh) agentPage = { q: $("agent-q").value.trim(), after: null };
  const params = new URLSearchParams({ limit: "50" });
  if (agentPage.q) params.set("q", agentPage.q);
  if (agentPage.after) params.set("after", agentPage.after);
  const rows = await api(`/v1/agents?${params}`);
  const body = fresh ? el("tbody", {}) : $("agents").querySelector("tbody");
  for (const a of rows) {
    body.append(el("tr", {},
      el("td", {}, el("a", { href: agentHref(a.agent_id), class: "agent-link" }, a.agent_id)),
      el("td", {}, badge(a.queue_state)),
      el("td", { class: "num" }, a.summary_version ?? "—"),
      el("td", { class: "num" }, num(a.summary_tokens) ?? "—"),
      el("td", { class: "num" }, num(a.window_tokens)),
      el("td", { class: "num" }, num(a.unsummarized_exchanges)),
      el("td", {}, when(a.last_message_at))));
  }
  agentPage.after = rows.length ? rows[rows.length - 1].agent_id : agentPage.after;
  const more = rows.length === 50
    ? el("button", { type: "button", class: "small-btn", onclick: () => loadAgents(false) }, "More agents")
    : null;
  if (fresh) {
    const head = el("thead", {}, el("tr", {}, ["Agent", "Queue", "Version", "Summary tokens", "Window tokens",
      "Waiting exchanges", "Last message"].map((h) => el("th", {}, h))));
    const empty = rows.length ? null : el("p", { class: "muted" }, agentPage.q ? "No agent matches." : "No agents yet.");
    fill("agents", el("table", {}, head, body), empty, el("div", { id: "agents-more" }, more));
  } else {
    fill("agents-more", more);
  }
}

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
  const [summary, history, context, provenance] = await Promise.all([
    api(`${base}/summary`), api(`${base}/history`), api(`${base}/context`), optional(`${base}/provenance`),
  ]);
  const exchanges = new Map(history.exchanges.map((e) => [e.id, e]));
  const evicted = history.exchanges.filter((e) => e.state === "evicted").length;
  fill("agent-head",
    stat("Summary version", summary.version ?? "none yet", summary.updated_at ? `updated ${when(summary.updated_at)}` : ""),
    stat("Summary tokens", `${num(summary.token_count)} / ${num(summary.max_tokens)}`, meter(summary.token_count / summary.max_tokens)),
    stat("Window tokens", `${num(history.window_tokens)} / ${num(history.budget_tokens) || "∞"}`, `${plural(history.exchanges.length - evicted, "exchange")} in the window`),
    stat("Evicted exchanges", evicted, summary.covered_through_exchange_id ? `summarized through #${summary.covered_through_exchange_id}` : "none summarized yet"));
  drawTiers(summary, exchanges);
  drawWindow(context);
  drawProvenance(provenance, exchanges);
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

function drawTiers(summary, exchanges) {
  const blocks = TIERS.map(([tier, heading]) => {
    const items = summary.tiers[tier] || [];
    const list = items.map((item) => el("li", { class: "item", tabindex: "0", "data-item": item.id,
      onclick: (ev) => selectItem(ev.currentTarget, item, exchanges),
      onkeydown: (ev) => { if (ev.key === "Enter") selectItem(ev.currentTarget, item, exchanges); } },
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

function selectItem(node, item, exchanges) {
  for (const other of document.querySelectorAll(".item.selected")) other.classList.remove("selected");
  node.classList.add("selected");
  const rows = item.exchange_ids.map((id) => {
    const e = exchanges.get(id);
    if (!e) return el("li", { class: "source" }, `Exchange #${id} (no longer in the history)`);
    return el("li", { class: "source" }, el("div", { class: "source-title" }, `#${e.id} ${e.title}`),
      el("div", { class: "muted small" }, `${plural(e.message_count, "message")} · ${num(e.tokens)} tokens · started ${when(e.started_at)}` +
        (e.evicted_at ? ` · evicted ${when(e.evicted_at)}${e.evict_reason ? ` (${e.evict_reason})` : ""}` : " · in the window")));
  });
  fill("sources", el("p", { class: "small" }, `Item ${item.id} was made from ${plural(item.exchange_ids.length, "exchange")}:`),
    el("ul", { class: "sources" }, rows));
}

function drawWindow(context) {
  const messages = context.messages.map((m) => el("li", { class: `msg ${m.kind}` },
    el("div", { class: "msg-head" }, el("span", { class: "kind" }, m.kind), m.name ? ` ${m.name}` : "",
      m.exchange_id ? el("span", { class: "muted" }, ` · exchange #${m.exchange_id}`) : el("span", { class: "muted" }, " · preamble")),
    el("div", { class: "msg-body" }, m.content || (m.input ? JSON.stringify(m.input) : ""))));
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

// ----- routing --------------------------------------------------------------------------------------

async function route() {
  showStatus("");
  if (!sessionStorage.getItem(TOKEN_KEY)) {
    logout("");
    return;
  }
  try {
    await detectScope();
    const match = location.hash.match(/^#\/agent\/(.+)$/);
    if (match) await showAgent(decodeURIComponent(match[1]));
    else await showFleet();
  } catch (error) {
    if (error.status === 401) return;
    showStatus(error.status === 404 ? "That agent does not exist." : error.status === 403
      ? "This token may not see that agent." : `Could not load the page: ${error.message}`);
  }
}

$("login-form").addEventListener("submit", (ev) => login(ev).catch((e) => {
  $("login-error").textContent = `Could not reach the server: ${e.message}`;
  $("login-error").hidden = false;
}));
$("logout").addEventListener("click", () => {
  history.replaceState(null, "", "#/"); // the next login starts at the fleet (no hashchange event)
  logout("Logged out.");
});
$("agent-search").addEventListener("submit", (ev) => { ev.preventDefault(); loadAgents(true).catch((e) => showStatus(e.message)); });
$("range").addEventListener("click", (ev) => {
  const button = ev.target.closest("button");
  if (!button) return;
  range = { since: button.dataset.since, buckets: Number(button.dataset.buckets) };
  for (const b of $("range").querySelectorAll("button")) b.classList.toggle("on", b === button);
  Promise.all([loadChart(), loadQueueCards()]).catch((e) => showStatus(e.message));
});
window.addEventListener("hashchange", route);
route();
