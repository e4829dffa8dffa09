// docs/benchmarks.md from the run's figures: the machine, every table with
// the words that say how it was measured, the targets and whether each is
// met, and where the time goes. Overwritten on every run.
import { writeFileSync } from "node:fs";
import { us, ms, ratio, int, perCall, mdTable } from "./report-format.mjs";
import { payloadSection } from "./payload.mjs";
import { sporadicRows, targets, warmRows, throughputRows, coldRows, recoveryRows, bystanderRows, memoryRows, idleWorkRows, profileTables, eventLoopRows, ledgerRecordRows, codeModeRows, libraryRows, telemetryRows, fetchRows } from "./report-rows.mjs";

/** What the SQLite ledger adds to a warm call at p50 (default ledger against `store: false`); its records of ok calls are written behind the results. */
function ledgerShare(deltaMs) {
  return deltaMs > 0.01
    ? `the SQLite ledger alone accounts for ${us(deltaMs)} of it (default ledger against \`store: false\`).`
    : `the SQLite ledger adds nothing measurable at p50 (${us(deltaMs)} against \`store: false\`): an ok call's record commits after its result, while the next call is on its way.`;
}

/** Others took more than a tenth of the machine (or, unknown, the load was high at the start). */
const busy = (r) => (r.othersCpuShare === undefined ? r.loadBefore[0] > r.machine.cores * 0.75 : r.othersCpuShare > 0.1);

export function renderMarkdown(r) {
  const m = r.machine;
  const w = r.warm;
  const t = r.throughput;
  const mx = r.mixed;
  const b = r.recovery.bystanders;
  const sections = [];
  sections.push(`# Benchmarks

Written by \`npm run bench\` (scripts/bench.mjs); every run overwrites this page. All contenders run the same small tool, \`word_count\` (a zod-checked \`{ text }\` in, \`{ words }\` out), in one run, side by side: in each round every contender runs a batch in turn (the order rotates each round), and each figure is the median over rounds of that round's figure, so that noise from the machine hits all contenders alike.${r.mode === "quick" ? "\n\n**This was a quick run (`--quick`): few rounds and samples; use a full run for decisions.**" : ""}`);

  sections.push(`## Machine

${mdTable(["", ""], [
    ["CPU", `${m.cpu}, ${m.cores} cores`],
    ["memory", `${m.memoryGb.toFixed(1)} GB`],
    ["Node", m.node],
    ["isolated-vm", `${m.isolatedVm.version} (\`${m.isolatedVm.name}\`)`],
    ["tinypool", m.tinypool],
    ["corral", m.commit],
    ["date", m.date],
    ["load average (1, 5, 15 min) at start → end (the end counts the bench itself)", `${r.loadBefore.map((v) => v.toFixed(2)).join(", ")} → ${r.loadAfter.map((v) => v.toFixed(2)).join(", ")}`],
    ["CPU taken by other processes during the run", r.othersCpuShare === undefined ? "unknown" : `${(r.othersCpuShare * 100).toFixed(0)}% of the machine`],
    ["run", `${r.mode}, ${r.durationS.toFixed(0)} s`],
  ])}

${busy(r) ? `**The machine was busy**: other processes took ${(r.othersCpuShare * 100).toFixed(0)}% of its CPU during the run (load average ${r.loadBefore[0].toFixed(2)} at the start on ${m.cores} cores), so tails (p99, max) are inflated for every contender; ratios are more trustworthy than absolute figures.` : `The machine was quiet: other processes took ${r.othersCpuShare === undefined ? "an unknown share" : `${(r.othersCpuShare * 100).toFixed(0)}%`} of its CPU during the run.`}`);

  sections.push(`## Targets

${mdTable(["target (from the design)", "figure", "met"], targets(r).map((x) => [x.name, x.figure, x.met ? "yes" : "**no**"]))}${unmetReasons(r)}`);

  sections.push(`## Warm call, one in flight

