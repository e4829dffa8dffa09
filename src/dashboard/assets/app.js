// corral dashboard: the page's script. Every string from the ledger (source
// ids, tool names, messages, reasons, actors) is untrusted: it only ever goes
// into textContent or an attribute set with setAttribute, never into markup.
import { barChart, sparkline } from "/chart.js";
import { libraryPanel } from "/library.js";

const state = { token: "", window: "hour", offset: 0, search: "", selected: null, detailPages: { tools: 0, strikes: 0, events: 0 }, version: null, overview: null, pollMs: 2000 };

// The token comes in the URL's fragment (never sent to a server); keep it for this tab only, and take it out of the address bar.
function readToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromUrl = fragment.get("token");
  if (fromUrl) {
    sessionStorage.setItem("corral-token", fromUrl);
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem("corral-token") ?? "";
}

function el(tag, options = {}, children = []) {
  const node = document.createElement(tag);
  if (options.class) node.className = options.class;
  if (options.text !== undefined) node.textContent = String(options.text);
  for (const [name, value] of Object.entries(options.attrs ?? {})) node.setAttribute(name, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

const $ = (id) => document.getElementById(id);
const number = new Intl.NumberFormat();
const percent = (rate) => (rate === 0 ? "0%" : rate < 0.001 ? "<0.1%" : `${(rate * 100).toFixed(rate < 0.1 ? 1 : 0)}%`);
const when = (ms) => (ms === null || ms === undefined ? "—" : new Date(ms).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" }));
const STRIKES = new Set(["timeout", "memory", "crash"]);

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

function stateBadge(sourceState) {
  return el("span", { class: `badge ${sourceState.state}`, text: sourceState.state === "quarantined" ? "quarantined" : "active" });
}

function renderCards(totals) {
  const cards = [
    ["Sources", totals.sources, ""],
    ["Quarantined", totals.quarantined, totals.quarantined > 0 ? "bad" : ""],
    ["Calls", totals.calls, ""],
    ["Strikes", totals.strikes, totals.strikes > 0 ? "bad" : ""],
  ];
  $("cards").replaceChildren(...cards.map(([label, value, tone]) => el("div", { class: `card ${tone}`, attrs: { "data-card": label.toLowerCase() } }, [el("div", { class: "label", text: label }), el("div", { class: "value", text: number.format(value) })])));
}

function renderChart(target, counts, window) {
  const total = counts.reduce((sum, n) => sum + n, 0);
  const names = { hour: "the last hour, per minute", day: "the last day, per 30 minutes", week: "the last week, per 2 hours" };
  target.replaceChildren(barChart(counts, window), el("div", { class: "caption", text: `${number.format(total)} strike${total === 1 ? "" : "s"} in ${names[window.name]}` }));
}

function renderTable(page) {
  const rows = page.rows.map((row) => {
    const tr = el("tr", { attrs: { tabindex: 0, "data-source": row.source, "aria-current": row.source === state.selected ? "true" : "false" } }, [
      el("td", {}, [el("div", { class: "source-id", text: row.source })]),
      el("td", {}, [stateBadge(row.state)]),
      el("td", { class: "num", text: number.format(row.strikes) }),
      el("td", { class: "num opt", text: number.format(row.calls) }),
      el("td", { class: "num", text: percent(row.strikeRate) }),
      el("td", { class: "spark-cell" }, [sparkline(row.timeline)]),
      el("td", { class: "opt small", text: when(row.lastCallAt) }),
    ]);
    const open = () => selectSource(row.source);
    tr.addEventListener("click", open);
    tr.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        open();
      }
    });
    return tr;
  });
  if (rows.length === 0) rows.push(el("tr", {}, [el("td", { class: "empty-note", text: state.search ? "No source matches the filter." : "The ledger has no sources yet.", attrs: { colspan: 7 } })]));
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

function pageControls(key, page, size) {
  if (page.total <= size) return null;
  const wrap = el("div", { class: "pager" });
  const previous = el("button", { text: "← Newer", attrs: { type: "button" } });
  const next = el("button", { text: "Older →", attrs: { type: "button" } });
  previous.disabled = page.offset === 0;
  next.disabled = page.offset + size >= page.total;
  previous.addEventListener("click", () => { state.detailPages[key] = Math.max(0, page.offset - size); loadDetail(); });
  next.addEventListener("click", () => { state.detailPages[key] = page.offset + size; loadDetail(); });
  wrap.append(el("span", { text: `${page.offset + 1}–${Math.min(page.offset + size, page.total)} of ${page.total}` }), el("span", {}, [previous, document.createTextNode(" "), next]));
  return wrap;
}

function stateLine(sourceState) {
  if (sourceState.state === "active") return sourceState.since === null ? "Active: never quarantined." : `Active since ${when(sourceState.since)}.`;
  const until = sourceState.until === null ? "until an operator releases it" : `until ${when(sourceState.until)}`;
  return `Quarantined ${until}, since ${when(sourceState.since)} by ${sourceState.actor}: ${sourceState.reason}`;
}

function renderDetail(data) {
  const { detail, pageSize } = data;
  const section = $("detail");
  const action = detail.state.state === "quarantined"
    ? el("button", { class: "primary", text: "Release", attrs: { type: "button", "data-action": "release" } })
    : el("button", { class: "danger", text: "Quarantine", attrs: { type: "button", "data-action": "quarantine" } });
  action.addEventListener("click", () => ask(detail.state.state === "quarantined" ? "release" : "quarantine", detail.source));
  const close = el("button", { class: "ghost", text: "Close", attrs: { type: "button" } });
  close.addEventListener("click", () => { state.selected = null; section.hidden = true; refresh(); });
  const chart = el("div", { class: "chart" });
  renderChart(chart, data.timeline, data.window);

  const toolRows = detail.tools.rows.map((tool) =>
    el("tr", { attrs: { "data-tool": tool.tool } }, [
      el("td", {}, [el("div", { class: "mono tool-name", text: tool.tool })]),
      el("td", { class: "num", text: number.format(tool.calls) }),
      el("td", { class: "num", text: number.format(tool.strikes) }),
      el("td", {}, Object.entries(tool.outcomes).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([kind, n]) => el("span", { class: `badge outcome ${kind === "ok" ? "ok" : STRIKES.has(kind) ? "strike" : ""}`, text: `${kind} ${number.format(n)}` }))),
      el("td", { class: "num", text: `${tool.meanWallMs.toFixed(1)} ms` }),
      el("td", { class: "num opt", text: `${tool.lastWallMs.toFixed(1)} ms` }),
      el("td", { class: "num opt", text: `${(tool.maxHeapBytes / 1048576).toFixed(1)} MB` }),
    ]),
  );
  const tools = el("div", { class: "table-wrap" }, [
    el("table", { class: "tools" }, [
      el("thead", {}, [el("tr", {}, ["Tool", "Calls", "Strikes", "Outcomes", "Mean", "Last", "Max heap"].map((name, index) => el("th", { class: index === 0 || index === 3 ? "" : index > 4 ? "num opt" : "num", text: name })))]),
      el("tbody", {}, toolRows.length ? toolRows : [el("tr", {}, [el("td", { class: "empty-note", text: "No calls recorded.", attrs: { colspan: 7 } })])]),
    ]),
  ]);
  const strikes = detail.strikes.rows.length
    ? el("ul", { class: "list strikes" }, detail.strikes.rows.map((strike) => el("li", {}, [el("span", { class: "when", text: when(strike.at) }), el("span", { class: "what" }, [el("span", { class: "badge outcome strike", text: strike.outcome }), document.createTextNode(" "), el("span", { class: "mono", text: strike.tool })]), el("div", { class: "message", text: strike.message })])))
    : el("p", { class: "empty-note", text: "No strikes kept." });
  const events = detail.events.rows.length
    ? el("ul", { class: "list events" }, detail.events.rows.map((event) => el("li", {}, [el("span", { class: "when", text: when(event.at) }), el("span", { class: "what" }, [el("strong", { text: event.kind.replace("_", " ") }), document.createTextNode(" by "), el("span", { class: "mono", text: event.actor })]), el("div", { class: "message", text: event.reason })])))
    : el("p", { class: "empty-note", text: "No changes of state." });

  const parts = [
    el("div", { class: "detail-head" }, [
      el("div", {}, [el("h2", { text: detail.source }), el("p", { class: "state-line", text: stateLine(detail.state) })]),
      el("div", { class: "buttons" }, [stateBadge(detail.state), action, close]),
    ]),
    el("h3", { text: "Strike timeline" }), chart,
    el("h3", { text: `Tools (${detail.tools.total})` }), tools, pageControls("tools", detail.tools, pageSize),
    ...(libraryPanel(data.library, { el, when }) ?? []),
    el("h3", { text: `Recent strikes (${detail.strikes.total} kept)` }), strikes, pageControls("strikes", detail.strikes, pageSize),
    el("h3", { text: `State changes (${detail.events.total})` }), events, pageControls("events", detail.events, pageSize),
  ];
  section.replaceChildren(...parts.filter((part) => part !== null));
  section.hidden = false;
}

async function loadDetail() {
  if (state.selected === null) return;
  const query = new URLSearchParams({ id: state.selected, window: state.window, tools: state.detailPages.tools, strikes: state.detailPages.strikes, events: state.detailPages.events });
  try {
    renderDetail(await api(`/api/source?${query}`));
  } catch (error) {
    if (error.status === 404) { state.selected = null; $("detail").hidden = true; return; }
    throw error;
  }
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
  refresh().then(() => setLive("live", "live"), showError).finally(() => setTimeout(poll, state.pollMs));
}

start();
