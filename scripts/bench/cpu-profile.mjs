// Reads a V8 CPU profile (.cpuprofile from --cpu-prof, or the inspector's)
// and says where the time went: self time per function (mapped back to the
// TypeScript source through dist/'s source maps) and per area of the code,
// optionally only inside a time window of the run.
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DIST } from "./dist.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const REAL_DIST = join(ROOT, "dist");

const maps = new Map();
function sourceMapOf(file) {
  if (!maps.has(file)) {
    let map;
    try {
      if (existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
    } catch {
      map = undefined;
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** A frame's place as a repository path (TypeScript source where a map says so). */
export function placeOf(frame) {
  const url = frame.url;
  if (url === "") return "";
  if (!url.startsWith("file://")) return `${url}:${frame.lineNumber + 1}`;
  const file = fileURLToPath(url);
  const entry = sourceMapOf(file)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    // Sources are relative to the file's place in dist/, not in the snapshot.
    const inDist = file.startsWith(DIST) ? join(REAL_DIST, relative(DIST, file)) : file;
    const original = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : resolve(dirname(inDist), entry.originalSource);
    return `${relative(ROOT, original)}:${entry.originalLine + 1}`;
  }
  const inRepo = file.startsWith(DIST) ? join("dist", relative(DIST, file)) : relative(ROOT, file);
  return `${inRepo}:${frame.lineNumber + 1}`;
}

const AREAS = [
  [/node_modules\/zod\//, "zod (schemas)"],
  [/node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream|quick-format-unescaped|fast-redact)\//, "pino (audit log)"],
  [/node_modules\/better-sqlite3\//, "better-sqlite3"],
  [/node_modules\/tinypool\//, "tinypool"],
  [/(src|dist\/src)\/ledger\//, "corral ledger"],
  [/(src|dist\/src)\/pool\//, "corral pool / session"],
  [/(src|dist\/src)\/host\//, "corral call path"],
  [/(src|dist\/src)\/(gate|registry|events|result|options)/, "corral host (gate, registry, events)"],
  [/sandbox\/shared\/(tool-vocabulary|outcome-kinds|task-parts|tasks|replies|fast-lane-schemas|session-messages|guest-envelope)\./, "protocol schemas"],
  [/sandbox\/worker\//, "corral worker"],
  [/sandbox\/guest\/|corral:runtime/, "guest runtime"],
  [/^agent:/, "the tool itself"],
  [/node:internal\/child_process|node:child_process/, "IPC (child_process JSON)"],
  [/node:internal\/(stream_base_commons|streams|net)|node:net|node:stream/, "IPC (pipe I/O)"],
  [/node:internal\/(timers|process\/task_queues|async_hooks)|node:timers/, "event loop (timers, ticks)"],
  [/node:internal\/(crypto|util\/uuid)|node:crypto/, "crypto (randomUUID)"],
  [/^node:/, "node (other)"],
  [/scripts\/bench/, "bench driver"],
];

function areaOfPlace(place) {
  for (const [pattern, area] of AREAS) if (pattern.test(place)) return area;
  return place === "" ? "native" : "other";
}

const SPECIAL = new Set(["(idle)", "(garbage collector)", "(program)", "(root)"]);

/**
 * Self time per function and per area. `window` ({startUs, endUs}, on the
 * profile's clock) keeps only samples inside it; `locate(frame)` may place
 * frames the source maps cannot (the guest runtime).
 */
export function summarizeProfile(profile, { window, locate } = {}) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const placeCache = new Map();
  const place = (node) => {
    if (!placeCache.has(node.id)) placeCache.set(node.id, locate?.(node.callFrame) ?? placeOf(node.callFrame));
    return placeCache.get(node.id);
  };
  const area = (node) => {
    const name = node.callFrame.functionName;
    if (SPECIAL.has(name)) return name;
    const own = place(node);
    if (own !== "") return areaOfPlace(own);
    // A native function: name it by who called it.
    for (let id = parent.get(node.id); id !== undefined; id = parent.get(id)) {
      const up = nodes.get(id);
      const where = place(up);
      if (where !== "") return `native, from ${areaOfPlace(where)}`;
    }
    return "native";
  };

  let inWindow = (t) => true;
  if (window !== undefined) {
    const from = window.startUs;
    const to = window.endUs;
    if (profile.startTime <= to && profile.endTime >= from) inWindow = (t) => t >= from && t <= to;
  }
  const selfUs = new Map();
  let t = profile.startTime;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (!inWindow(t)) continue;
    first = Math.min(first, t);
    last = Math.max(last, t);
    // The time until the next sample belongs to this one.
    const spent = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + spent);
  }

  // Inclusive time: each sample counts once for every distinct function on its stack.
  const inclusive = new Map();
  const keyOf = (node) => {
    const name = node.callFrame.functionName || "(anonymous)";
    return `${name}\0${SPECIAL.has(name) ? "" : place(node)}`;
  };
  for (const [id, us] of selfUs) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const node = nodes.get(at);
      const key = keyOf(node);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = inclusive.get(key) ?? { name: node.callFrame.functionName || "(anonymous)", where: SPECIAL.has(node.callFrame.functionName) ? "" : place(node), totalUs: 0 };
      entry.totalUs += us;
      inclusive.set(key, entry);
    }
  }

  /** A native function has no place of its own: say who called it. */
  const calledFrom = (node) => {
    for (let at = parent.get(node.id); at !== undefined; at = parent.get(at)) {
      const up = nodes.get(at);
      const where = place(up);
      if (where !== "") return `native, called by ${up.callFrame.functionName || "(anonymous)"} at ${where}`;
    }
    return "native";
  };
  const byFunction = new Map();
  const byArea = new Map();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const node = nodes.get(id);
    const name = node.callFrame.functionName || "(anonymous)";
    const own = SPECIAL.has(name) ? "" : place(node);
    const where = own === "" && !SPECIAL.has(name) ? calledFrom(node) : own;
    const key = `${name}\0${where}`;
    const fn = byFunction.get(key) ?? { name, where, area: area(node), selfUs: 0 };
    fn.selfUs += us;
    byFunction.set(key, fn);
    const a = area(node);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    totalUs += us;
  }
  const idleUs = byArea.get("(idle)") ?? 0;
  const busyUs = totalUs - idleUs;
  const functions = [...byFunction.values()].filter((f) => f.name !== "(idle)").sort((a, b) => b.selfUs - a.selfUs);
  const areas = [...byArea].filter(([a]) => a !== "(idle)").map(([name, us]) => ({ name, selfUs: us })).sort((a, b) => b.selfUs - a.selfUs);
  const corralInclusive = [...inclusive.values()]
    .filter((f) => /^(src|sandbox)\//.test(f.where))
    .sort((a, b) => b.totalUs - a.totalUs);
  return { totalUs, idleUs, busyUs, spanUs: last - first, functions, areas, corralInclusive };
}
