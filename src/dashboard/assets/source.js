// corral dashboard: one source's page (what /api/source answers), opened at its
// own address (#source=<id>): its state and the actions on it, its strike
// timeline, its tools with every outcome kind, error rate and calls per
// version, their latest errors with their messages, its library tools, its
// strikes and its changes of state. Text only, through `el`.
import { $, el, number, percent, renderChart, stateBadge, STRIKES, when } from "/dom.js";
import { libraryPanel } from "/library.js";

const VERSION_CHARS = 12;

function pageControls(key, page, size, onPage) {
  if (page.total <= size) return null;
  const wrap = el("div", { class: "pager" });
  const previous = el("button", { text: "← Newer", attrs: { type: "button" } });
  const next = el("button", { text: "Older →", attrs: { type: "button" } });
  previous.disabled = page.offset === 0;
  next.disabled = page.offset + size >= page.total;
  previous.addEventListener("click", () => onPage(key, Math.max(0, page.offset - size)));
  next.addEventListener("click", () => onPage(key, page.offset + size));
  wrap.append(el("span", { text: `${page.offset + 1}–${Math.min(page.offset + size, page.total)} of ${page.total}` }), el("span", {}, [previous, document.createTextNode(" "), next]));
  return wrap;
}

function stateLine(sourceState) {
  if (sourceState.state === "active") return sourceState.since === null ? "Active: never quarantined." : `Active since ${when(sourceState.since)}.`;
  const until = sourceState.until === null ? "until an operator releases it" : `until ${when(sourceState.until)}`;
  return `Quarantined ${until}, since ${when(sourceState.since)} by ${sourceState.actor}: ${sourceState.reason}`;
}

const outcomeBadge = (kind, text) => el("span", { class: `badge outcome ${kind === "ok" ? "ok" : STRIKES.has(kind) ? "strike" : "error"}`, text });

function toolRows(tool) {
  const errors = `${number.format(tool.errors)} · ${percent(tool.errorRate)}`;
  const row = el("tr", { attrs: { "data-tool": tool.tool } }, [
    el("td", {}, [el("div", { class: "mono tool-name", text: tool.tool })]),
    el("td", { class: "num", text: number.format(tool.calls) }),
    el("td", { class: `num errors${tool.errors > 0 ? " bad" : ""}`, text: errors }),
    el("td", { class: "num", text: number.format(tool.strikes) }),
    el("td", {}, Object.entries(tool.outcomes).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([kind, n]) => outcomeBadge(kind, `${kind} ${number.format(n)}`))),
    el("td", { class: "num", text: `${tool.meanWallMs.toFixed(1)} ms` }),
    el("td", { class: "num opt", text: `${tool.lastWallMs.toFixed(1)} ms` }),
    el("td", { class: "num opt", text: `${(tool.maxHeapBytes / 1048576).toFixed(1)} MB` }),
  ]);
  // Calls per version, newest first, under the tool: what a new version changed.
  const versions = tool.versions.map((version) =>
    el("tr", { class: "version", attrs: { "data-tool-version": `${tool.tool}@${version.version}` } }, [
      el("td", { class: "mono small", text: `  ${version.version.slice(0, VERSION_CHARS)}` }),
      el("td", { class: "num small", text: number.format(version.calls) }),
      el("td", { class: "num small", text: `${number.format(version.errors)} · ${percent(version.calls === 0 ? 0 : version.errors / version.calls)}` }),
      el("td", { class: "num small", text: number.format(version.strikes) }),
      el("td", { class: "small", attrs: { colspan: 4 }, text: version.firstSeenAt === null ? "" : `first seen ${when(version.firstSeenAt)}` }),
    ]),
  );
  return [row, ...versions];
}

function latestErrors(tools) {
  const errors = tools.flatMap((tool) => tool.lastErrors.map((error) => ({ ...error, tool: tool.tool }))).sort((a, b) => b.at - a.at);
  if (errors.length === 0) return el("p", { class: "empty-note", text: "No errors kept." });
  return el("ul", { class: "list errors" }, errors.map((error) =>
    el("li", { attrs: { "data-tool-error": error.tool } }, [
      el("span", { class: "when", text: when(error.at) }),
      el("span", { class: "what" }, [outcomeBadge(error.outcome, error.outcome), document.createTextNode(" "), el("span", { class: "mono", text: error.tool }), el("span", { class: "mono small", text: ` ${error.version.slice(0, VERSION_CHARS)}` })]),
      el("div", { class: "message", text: error.message }),
    ]),
  ));
}

/** Draws `data` (/api/source) into #detail; `actions`: onAction(kind, source), onClose(), onPage(key, offset). */
export function renderDetail(data, actions) {
  const { detail, pageSize } = data;
  const section = $("detail");
  const action = detail.state.state === "quarantined"
    ? el("button", { class: "primary", text: "Release", attrs: { type: "button", "data-action": "release" } })
    : el("button", { class: "danger", text: "Quarantine", attrs: { type: "button", "data-action": "quarantine" } });
  action.addEventListener("click", () => actions.onAction(detail.state.state === "quarantined" ? "release" : "quarantine", detail.source));
  const close = el("button", { class: "ghost", text: "Close", attrs: { type: "button", "data-action": "close" } });
  close.addEventListener("click", () => actions.onClose());
  const chart = el("div", { class: "chart" });
  renderChart(chart, data.timeline, data.window);

  const rows = detail.tools.rows.flatMap(toolRows);
  const tools = el("div", { class: "table-wrap" }, [
    el("table", { class: "tools" }, [
      el("thead", {}, [el("tr", {}, ["Tool / version", "Calls", "Errors", "Strikes", "Outcomes", "Mean", "Last", "Max heap"].map((name, index) => el("th", { class: index === 0 || index === 4 ? "" : index > 5 ? "num opt" : "num", text: name })))]),
      el("tbody", {}, rows.length ? rows : [el("tr", {}, [el("td", { class: "empty-note", text: "No calls recorded.", attrs: { colspan: 8 } })])]),
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
    el("h3", { text: `Tools (${detail.tools.total})` }), tools, pageControls("tools", detail.tools, pageSize, actions.onPage),
    el("h3", { text: "Latest errors, newest first" }), latestErrors(detail.tools.rows),
    ...(libraryPanel(data.library, { el, when }) ?? []),
    el("h3", { text: `Recent strikes (${detail.strikes.total} kept)` }), strikes, pageControls("strikes", detail.strikes, pageSize, actions.onPage),
    el("h3", { text: `State changes (${detail.events.total})` }), events, pageControls("events", detail.events, pageSize, actions.onPage),
  ];
  section.replaceChildren(...parts.filter((part) => part !== null));
  section.hidden = false;
}
