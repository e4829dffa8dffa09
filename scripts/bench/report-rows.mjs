// The rows of the bench report's tables, one function a table, each from
// the run's figures (`r`), with the targets of the issue and their
// verdicts, and the profile tables. The console (report.mjs) and
// docs/benchmarks.md (report-markdown.mjs) print the same rows.
import { us, ms, mb, ratio, int, perCall, cpu, mdTable } from "./report-format.mjs";
import { codeModeReason, newToolReason, seenSourceReason, throughputReason, warmP50Reason, warmP99Reason, warmToolMemoryReason } from "./report-reasons.mjs";

const WARM_ROWS = [
  ["plain", "plain function call (same tool, in-process)"],
  ["ivmSync", "isolated-vm applySync, warm isolate, in-process"],
  ["ivmSyncTimeout", "isolated-vm applySync with `timeout`, in-process"],
  ["ivmAsync", "isolated-vm async apply, warm isolate, in-process"],
  ["toolIsolate", "corral's ToolIsolate.invoke, in-process (the worker's hot path, no IPC)"],
  ["ipcFloor", "raw IPC round trip between two node processes (child_process fork, process.send of corral's call message, echoed back; no isolate, no pool)"],
  ["naive", "naive tinypool pool (2 child processes, applySync per task)"],
  ["corralWorker", "corral's worker alone, driven over IPC (no host path)"],
  ["corral", "**corral** `host.call` (default pool)"],
  ["corralMemoryLedger", "corral, `ledger: { store: false }` (in-memory ledger)"],
  ["corralPostgresLedger", "corral, `ledger: { store: \"postgres://…\" }` (PostgreSQL ledger, server on 127.0.0.1)"],
  ["corralFreshCall", "corral, `isolation: \"call\"` (a fresh isolate for every call)"],
  ["corralNewScope", "corral, every call in a scope never used before (a cold isolate each; LRU across scopes)"],
];

const SPORADIC_ROWS = [
  ["naiveSporadic", "naive tinypool pool"],
  ["corralWorkerSporadic", "corral's worker alone, over IPC"],
  ["corralSporadic", "**corral** `host.call`"],
];

export function sporadicRows(r) {
  const w = r.warm;
  return SPORADIC_ROWS.filter(([key]) => w[key] !== undefined).map(([key, label]) => [
    label,
    us(w[key].p50),
    us(w[key].p99),
    key === "corralSporadic" ? "—" : ratio(w.corralSporadic.p50, w[key].p50),
  ]);
}

/** The raw IPC round trip (p50): no contender that crosses a process boundary can go below it. */
const ipcFloorNote = (w) => (w.ipcFloor === undefined ? "" : `; floor: raw IPC round trip ${us(w.ipcFloor.p50)}`);

/** The targets of the issue, each with its figure, its verdict, and `why` it is not met (the run's figures that say so). */
export function targets(r) {
  const w = r.warm;
  const t = r.throughput;
  const nextSamples = Object.values(r.recovery.next);
  const worstNext = Math.max(...nextSamples.map((n) => n.max));
  const seenWorst = Math.max(r.cold.seenSameHost.p50, r.cold.seenNewHost.p50);
  return [
    // Issue 19's targets (they replace issue 6's "½ the naive pool", which is below the IPC floor here).
    { name: "warm p50 ≤ 1.0× naive pool p50", figure: `${us(w.corral.p50)} vs ${us(w.naive.p50)} (${ratio(w.corral.p50, w.naive.p50)})${ipcFloorNote(w)}`, met: w.corral.p50 <= w.naive.p50, why: () => warmP50Reason(r) },
    { name: "warm p99 < 1 ms and ≤ 3× p50 (1 in flight)", figure: `p99 ${us(w.corral.p99)}, ${ratio(w.corral.p99, w.corral.p50)} p50${ipcFloorNote(w)}`, met: w.corral.p99 < 1 && w.corral.p99 <= 3 * w.corral.p50, why: () => warmP99Reason(r) },
    { name: "throughput (64 in flight) ≥ 2× naive pool", figure: `${int(t.corral.callsPerS)}/s vs ${int(t.naive.callsPerS)}/s (${ratio(t.corral.callsPerS, t.naive.callsPerS)})`, met: t.corral.callsPerS >= 2 * t.naive.callsPerS, why: () => throughputReason(r) },
    { name: "new agent tool: `author` → first result < 8 ms (p50)", figure: `${ms(r.cold.new.p50)}; floor: a fresh isolate + compile + call ${ms(r.cold.rawFreshIsolate.p50)}`, met: r.cold.new.p50 < 8, why: () => newToolReason(r) },
    { name: "source seen before: load → first result < 5 ms (p50, same host and new host)", figure: `${ms(r.cold.seenSameHost.p50)} same host, ${ms(r.cold.seenNewHost.p50)} new host`, met: seenWorst < 5, why: () => seenSourceReason(r) },
    { name: "next call after a worker dies < 300 ms (every sample)", figure: `worst ${ms(worstNext)}`, met: worstNext < 300 },
    { name: "a warm tool < 2 MB of worker memory", figure: `${mb(r.memory.perWarmToolBytes)} RSS per warm tool`, met: r.memory.perWarmToolBytes < 2 * 1024 ** 2, why: () => warmToolMemoryReason(r) },
    ...(r.codeMode === undefined
      ? []
      : [{ name: "Code Mode: a nested call ≤ 2× ToolIsolate.invoke", figure: `${us(r.codeMode.nestedP50)} vs ${us(r.codeMode.invokeP50)} (${ratio(r.codeMode.nestedP50, r.codeMode.invokeP50)})`, met: r.codeMode.nestedP50 <= 2 * r.codeMode.invokeP50, why: () => codeModeReason(r) }]),
    ...(r.library === undefined
      ? []
      : [
          { name: `tool_search over ${int(r.library.tools)} library tools < 20 ms (p99, host.call)`, figure: `p50 ${ms(r.library.searchViaHost.p50, 2)}, p99 ${ms(r.library.searchViaHost.p99, 2)}; first after start-up ${ms(r.library.firstSearchMs)}`, met: r.library.searchViaHost.p99 < 20 },
          { name: "the library adds only its direct tools to the declarations", figure: `${r.library.declared} declared (${int(r.library.declaredBytes)} B) of ${int(r.library.listed)} listed`, met: r.library.declared <= r.library.tools / 100 + 1 },
        ]),
  ];
}

