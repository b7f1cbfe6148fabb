// The operator's page, part 4: the recall box of one agent (GET .../recall), each result with where its
// exchange stands in the summary and its messages behind a disclosure.
"use strict";

let recallBase = null;

function resetRecall(base) {
  recallBase = base;
  $("recall-q").value = "";
  fill("recall");
}

function recallWhere(p) {
  if (p.state === "summarized") return `summarized in item ${p.item_id} (version ${p.version})`;
  if (p.state === "dropped") return `dropped (${p.reason}, version ${p.version})`;
  if (p.state === "waiting") return "evicted, waiting for a summary update";
  if (p.state === "in_window") return "in the window";
  return p.state;
}

async function runRecall(ev) {
  ev.preventDefault();
  const q = $("recall-q").value.trim();
  if (!q || !recallBase) return;
  fill("recall", el("p", { class: "muted small" }, "Searching…"));
  let page;
  try {
    page = await api(`${recallBase}/recall?q=${encodeURIComponent(q)}&limit=10`);
  } catch (error) {
    if (error.status === 401) return; // api() has logged out
    fill("recall", el("p", { class: "error" }, error.message));
    return;
  }
  if (!page.results.length) {
    fill("recall", el("p", { class: "muted" }, `Nothing matches “${page.terms.join(" ")}”.`));
    return;
  }
  const rows = page.results.map((r) => el("li", { class: "source", "data-exchange": r.exchange_id },
    el("div", { class: "source-title" }, `#${r.exchange_id} ${r.title}`),
    el("div", { class: "muted small" }, `${recallWhere(r.provenance)} · ended ${when(r.ended_at)} · matched ${r.matched.join(", ")}`),
    el("ul", { class: "msgs" }, r.snippets.map((s) => el("li", { class: `msg ${s.kind}` },
      el("div", { class: "msg-head" }, el("span", { class: "kind" }, s.kind)), el("div", { class: "msg-body" }, s.text)))),
    exchangeMessages(recallBase, { id: r.exchange_id, message_count: null })));
  const total = page.capped ? `${page.total}+` : `${page.total}`;
  fill("recall", el("p", { class: "small" }, `${total} matching ${page.total === 1 ? "exchange" : "exchanges"}, best first:`),
    el("ul", { class: "sources" }, rows));
}
