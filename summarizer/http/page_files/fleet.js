// The operator's page, part 2: the fleet view (queue, chart, alerts, agents).
"use strict";

const QUEUE_STATES = [
  ["pending", "Pending", "waiting for a worker"],
  ["running", "Running", "being summarized"],
  ["failed", "Parked", "failed; needs requeue"],
  ["idle", "Idle", "up to date"],
];

let range = { since: "24h", buckets: 24 };
let agentPage = { q: "", after: null };

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

// Times in UTC, like every time the CLI prints: "14:00" within a day, "11-23 14:00" over several days.
function bucketLabel(iso, windowSeconds) {
  const text = new Date(iso).toISOString();
  return windowSeconds > 86400 ? `${text.slice(5, 10)} ${text.slice(11, 16)}` : text.slice(11, 16);
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
  const span = data.bucket_seconds * data.buckets.length;
  const labelEvery = Math.ceil(data.buckets.length / 8);
  data.buckets.forEach((b, i) => {
    const x = left + i * slot + slot * 0.15, w = slot * 0.7;
    const okH = (plotH * b.completed) / peak, failH = (plotH * b.failed) / peak;
    const title = `${bucketLabel(b.start, span)} UTC: ${b.completed} completed, ${b.failed} failed`;
    const group = svg("g", {});
    group.append(svg("title", {}, title));
    group.append(svg("rect", { x, width: w, y: top + plotH - okH, height: okH, class: "ok" }));
    group.append(svg("rect", { x, width: w, y: top + plotH - okH - failH, height: failH, class: "fail" }));
    chart.append(group);
    if (i % labelEvery === 0) {
      chart.append(svg("text", { x: x + w / 2, y: height - 8, class: "axis", "text-anchor": "middle" },
        bucketLabel(b.start, span)));
    }
  });
  const totals = data.buckets.reduce((t, b) => [t[0] + b.completed, t[1] + b.failed], [0, 0]);
  const legend = el("div", { class: "legend" },
    el("span", { class: "key ok" }), `completed (${totals[0]})`,
    el("span", { class: "key fail" }), `failed (${totals[1]})`, el("span", { class: "utc" }, "times in UTC"));
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

// Each agent's model spend over the chart's window, by agent (an unscoped token only; null otherwise).
async function agentSpend() {
  if (!operator) return null;
  try {
    const report = await api(`/v1/cost?since=${range.since}&by=agent`);
    return new Map(report.lines.map((line) => [line.key, line.usd]));
  } catch (error) {
    return null;
  }
}

// An exact decimal USD string, shown to the hundredth of a cent.
function usd(text) {
  const value = Number(text);
  return value > 0 && value < 0.0001 ? "<$0.0001" : `$${value.toFixed(4)}`;
}

function agentHref(id) {
  return `#/agent/${encodeURIComponent(id)}`;
}

async function loadAgents(fresh) {
  if (fresh) agentPage = { q: $("agent-q").value.trim(), after: null };
  const params = new URLSearchParams({ limit: "50" });
  if (agentPage.q) params.set("q", agentPage.q);
  if (agentPage.after) params.set("after", agentPage.after);
  const [rows, spend] = await Promise.all([api(`/v1/agents?${params}`), agentSpend()]);
  const body = fresh ? el("tbody", {}) : $("agents").querySelector("tbody");
  for (const a of rows) {
    body.append(el("tr", {},
      el("td", {}, el("a", { href: agentHref(a.agent_id), class: "agent-link" }, a.agent_id)),
      el("td", {}, badge(a.queue_state)),
      el("td", { class: "num" }, a.summary_version ?? "—"),
      el("td", { class: "num" }, num(a.summary_tokens) ?? "—"),
      el("td", { class: "num" }, num(a.window_tokens)),
      el("td", { class: "num" }, num(a.unsummarized_exchanges)),
      el("td", { class: "num", title: "model spend: recorded tokens x list prices" },
        spend === null ? "—" : usd(spend.get(a.agent_id) ?? "0")),
      el("td", {}, when(a.last_message_at))));
  }
  agentPage.after = rows.length ? rows[rows.length - 1].agent_id : agentPage.after;
  const more = rows.length === 50
    ? el("button", { type: "button", class: "small-btn", onclick: () => loadAgents(false) }, "More agents")
    : null;
  if (fresh) {
    const head = el("thead", {}, el("tr", {}, ["Agent", "Queue", "Version", "Summary tokens", "Window tokens",
      "Waiting exchanges", `Cost (${range.since})`, "Last message"].map((h) => el("th", {}, h))));
    const empty = rows.length ? null : el("p", { class: "muted" }, agentPage.q ? "No agent matches." : "No agents yet.");
    fill("agents", el("table", {}, head, body), empty, el("div", { id: "agents-more" }, more));
  } else {
    fill("agents-more", more);
  }
}

