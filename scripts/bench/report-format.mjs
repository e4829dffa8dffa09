// How the bench report writes its figures: units (µs, ms, MB, ratios,
// counts, CPU per call) with "—" for a figure that is missing, and tables
// for the console and for Markdown. Shared by report-rows.mjs,
// report-markdown.mjs and report.mjs.

export const us = (ms) => (Number.isFinite(ms) ? `${Math.round(ms * 1000)} µs` : "—");
export const ms = (v, digits = 1) => (Number.isFinite(v) ? `${v.toFixed(digits)} ms` : "—");
export const mb = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : "—");
export const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "—");
export const int = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "—");
export const perCall = (totalUs, calls) => `${(totalUs / calls).toFixed(1)} µs`;
export const cpu = (usPerCall) => (Number.isFinite(usPerCall) ? `${Math.round(usPerCall)} µs` : "—");

export function mdTable(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export function textTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
