// corral dashboard: the page's DOM helpers and formats, shared by its modules.
// Every string from the ledger is untrusted: `el` puts text only into
// textContent and attributes set with setAttribute, never into markup.
import { barChart } from "/chart.js";

export function el(tag, options = {}, children = []) {
  const node = document.createElement(tag);
  if (options.class) node.className = options.class;
  if (options.text !== undefined) node.textContent = String(options.text);
  for (const [name, value] of Object.entries(options.attrs ?? {})) node.setAttribute(name, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

export const $ = (id) => document.getElementById(id);
export const number = new Intl.NumberFormat();
export const percent = (rate) => (rate === 0 ? "0%" : rate < 0.001 ? "<0.1%" : `${(rate * 100).toFixed(rate < 0.1 ? 1 : 0)}%`);
export const when = (ms) => (ms === null || ms === undefined ? "—" : new Date(ms).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" }));
export const STRIKES = new Set(["timeout", "memory", "crash"]);

/** A source's own address on the page: `#source=<id>`, read on load and on every hashchange. */
export const sourceHref = (source) => `#source=${encodeURIComponent(source)}`;
export const sourceInHash = () => new URLSearchParams(location.hash.slice(1)).get("source");

export function stateBadge(sourceState) {
  return el("span", { class: `badge ${sourceState.state}`, text: sourceState.state === "quarantined" ? "quarantined" : "active" });
}

export function renderChart(target, counts, window) {
  const total = counts.reduce((sum, n) => sum + n, 0);
  const names = { hour: "the last hour, per minute", day: "the last day, per 30 minutes", week: "the last week, per 2 hours" };
  target.replaceChildren(barChart(counts, window), el("div", { class: "caption", text: `${number.format(total)} strike${total === 1 ? "" : "s"} in ${names[window.name]}` }));
}
