// The operator's page, part 1: DOM helpers, the API client and the login. Plain DOM calls only; every
// value from the server is set as text, never parsed as HTML. Loaded before fleet.js, agent.js, app.js.
"use strict";

const TOKEN_KEY = "summarizer.token";
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

let operator = false;

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
  if (!state) return el("span", { class: "muted" }, "never queued");
  return el("span", { class: `badge ${state}` }, state === "failed" ? "parked" : state);
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