/** The library at 1,000 tools: start-up, search, declarations. */
export function ledgerRecordRows(r) {
  const rows = (store, list) => (list ?? []).map((row) => [store, row.way, row.mix, `${row.wallUs.toFixed(1)} µs`, `${row.cpuUs.toFixed(1)} µs`]);
  return [...rows("SQLite", r.ledgerRecords.sqlite), ...rows("PostgreSQL", r.ledgerRecords.postgres)];
}

export function libraryRows(r) {
  const l = r.library;
  return [
    ["a host starts on the library (store read, every tool listed, none compiled)", ms(l.readyMs)],
    ["tool_search through host.call, p50", ms(l.searchViaHost.p50, 2)],
    ["tool_search through host.call, p99", ms(l.searchViaHost.p99, 2)],
    ["the first tool_search after start-up (builds the index)", ms(l.firstSearchMs)],
    ["the BM25 index alone: build, cold / after one tool changed", `${ms(l.indexBuildMs)} / ${ms(l.indexRebuildMs, 2)}`],
    ["the BM25 index alone: a search, p50 / p99", `${ms(l.indexSearch.p50, 3)} / ${ms(l.indexSearch.p99, 3)}`],
    ["declarations a model is sent by default", `${l.declared} tools, ${int(l.declaredBytes)} bytes (no library: ${l.bareDeclared}, ${int(l.bareDeclaredBytes)} bytes)`],
  ];
}

export function warmRows(r) {
  const w = r.warm;
  return WARM_ROWS.filter(([key]) => w[key] !== undefined).map(([key, label]) => [
    label,
    us(w[key].p50),
    us(w[key].p99),
    us(w[key].mean),
    key.startsWith("corral") && key !== "corralWorker" ? "—" : ratio(w.corral.p50, w[key].p50),
    key.startsWith("corral") && key !== "corralWorker" ? "—" : ratio(w.corral.p99, w[key].p99),
    cpu(w[key].hostCpuUs),
    w[key].workerCpuUs > 0 ? cpu(w[key].workerCpuUs) : "—",
  ]);
}

export function variantLabel(r) {
  const v = r.throughputVariant;
  return `corral, \`quickPipelineDepth: ${v.quickPipelineDepth}\` (no call sent more than ${v.pipelineDepth} deep: about one call per message; \`maxInFlight\` ${v.maxInFlight})`;
}

export function throughputRows(r) {
  const t = r.throughput;
  const labels = {
    naive: "naive tinypool pool (2 child processes)",
    corral: `**corral**, default options (quick calls up to ${r.throughputVariant.defaultQuickPipelineDepth} deep, \`maxInFlight\` ${r.throughputVariant.defaultMaxInFlight})`,
    corralMemoryLedger: "corral, in-memory ledger",
    corralPostgresLedger: "corral, PostgreSQL ledger (127.0.0.1)",
    corralVariant: variantLabel(r),
    corralFreshCall: "corral, `isolation: \"call\"`",
    corralNewScope: `corral, a new scope per call (${r.scopes === undefined ? "" : `${int(r.scopes.scopes)} scopes of one tool in this run; worker RSS after: ${r.scopes.workerRssMb.join(", ")} MB`})`,
  };
  return Object.entries(labels)
    .filter(([key]) => t[key] !== undefined)
    .map(([key, label]) => [
      label,
      int(t[key].callsPerS),
      ms(t[key].p50, 2),
      ms(t[key].p99, 2),
      key === "naive" ? "—" : ratio(t[key].callsPerS, t.naive.callsPerS),
      cpu(t[key].hostCpuUs),
      cpu(t[key].workerCpuUs),
      cpu(t[key].hostCpuUs + t[key].workerCpuUs),
    ]);
}

