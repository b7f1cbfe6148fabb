// The operator's page, part 4: routing by the URL's hash, and the page's event handlers.
"use strict";

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
$("recall-form").addEventListener("submit", (ev) => runRecall(ev).catch((e) => showStatus(e.message)));
$("range").addEventListener("click", (ev) => {
  const button = ev.target.closest("button");
  if (!button) return;
  range = { since: button.dataset.since, buckets: Number(button.dataset.buckets) };
  for (const b of $("range").querySelectorAll("button")) b.classList.toggle("on", b === button);
  Promise.all([loadChart(), loadQueueCards()]).catch((e) => showStatus(e.message));
});
window.addEventListener("hashchange", route);
route();
