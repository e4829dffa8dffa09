// corral dashboard: SVG charts drawn with DOM calls only (no markup strings),
// so nothing a ledger holds can become an element or a script.
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function label(bucketStart, bucketMs) {
  const date = new Date(bucketStart);
  if (bucketMs >= 3_600_000) return date.toLocaleDateString(undefined, { weekday: "short", day: "numeric" }) + " " + date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

/**
 * A bar per bucket, oldest on the left; `window` is { to, bucketMs, buckets }.
 * The bars are an SVG that stretches to any width; the labels are HTML
 * beside it, so they keep their shape on a phone.
 */
export function barChart(counts, window) {
  const width = 720;
  const height = 140;
  const max = Math.max(1, ...counts);
  const total = counts.reduce((sum, n) => sum + n, 0);
  const plot = svg("svg", { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none", role: "img", "data-total": total, "data-buckets": counts.length });
  const title = svg("title", {});
  title.textContent = `${total} strikes in the window`;
  plot.append(title);
  const step = width / Math.max(1, counts.length);
  const from = window.to - window.bucketMs * window.buckets;
  counts.forEach((count, index) => {
    const barWidth = Math.max(1, step * 0.72);
    const barHeight = count === 0 ? 2 : Math.max(4, ((height - 4) * count) / max);
    const bar = svg("rect", { x: index * step + (step - barWidth) / 2, y: height - barHeight, width: barWidth, height: barHeight, class: count === 0 ? "empty" : "bar", "data-count": count });
    const tip = svg("title", {});
    tip.textContent = `${label(from + index * window.bucketMs, window.bucketMs)}: ${count} strike${count === 1 ? "" : "s"}`;
    bar.append(tip);
    plot.append(bar);
  });
  const scale = document.createElement("div");
  scale.className = "y-scale";
  for (const text of [String(max), "0"]) scale.append(Object.assign(document.createElement("span"), { textContent: text }));
  const axis = document.createElement("div");
  axis.className = "x-axis";
  for (const index of [0, Math.floor(counts.length / 2), counts.length - 1]) axis.append(Object.assign(document.createElement("span"), { textContent: label(from + index * window.bucketMs, window.bucketMs) }));
  const frame = document.createElement("div");
  frame.className = "plot";
  frame.append(scale, plot);
  const chart = document.createElement("div");
  chart.className = "bars";
  chart.append(frame, axis);
  return chart;
}

/** A small strike timeline for a table row. */
export function sparkline(counts) {
  const width = 120;
  const height = 26;
  const max = Math.max(1, ...counts);
  const total = counts.reduce((sum, n) => sum + n, 0);
  const root = svg("svg", { class: "spark", viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none", "data-total": total, "aria-label": `${total} strikes` });
  root.append(svg("rect", { class: "base", x: 0, y: height - 1, width, height: 1 }));
  const step = width / Math.max(1, counts.length);
  counts.forEach((count, index) => {
    if (count === 0) return;
    const barHeight = Math.max(3, ((height - 2) * count) / max);
    root.append(svg("rect", { class: "bar", x: index * step, y: height - 1 - barHeight, width: Math.max(1, step * 0.8), height: barHeight }));
  });
  return root;
}