One tool, loaded and warm in every worker; one call at a time. ${w.corral.n.toLocaleString("en-US")} calls per batch for the pools (more for the in-process ones), ${w.corral.rounds} rounds. The ratio columns are corral's figure divided by the row's. CPU per call is measured around each batch (warm-up calls included): "host" is the bench process (\`process.cpuUsage\`: the caller side, for in-process contenders everything), "worker" the contender's worker processes (/proc, 10 ms ticks).

${mdTable(["contender", "p50", "p99", "mean", "corral ÷ this, p50", "corral ÷ this, p99", "host CPU / call", "worker CPU / call"], warmRows(r))}

"corral's worker alone" is corral's real worker entry (\`dist/sandbox/worker/entry.js\`) forked by the bench and sent corral's own messages over IPC: the difference between it and \`host.call\` is the host's share (call path, admission, pool, ledger, audit log, tinypool's channel). At p50 the host adds ${us(w.corral.p50 - w.corralWorker.p50)} to the worker's ${us(w.corralWorker.p50)}; ${ledgerShare(w.corral.p50 - w.corralMemoryLedger.p50)} ${w.corralPostgresLedger === undefined ? "" : `With the ledger in PostgreSQL on 127.0.0.1 (records batched as SQLite's; a strike waits for its commit, other calls are written behind) the p50 is ${us(w.corralPostgresLedger.p50)}, ${ratio(w.corralPostgresLedger.p50, w.corral.p50)} the SQLite ledger's. `}The worker alone takes ${ratio(w.corralWorker.p50, w.naive.p50)} the naive pool's p50.${w.ipcFloor === undefined ? "" : ` The raw IPC round trip (a forked child echoing corral's call message, nothing else) is the floor for every contender with a worker process: ${us(w.ipcFloor.p50)} at p50 on this machine; the naive pool's p50 is ${ratio(w.naive.p50, w.ipcFloor.p50)} that, corral's ${ratio(w.corral.p50, w.ipcFloor.p50)}.`}`);

  sections.push(`### Sporadic calls

The same, but each call comes ${r.warmGapMs} ms after the previous answer, with both processes idle meanwhile (${w.corralSporadic.n} calls per batch): what a caller that is not hammering the host sees. On a virtual machine, waking a sleeping process costs; back-to-back calls hide it.

${mdTable(["contender", "p50", "p99", "corral ÷ this, p50"], sporadicRows(r))}`);

  sections.push(`## Throughput, 64 in flight

${t.corral.total.toLocaleString("en-US")} calls per batch, 64 callers in a closed loop, ${t.corral.rounds} rounds. Latency counts from the call to its answer, waiting included.

${mdTable(["contender", "calls/s", "p50", "p99", "÷ naive, calls/s", "host CPU / call", "worker CPU / call", "total CPU / call"], throughputRows(r))}

On ${r.machine.cores} cores a contender cannot go faster than cores ÷ total CPU per call: for corral that ceiling is about ${int((r.machine.cores * 1e6) / (t.corral.hostCpuUs + t.corral.workerCpuUs))} calls/s, for the naive pool ${int((r.machine.cores * 1e6) / (t.naive.hostCpuUs + t.naive.workerCpuUs))} (less whatever else runs on the machine). The last row turns the deep pipelines of quick calls off: each worker gets at most \`pipelineDepth\` calls ahead, so each message carries about one call, as before batching.`);

  sections.push(`## Cold tools

From \`host.author\` (agent source) to the first result, workers booted and idle. "load" and "1st call" split the total (medians). The raw row is a fresh isolate, context, compile of the same tool script (with a V8 code cache made once, as corral's worker does for its runtime), one call and dispose, in-process.

${mdTable(["case", "p50", "p90", "max", "load", "1st call", "÷ raw", "n"], coldRows(r))}

Compile-cache hits: ${(r.cold.seenSameHost.cachedShare * 100).toFixed(0)}% on the same host, ${(r.cold.seenNewHost.cachedShare * 100).toFixed(0)}% on a new host, where the checked manifests came from the cache folder for ${(r.cold.seenNewHost.manifestsFromDiskShare * 100).toFixed(0)}% of loads (no describe in a worker; the first call then builds the tool's isolate). Between two loads the bench waits until every worker process has been idle for 250 ms, as workers are between an agent's submissions; so each step also pays for waking idle processes (see "Sporadic calls").

Anatomy of a fresh isolate (medians, in-process, V8 code cache made once and reused):

${mdTable(["script", "size", "new Isolate", "context", "compile", "run top level", "dispose", "total"], Object.entries({
    tiny: "a one-line function",
    rawTool: "zod + word_count (the raw baselines' script)",
    corralRuntime: "corral's guest runtime (zod + SDK + runtime), run first in every tool isolate",
  }).map(([key, label]) => {
    const a = r.cold.anatomy[key];
    return [label, `${(a.bytes / 1024).toFixed(0)} KB`, ms(a.isolate, 2), ms(a.context, 2), ms(a.compile, 2), ms(a.run, 2), ms(a.dispose, 2), ms(a.isolate + a.context + a.compile + a.run + a.dispose, 1)];
  }))}`);

  sections.push(`## Mixed tools

${mx.tools} tools from ${mx.sources} agent sources (four kinds of work), calls spread over them at random (same sequence for both), ${mx.inFlight} in flight, default pool.

${mdTable(["host", "calls/s", "p50", "p99", "max"], [
    [`\`maxWarmIsolates: ${mx.maxWarmIsolates}\` per worker (cache under pressure)`, int(mx.pressure.callsPerS), ms(mx.pressure.p50, 2), ms(mx.pressure.p99, 2), ms(mx.pressure.max, 1)],
    [`default \`maxWarmIsolates\` (${mx.defaultMaxWarmIsolates}: all stay warm)`, int(mx.roomy.callsPerS), ms(mx.roomy.p50, 2), ms(mx.roomy.p99, 2), ms(mx.roomy.max, 1)],
    ["pressure ÷ default", ratio(mx.pressure.callsPerS, mx.roomy.callsPerS), ratio(mx.pressure.p50, mx.roomy.p50), ratio(mx.pressure.p99, mx.roomy.p99), ""],
  ])}`);

  sections.push(`## Recovery after a worker dies