export function coldRows(r) {
  const c = r.cold;
  const raw = c.rawFreshIsolate.p50;
  const row = (label, s, split = true) => [label, ms(s.p50), ms(s.p90), ms(s.max), split ? ms(s.loadP50) : "—", split ? ms(s.callP50) : "—", ratio(s.p50, raw), String(s.n)];
  return [
    row("new agent source (`author` + first call)", c.new),
    row("same source again, same host", c.seenSameHost),
    row("same source again, new host, same cache folder", c.seenNewHost),
    row("raw: fresh isolate + compile (code cache) + call", c.rawFreshIsolate, false),
  ];
}

export function recoveryRows(r) {
  const labels = {
    "oneWorker:abort": "1 worker + spare, call aborted (worker killed)",
    "oneWorker:memory": "1 worker + spare, RSS watch kills (Wasm memory)",
    "defaultPool:abort": "default pool, call aborted (worker killed)",
    "defaultPool:memory": "default pool, RSS watch kills (Wasm memory)",
  };
  return Object.entries(labels)
    .filter(([key]) => r.recovery.next[key] !== undefined)
    .map(([key, label]) => {
      const n = r.recovery.next[key];
      return [label, ms(n.p50), ms(n.max), ms(n.blockedP50), ms(n.replacedP50, 0), String(n.n)];
    });
}

export function bystanderRows(r) {
  const b = r.recovery.bystanders;
  const row = (label, s) => [label, ms(s.p50, 2), ms(s.p99, 2), ms(s.max, 1), String(s.n), String(s.failed)];
  return [row("steady (no event)", b.steady), row("a 40 ms call ends normally", b.control), row("a 40 ms call is aborted, its worker killed", b.crash)];
}

export function memoryRows(r) {
  const m = r.memory;
  const o = m.oneWorker;
  return [
    ["host process, idle (default pool)", mb(m.defaultIdle.host)],
    ["each worker process, idle (default pool: serving ×2 + spare)", m.defaultIdle.workers.map(mb).join(", ")],
    [`host process with ${m.tools} tools loaded and warm`, mb(o.host.warm)],
    [`worker that loaded the ${m.tools} tools: idle → after loading`, `${mb(o.loader.idle)} → ${mb(o.loader.loaded)}`],
    [`fresh worker: idle → with the ${m.tools} tools warm`, `${mb(o.serving.idle)} → ${mb(o.serving.warm)}`],
    ["**worker RSS per warm tool**", mb(m.perWarmToolBytes)],
    ["worker RSS per tool loaded, in the worker that loaded it", mb(m.perToolLoadedBytes)],
    ["host RSS per loaded tool", mb(m.hostPerToolBytes)],
    ["isolate heap per warm tool, after its idle-time collection (`metrics.heapBytes`, median)", mb(m.heapBytesPerTool)],
  ];
}

export function idleWorkRows(r) {
  const i = r.idleWork;
  if (i === undefined) return [];
  const row = (label, s) => [label, ms(s.p50, 2), ms(s.p90, 2), ms(s.max, 2), String(s.n)];
  return [
    row("one collection of a warm word_count isolate, in-process", i.collect),
    row("a warm call just before it, in-process", i.callBefore),
    row("the first warm call after it, in-process", i.callAfter),
    row("`host.call` after a pause of 100–400 ms, idle work pending (a new tool's second call)", i.pending),
    row("`host.call` after the same pauses, nothing pending (the same tools again)", i.nothingPending),
  ];
}

