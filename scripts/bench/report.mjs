// Turns the figures into tables: a short one on the console, and
// docs/benchmarks.md (overwritten on every run, report-markdown.mjs) with the
// machine, every figure, the ratios to each baseline, the targets and whether
// each is met, and where the time goes. The rows both print are in
// report-rows.mjs, the units and table layout in report-format.mjs.
import { ms, int, perCall, textTable } from "./report-format.mjs";
import { sporadicRows, targets, warmRows, throughputRows, coldRows, recoveryRows, bystanderRows, memoryRows, idleWorkRows, eventLoopRows, codeModeRows, libraryRows, telemetryRows, fetchRows } from "./report-rows.mjs";

export { profileTables, targets } from "./report-rows.mjs";
export { renderMarkdown, writeMarkdown } from "./report-markdown.mjs";

export function renderConsole(r) {
  const out = [];
  const m = r.machine;
  out.push(`corral bench (${r.mode}) on ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.isolatedVm.name} ${m.isolatedVm.version}; load average ${r.loadBefore.map((v) => v.toFixed(2)).join(" ")} → ${r.loadAfter.map((v) => v.toFixed(2)).join(" ")}; other processes took ${r.othersCpuShare === undefined ? "?" : `${(r.othersCpuShare * 100).toFixed(0)}%`} of the CPU`);
  out.push("", "Warm call, 1 in flight", textTable(["contender", "p50", "p99", "mean", "corral÷ p50", "corral÷ p99", "host CPU", "worker CPU"], warmRows(r)));
  out.push("", `Sporadic warm calls (${r.warmGapMs} ms idle before each)`, textTable(["contender", "p50", "p99", "corral÷ p50"], sporadicRows(r)));
  out.push("", "Throughput, 64 in flight", textTable(["contender", "calls/s", "p50", "p99", "÷ naive", "host CPU", "worker CPU", "total CPU"], throughputRows(r)));
  out.push("", "Cold tool", textTable(["case", "p50", "p90", "max", "load", "1st call", "÷ raw", "n"], coldRows(r)));
  const mx = r.mixed;
  out.push("", `Mixed: ${mx.tools} tools, ${mx.inFlight} in flight: maxWarmIsolates ${mx.maxWarmIsolates}: ${int(mx.pressure.callsPerS)}/s p50 ${ms(mx.pressure.p50, 2)} p99 ${ms(mx.pressure.p99, 2)}; default: ${int(mx.roomy.callsPerS)}/s p50 ${ms(mx.roomy.p50, 2)} p99 ${ms(mx.roomy.p99, 2)}`);
  out.push("", "Recovery: next call after a worker dies", textTable(["case", "p50", "max", "abort() blocked", "replaced", "n"], recoveryRows(r)));
  out.push("", "Bystander calls during the event", textTable(["while", "p50", "p99", "max", "n", "failed"], bystanderRows(r)));
  out.push("", "Memory", textTable(["what", "RSS"], memoryRows(r)));
  if (r.idleWork !== undefined) out.push("", "Idle work", textTable(["what", "p50", "p90", "max", "n"], idleWorkRows(r)));
  if (r.fetch !== undefined) out.push("", "fetch from a tool (127.0.0.1 page)", textTable(["case", "p50", "p99", "÷ Node p50"], fetchRows(r)));
  if (r.telemetry !== undefined) out.push("", "OpenTelemetry hooks per call", textTable(["case", "cost", "share"], telemetryRows(r)));
  if (r.eventLoop !== undefined) out.push("", "The host's event loop during calls (a 1 ms timer, late by)", textTable(["ledger", "p50", "p99", "max"], eventLoopRows(r)));
  if (r.codeMode !== undefined) out.push("", "Code Mode nested calls", textTable(["case", "time", "÷ invoke", "÷ host.call"], codeModeRows(r)));
  if (r.library !== undefined) out.push("", `The library at ${r.library.tools} agent-written tools`, textTable(["case", "figure"], libraryRows(r)));
  out.push("", "Targets", textTable(["target", "figure", "met"], targets(r).map((t) => [t.name, t.figure, t.met ? "yes" : "NO"])));
  const hp = r.profile.host;
  const wp = r.profile.worker;
  out.push("", `Profile: host busy ${perCall(hp.busyUs, hp.calls)}/call (top: ${hp.areas.slice(0, 3).map((a) => `${a.name} ${perCall(a.selfUs, hp.calls)}`).join(", ")}); worker busy ${perCall(wp.busyUs, wp.calls)}/call (top: ${wp.areas.slice(0, 3).map((a) => `${a.name} ${perCall(a.selfUs, wp.calls)}`).join(", ")})`);
  return out.join("\n");
}
