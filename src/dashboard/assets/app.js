// corral dashboard: the page's script. Every string from the ledger (source
// ids, tool names, messages, reasons, actors) is untrusted: it only ever goes
// into textContent or an attribute set with setAttribute, never into markup.
import { sparkline } from "/chart.js";
import { $, el, number, percent, renderChart, sourceHref, sourceInHash, stateBadge, when } from "/dom.js";
import { renderDetail } from "/source.js";

const state = { token: "", window: "hour", offset: 0, search: "", selected: null, detailPages: { tools: 0, strikes: 0, events: 0 }, version: null, overview: null, pollMs: 2000 };

// The token comes in the URL's fragment (never sent to a server); keep it for this tab only, and take it out of
// the address bar, leaving the source it names, if any (#token=…&source=…): that is the source's own address.
function readToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromUrl = fragment.get("token");
  if (fromUrl) {
    sessionStorage.setItem("corral-token", fromUrl);
    const source = fragment.get("source");
    history.replaceState(null, "", location.pathname + (source === null ? "" : sourceHref(source)));
  }
  return sessionStorage.getItem("corral-token") ?? "";
}

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(path, body) {
  const init = { headers: { Authorization: `Bearer ${state.token}` }, cache: "no-store" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new ApiError(response.status, data.error ?? `HTTP ${response.status}`);
  return data;
}

function notice(text) {
  const box = $("notice");
  box.hidden = text === null;
  box.textContent = text ?? "";
}

function setLive(mode, text) {
  $("live").dataset.state = mode;
  $("live-text").textContent = text;
}

function renderCards(totals) {
  const cards = [
    ["Sources", totals.sources, ""],
    ["Quarantined", totals.quarantined, totals.quarantined > 0 ? "bad" : ""],
    ["Calls", totals.calls, ""],
    ["Errors", totals.errors, totals.errors > 0 ? "bad" : ""],
    ["Strikes", totals.strikes, totals.strikes > 0 ? "bad" : ""],
  ];
  $("cards").replaceChildren(...cards.map(([label, value, tone]) => el("div", { class: `card ${tone}`, attrs: { "data-card": label.toLowerCase() } }, [el("div", { class: "label", text: label }), el("div", { class: "value", text: number.format(value) })])));
}

function renderTable(page) {
  const rows = page.rows.map((row) => {
    const tr = el("tr", { attrs: { tabindex: 0, "data-source": row.source, "aria-current": row.source === state.selected ? "true" : "false" } }, [
      el("td", {}, [el("a", { class: "source-link", attrs: { href: sourceHref(row.source) } }, [el("div", { class: "source-id", text: row.source })])]),
      el("td", {}, [stateBadge(row.state)]),
      el("td", { class: "num", text: number.format(row.strikes) }),
      el("td", { class: "num opt", text: number.format(row.calls) }),
      el("td", { class: `num errors${row.errors > 0 ? " bad" : ""}`, text: percent(row.errorRate) }),
      el("td", { class: "num opt", text: percent(row.strikeRate) }),
      el("td", { class: "spark-cell" }, [sparkline(row.timeline)]),
      el("td", { class: "opt small", text: when(row.lastCallAt) }),
    ]);
    const open = () => openSource(row.source);
    tr.addEventListener("click", (event) => {
      // The link opens it by its address (hashchange); a click elsewhere on the row does the same.
      if (event.target.closest("a") !== null) return;
      open();
    });
    tr.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        open();
      }
    });
    return tr;
  });
  if (rows.length === 0) rows.push(el("tr", {}, [el("td", { class: "empty-note", text: state.search ? "No source matches the filter." : "The ledger has no sources yet.", attrs: { colspan: 8 } })]));
  $("sources").tBodies[0].replaceChildren(...rows);
  const last = Math.min(page.offset + page.limit, page.total);
  const previous = el("button", { text: "← Previous", attrs: { type: "button" } });
  const next = el("button", { text: "Next →", attrs: { type: "button" } });
  previous.disabled = page.offset === 0;
  next.disabled = last >= page.total;
  previous.addEventListener("click", () => { state.offset = Math.max(0, page.offset - page.limit); refresh(); });
  next.addEventListener("click", () => { state.offset = page.offset + page.limit; refresh(); });
  $("pager").replaceChildren(el("span", { text: page.total === 0 ? "0 sources" : `${number.format(page.offset + 1)}–${number.format(last)} of ${number.format(page.total)} sources` }), el("span", {}, [previous, document.createTextNode(" "), next]));
}