From the kill (the abort, or the failed call's answer for the RSS watch) to the answer of a call to a warm tool issued at that moment. "host blocked in abort()" is how long \`controller.abort()\` itself held the host's thread: tinypool removes the worker and forks its replacement synchronously inside the abort listener. "replaced" is when the new spare process had booted and gone idle.

${mdTable(["case", "next call p50", "max", "host blocked in abort()", "replaced", "n"], recoveryRows(r))}

Other calls while it happens: two callers call \`word_count\` without pause on the default pool while, in turn, a 40 ms call ends normally or is aborted (killing its worker); calls overlapping the ${b.windowMs} ms after each of ${b.events} events of each kind:

${mdTable(["while", "p50", "p99", "max", "calls", "failed"], bystanderRows(r))}`);

  sections.push(`## Memory

VmRSS from /proc, in a process of its own with no other contender; tools are one-tool agent-style sources. The per-tool figures come from a host with one serving worker (\`workers: 1\`, \`maxWarmIsolates\` above the tool count). Its worker loads every tool (one describe isolate each, disposed); then that worker is killed (a running call aborted), the spare takes over with nothing loaded, and every tool is called twice there: the fresh worker's RSS with every tool warm, once it is quiet (its idle work has given each warm isolate its one collection, ARCHITECTURE: \"While the worker is idle\"), minus its idle RSS, over the number of tools, is what a warm tool costs; the heap is read by a third call. (On the worker that loaded them, the figure depends on what loading leaves behind: a describe isolate kept warm for the first call, or the memory of a disposed one that malloc keeps and later isolates reuse; so it is measured apart.)

${mdTable(["what", "RSS"], memoryRows(r))}`);

  if (r.idleWork !== undefined)
    sections.push(`### Idle work

A worker gives each warm isolate one full collection while it is idle (scripts/bench/idle-collection.mjs; ARCHITECTURE: "While the worker is idle"), which is what takes a warm tool's RSS down to the figure above; a call that arrives meanwhile waits for it. In-process, a warm word_count isolate is collected, with a warm call just before and after; then a host with one serving worker loads a new tool, calls it, and calls it again after a pause spread over 100–400 ms, when the worker refills its blank isolate and collects; the same tools are then called again after the same pauses, with nothing left to do.

${mdTable(["what", "p50", "p90", "max", "n"], idleWorkRows(r))}`);

  if (r.fetch !== undefined) {
    sections.push(`## fetch from a tool

A warm tool that fetches a 33-byte page from a server on 127.0.0.1 (net_read allowed, the origin on its allow-list; scripts/bench/fetch.mjs) against Node's own \`fetch\` of the same page from the bench process, and the same host's tool that does not fetch. The difference is what a fetch inside a tool costs: the request relayed from the isolate through the worker to the host, the host's checks (effect, allow-list, address of the socket), Node's request, and the answer back. Medians of ${r.fetch.corralFetch.rounds} interleaved rounds.

${mdTable(["case", "p50", "p99", "÷ Node p50"], fetchRows(r))}`);
  }

  if (r.payload !== undefined) sections.push(payloadSection(r.payload));

  if (r.telemetry !== undefined) {
    sections.push(`## OpenTelemetry hooks

What a host's telemetry costs each call on the host (scripts/bench/telemetry.mjs): starting the call's \`corral.call\` span, noting the gate's wait, ending it with the outcome's attributes and counting the call and its duration, ${int(r.telemetry.calls)} times per round, the median of ${r.telemetry.rounds} rounds, less the bare loop. With no SDK registered the API hands out no-ops and no attribute is computed.

${mdTable(["case", "cost per call", "share"], telemetryRows(r))}`);
  }

  if (r.eventLoop !== undefined) {
    sections.push(`## The host's event loop during calls

Does the ledger stall the host? While one warm host per ledger serves ${int(r.eventLoop.calls)} calls (1 in flight, then ${int(r.eventLoop.inFlight)}), \`perf_hooks.monitorEventLoopDelay\` times a 1 ms timer on the host's thread (scripts/bench/event-loop.mjs); each figure is how late it fired, the median of ${r.eventLoop.rounds} interleaved rounds. SQLite commits on the main thread (a group commit every 20 ms of write-behind records, WAL checkpoints on a thread of their own); the in-memory ledger commits nothing, so the distance between the two is what the ledger's commits cost the loop. At 64 in flight the loop is busy with the calls themselves.

${mdTable(["ledger", "late by, p50", "p99", "max"], eventLoopRows(r))}`);
  }

  if (r.ledgerRecords !== undefined) {
    sections.push(`## The ledger's records

What a record costs each store alone (scripts/bench/ledger-records.mjs): the host's kind of records through \`Ledger.record\`, no host and no worker, ${int(r.ledgerRecords.records)} a round issued at once and written behind (\`batch\`: group commits, as a busy host's), or a tenth as many one at a time, each waiting for its own commit (\`single\`); ok calls of one tool, of four tools in turn (a run each), and one call in ten a \`tool_error\` (kept with its message among its tool's latest errors). Best of ${r.ledgerRecords.rounds} interleaved rounds; PostgreSQL on 127.0.0.1. An ok call at its tool's current version writes one row, the tool's (its counts per version ride in it); a call that is not ok also keeps its message.

${mdTable(["store", "way", "records", "wall per record", "CPU per record"], ledgerRecordRows(r))}`);
  }

  if (r.codeMode !== undefined) {
    sections.push(`## Code Mode nested calls

One script (scripts/bench/codemode.mjs) calls word_count ${int(r.codeMode.calls)} times, one after another, warm in the script's worker and pre-authorized (the fast lane: each call runs inside the script's own entry; a line of the script's lane journal says it started, another holds its record as it ends, read by the host as the script runs); beside it in the same run, \`ToolIsolate.invoke\` of the same tool in this process, the same lane driven in this process without IPC, and ordinary \`host.call\`s. Every worker has run a script before the timed ones (the first script in a worker compiles the lane's code there), as the other contenders are timed warm. The guest's clock has 1 ms resolution, so the script times blocks of ${r.codeMode.block} calls. Besides the tool's entry, a lane call pays the script's own code between calls (in an isolate made fresh for the script, so its creation and warm-up are spread over its calls), its two journal lines (\`lane\`, then its record: a \`writeSync\` each), the envelope read, the answer's JSON and the record; docs/ARCHITECTURE.md (Code Mode, Cost) has the breakdown. Median of ${r.codeMode.rounds} rounds.

${mdTable(["case", "time", "÷ invoke", "÷ host.call"], codeModeRows(r))}`);
  }

  if (r.library !== undefined) {
    sections.push(`## The library at ${int(r.library.tools)} agent-written tools

scripts/bench/library.mjs seeds a library (the SQLite store beside the ledger) with ${int(r.library.tools)} tools of ten agents, one in a hundred \`direct\`, the rest \`deferred\`, then starts a host on it: every tool is listed from its stored manifest and none is compiled until its first call. tool_search runs through \`host.call\` (the whole call path, its ledger record included) with three-word queries; the BM25 index (src/registry/search.ts) is built once per change of the catalog, from terms kept per manifest, so a change of one tool rebuilds it without tokenizing the others.

${mdTable(["case", "figure"], libraryRows(r))}`);
  }

  const hp = r.profile.host;
  const wp = r.profile.worker;
  const gp = r.profile.guest;
  sections.push(`## Where the time goes

CPU profiles of the warm path, one call in flight, sampled every 100 µs (50 µs for the guest). Self time per call is the profile's time divided by the calls made in the window; profiling slows every call a little.

- host: a default host under \`--cpu-prof\` (scripts/bench/profile-host-child.mjs); its workers run without the profiler;
- worker: corral's real worker entry under \`--cpu-prof\`, driven over IPC by the bench with corral's own messages (scripts/bench/direct-worker.mjs), no production code changed; the time inside the isolate shows as the isolated-vm entry (\`applySync\`) in corral's worker functions;
- guest: the guest runtime and the tool as run inside the isolate, profiled in a \`node:vm\` context (V8's profiler inside an isolated-vm 5.0.4 isolate deadlocks at random), built like the real runtime bundle but with names kept.

Per call: host busy ${perCall(hp.busyUs, hp.calls)}, worker busy ${perCall(wp.busyUs, wp.calls)}, guest ${perCall(gp.busyUs, gp.calls)}.

${profileTables("Host process", hp)}

${profileTables("Worker process", wp)}

${profileTables("Guest (inside the isolate)", gp, 10)}`);

  sections.push(`## How to run

\`npm run bench\` builds (unless dist/ is fresh), re-runs itself under \`node --no-node-snapshot\` (the raw isolated-vm baselines live in the bench process), works on a private snapshot of dist/, takes about 2-4 minutes on 2 cores and rewrites this page. \`npm run bench -- --quick\` (or \`BENCH_QUICK=1\`) is a smoke run of under 40 s with few samples. \`npm run profile\` prints only the profiles.`);

  return `${sections.join("\n\n")}\n`;
}

export function writeMarkdown(path, r) {
  writeFileSync(path, renderMarkdown(r));
}

/** Each target not met, with the reason this run's own figures give (report-reasons.mjs). */
function unmetReasons(r) {
  const unmet = targets(r).filter((x) => !x.met && x.why !== undefined);
  if (unmet.length === 0) return "";
  return `\n\n### Why each target not met is out of reach, in this run's figures\n\n${unmet.map((x) => `- **${x.name}.** ${x.why()}`).join("\n")}`;
}