export function profileTables(name, s, limit = 12) {
  const areas = mdTable(
    ["area", "self time per call", "share of busy time"],
    s.areas.slice(0, limit).map((a) => [a.name, perCall(a.selfUs, s.calls), `${((a.selfUs / s.busyUs) * 100).toFixed(1)}%`]),
  );
  const functions = mdTable(
    ["function", "where", "self per call", "share"],
    s.functions.slice(0, limit + 3).map((f) => [`\`${f.name}\``, f.where === "" ? `(${f.area})` : f.where.startsWith("native") ? f.where.replace(/at (\S+)$/, "at `$1`") : `\`${f.where}\``, perCall(f.selfUs, s.calls), `${((f.selfUs / s.busyUs) * 100).toFixed(1)}%`]),
  );
  const inclusive = s.corralInclusive.length === 0
    ? ""
    : `\n\ncorral's own functions by inclusive time (self + callees):\n\n${mdTable(
        ["function", "where", "inclusive per call"],
        s.corralInclusive.slice(0, limit).map((f) => [`\`${f.name}\``, `\`${f.where}\``, perCall(f.totalUs, s.calls)]),
      )}`;
  const cpuNote = s.cpuUs === undefined ? "" : `; the process's CPU time (\`process.cpuUsage\`) was ${perCall(s.cpuUs, s.calls)} per call, so ${perCall(Math.max(0, s.busyUs - s.cpuUs), s.calls)} of "busy" is the thread waiting for a CPU or in blocking system calls`;
  return `### ${name}\n\n${s.calls.toLocaleString("en-US")} calls profiled; sampled busy ${perCall(s.busyUs, s.calls)} and idle ${perCall(s.idleUs, s.calls)} per call (mean call ${us(s.meanMs)} while profiled)${cpuNote}.\n\nBy area:\n\n${areas}\n\nTop functions by self time:\n\n${functions}${inclusive}`;
}

const LEDGER_LABELS = { sqlite: "SQLite (default)", memory: "in memory (commits nothing)", postgres: "PostgreSQL (127.0.0.1)" };

/** The host's event loop under calls: how late a 1 ms timer fires, per ledger. */
export function eventLoopRows(r) {
  const e = r.eventLoop;
  const rows = [];
  for (const [depth, label] of [["serial", "1"], ["concurrent", String(e.inFlight)]]) {
    for (const [name, d] of Object.entries(e[depth])) rows.push([`${LEDGER_LABELS[name] ?? name}, ${label} in flight`, ms(d.p50, 2), ms(d.p99, 2), ms(d.max, 2)]);
  }
  return rows;
}

/** Code Mode: a script's nested call beside ToolIsolate.invoke in-process and one host.call. */
export function codeModeRows(r) {
  const c = r.codeMode;
  return [
    [`nested call (fast lane), p50 of ${c.block}-call blocks by the script's clock`, us(c.nestedP50), ratio(c.nestedP50, c.invokeP50), ratio(c.nestedP50, c.hostCallP50)],
    [`whole script ÷ ${int(c.calls)} nested calls, from host.call`, us(c.scriptPerCallMs), ratio(c.scriptPerCallMs, c.invokeP50), ratio(c.scriptPerCallMs, c.hostCallP50)],
    ["the same lane in-process (WorkerCore + FastLane, its journal, no IPC), per call", us(c.inProcessLane), ratio(c.inProcessLane, c.invokeP50), ratio(c.inProcessLane, c.hostCallP50)],
    ["the tool's call on the lane, timed by the worker between its two journal lines, p50", us(c.inWorkerP50), ratio(c.inWorkerP50, c.invokeP50), ratio(c.inWorkerP50, c.hostCallP50)],
    ["ToolIsolate.invoke in-process, p50", us(c.invokeP50), "1.00×", ratio(c.invokeP50, c.hostCallP50)],
    ["host.call, p50", us(c.hostCallP50), ratio(c.hostCallP50, c.invokeP50), "1.00×"],
  ];
}

/** The OpenTelemetry hooks' cost per call beside corral's warm call. */
export function telemetryRows(r) {
  const t = r.telemetry;
  const share = (ns) => (r.warm?.corral?.p50 > 0 ? `${((ns / 1e6 / r.warm.corral.p50) * 100).toFixed(2)}% of corral's warm p50` : "—");
  return [
    ["no SDK registered (the API's no-ops)", `${Math.round(t.noSdkNs)} ns`, share(t.noSdkNs)],
    ["SDK 2.x with in-memory span and metric exporters", `${(t.withSdkNs / 1000).toFixed(1)} µs`, share(t.withSdkNs)],
  ];
}

/** A tool's fetch beside Node's own and beside the same host's call that does not fetch. */
export function fetchRows(r) {
  const f = r.fetch;
  const overhead = f.corralFetch.p50 - f.corralNoFetch.p50;
  return [
    ["Node's fetch, in the bench process", ms(f.nodeFetch.p50, 3), ms(f.nodeFetch.p99, 3), "1.00×"],
    ["corral, a tool that does not fetch", ms(f.corralNoFetch.p50, 3), ms(f.corralNoFetch.p99, 3), "—"],
    ["corral, a tool that fetches the page", ms(f.corralFetch.p50, 3), ms(f.corralFetch.p99, 3), `${(f.corralFetch.p50 / f.nodeFetch.p50).toFixed(2)}×`],
    ["fetch inside the tool (the difference)", ms(overhead, 3), "—", `${(overhead / f.nodeFetch.p50).toFixed(2)}×`],
  ];
}