async function loadDetail() {
  if (state.selected === null) return;
  const query = new URLSearchParams({ id: state.selected, window: state.window, tools: state.detailPages.tools, strikes: state.detailPages.strikes, events: state.detailPages.events });
  try {
    renderDetail(await api(`/api/source?${query}`), {
      onAction: ask,
      onClose: () => { history.pushState(null, "", location.pathname + location.search); closeSource(); },
      onPage: (key, offset) => { state.detailPages[key] = offset; loadDetail().catch(showError); },
    });
  } catch (error) {
    if (error.status === 404) { notice(`The ledger has no source ${state.selected}.`); state.selected = null; $("detail").hidden = true; return; }
    throw error;
  }
}

/** Opens a source by its address, so that the address bar, back and forward follow what is shown. */
function openSource(source) {
  if (sourceInHash() === source) selectSource(source);
  else location.hash = sourceHref(source).slice(1);
}

function closeSource() {
  state.selected = null;
  $("detail").hidden = true;
  for (const row of $("sources").tBodies[0].rows) row.setAttribute("aria-current", "false");
}

function selectSource(source) {
  state.selected = source;
  state.detailPages = { tools: 0, strikes: 0, events: 0 };
  for (const row of $("sources").tBodies[0].rows) row.setAttribute("aria-current", row.dataset.source === source ? "true" : "false");
  loadDetail().then(() => $("detail").scrollIntoView({ behavior: "smooth", block: "start" }), showError);
}

async function refresh() {
  const query = new URLSearchParams({ window: state.window, offset: state.offset });
  if (state.search) query.set("search", state.search);
  const overview = await api(`/api/overview?${query}`);
  state.overview = overview;
  state.version = overview.version;
  renderCards(overview.totals);
  renderChart($("chart"), overview.timeline, overview.window);
  renderTable(overview.page);
  await loadDetail();
  notice(null);
}

function showError(error) {
  if (error instanceof ApiError && error.status === 401) {
    notice(`Refused: ${error.message}. Open the address \`corral dashboard\` printed; it carries the token.`);
    setLive("error", "no access");
  } else {
    notice(`The dashboard could not load: ${error.message}`);
    setLive("error", "offline");
  }
}

// Quarantine and release ask for a reason, kept with the change in the ledger.
function ask(action, source) {
  const dialog = $("ask");
  $("ask-title").textContent = action === "quarantine" ? "Quarantine this source?" : "Release this source?";
  $("ask-source").textContent = source;
  $("ask-reason").value = "";
  $("ask-until-row").hidden = action !== "quarantine";
  $("ask-until").value = "";
  $("ask-error").hidden = true;
  const ok = $("ask-ok");
  ok.textContent = action === "quarantine" ? "Quarantine" : "Release";
  ok.className = action === "quarantine" ? "danger" : "primary";
  ok.onclick = async () => {
    const reason = $("ask-reason").value.trim();
    if (reason === "") {
      $("ask-error").textContent = "A reason is required.";
      $("ask-error").hidden = false;
      return;
    }
    const body = { source, reason };
    const forMs = Number($("ask-until").value);
    if (action === "quarantine" && forMs > 0) body.untilMs = Date.now() + forMs;
    try {
      await api(`/api/${action}`, body);
      dialog.close();
      await refresh();
    } catch (error) {
      $("ask-error").textContent = error.message;
      $("ask-error").hidden = false;
    }
  };
  $("ask-cancel").onclick = () => dialog.close();
  dialog.showModal();
  $("ask-reason").focus();
}

// Live: one small request at a time asks whether anyone committed to the ledger; a change reloads what is shown.
async function poll() {
  try {
    const { version, pollMs } = await api("/api/version");
    state.pollMs = pollMs;
    if (version !== state.version) await refresh();
    setLive("live", "live");
  } catch (error) {
    showError(error);
  }
  setTimeout(poll, document.hidden ? state.pollMs * 5 : state.pollMs);
}

function start() {
  state.token = readToken();
  state.selected = sourceInHash();
  window.addEventListener("hashchange", () => {
    const source = sourceInHash();
    if (source === null) closeSource();
    else if (source !== state.selected) selectSource(source);
  });
  for (const tab of document.querySelectorAll("[data-window]")) {
    tab.addEventListener("click", () => {
      state.window = tab.dataset.window;
      for (const other of document.querySelectorAll("[data-window]")) other.setAttribute("aria-selected", other === tab ? "true" : "false");
      refresh().catch(showError);
    });
  }
  let typing;
  $("search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => { state.search = $("search").value.trim(); state.offset = 0; refresh().catch(showError); }, 250);
  });
  // The windows move with the clock even when nobody writes.
  setInterval(() => { if (!document.hidden) refresh().catch(showError); }, 60_000);
  refresh().then(() => {
    setLive("live", "live");
    if (state.selected !== null) $("detail").scrollIntoView({ block: "start" });
  }, showError).finally(() => setTimeout(poll, state.pollMs));
}

start();
