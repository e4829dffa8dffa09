// Why a target is not met, in the run's own figures: each reason names the
// parts of the target's figure that the same run measured apart (the
// worker alone, the IPC floor, the naive pool's own tail and CPU, compiling
// alone, the journal's writes), so the distance to the target and where it
// lies can be read off the page. report-rows.mjs attaches one to each target.
import { us, ms, mb, ratio, int, cpu } from "./report-format.mjs";

const anatomyTotal = (a) => (a === undefined ? Number.NaN : a.isolate + a.context + a.compile + a.run + a.dispose);

export function warmP50Reason(r) {
  const w = r.warm;
  const workerExtra = w.corralWorker.p50 - w.naive.p50;
  const parts = [
    `corral's worker alone, over IPC, answers in ${us(w.corralWorker.p50)}, ${ratio(w.corralWorker.p50, w.naive.p50)} the naive pool's ${us(w.naive.p50)}: per call it checks the input and the output against the tool's schemas, builds the envelope, caps the output and meters the isolate, where the naive worker makes one applySync` +
      (w.toolIsolate !== undefined && w.ivmSync !== undefined ? ` (in-process: ToolIsolate.invoke ${us(w.toolIsolate.p50)}, a bare applySync ${us(w.ivmSync.p50)})` : "") +
      ".",
    `The host's path adds ${us(w.corral.p50 - w.corralWorker.p50)} (exposure, quarantine, effect policy, gate, admission, routing, the ledger's record, the audit line): its CPU per call is ${cpu(w.corral.hostCpuUs)} against the naive pool's ${cpu(w.naive.hostCpuUs)}.`,
  ];
  if (w.ipcFloor !== undefined) parts.push(`Above the raw IPC round trip (${us(w.ipcFloor.p50)}) the naive pool spends ${us(w.naive.p50 - w.ipcFloor.p50)} a call, an applySync and tinypool's bookkeeping.`);
  if (workerExtra > 0) parts.push(`corral's worker alone is already ${us(workerExtra)} slower than the whole naive pool, before the host does anything: the target would need every check of the worker's and the host's for free.`);
  else parts.push(`corral's worker alone is within ${us(-workerExtra)} of the whole naive pool, so the target leaves the host's whole path that much a call, where its CPU alone is ${cpu(w.corral.hostCpuUs - w.naive.hostCpuUs)} a call above the naive pool's host side.`);
  return parts.join(" ");
}

export function warmP99Reason(r) {
  const w = r.warm;
  const parts = [];
  if (w.ipcFloor !== undefined) {
    parts.push(`With nothing of corral in it, the raw IPC round trip's p99 is ${us(w.ipcFloor.p99)}, ${ratio(w.ipcFloor.p99, w.ipcFloor.p50)} its p50,`);
  }
  parts.push(`${w.ipcFloor !== undefined ? "and" : "With nothing of corral in it,"} the naive pool's p99 is ${us(w.naive.p99)}, ${ratio(w.naive.p99, w.naive.p50)} its p50: the tail is the machine's (waking a process, another process or the hypervisor taking the core, a collection in either process).`);
  parts.push(`corral's p99 is ${ratio(w.corral.p99, w.naive.p99)} the naive pool's.`);
  if (w.ipcFloor !== undefined && w.ipcFloor.p99 > 3 * w.ipcFloor.p50) parts.push("A p99 within 3× p50 is beyond the bare process boundary itself on this machine.");
  return parts.join(" ");
}

export function throughputReason(r) {
  const t = r.throughput;
  const cores = r.machine.cores;
  const wanted = 2 * t.naive.callsPerS;
  const budget = (cores * 1e6) / wanted;
  return `On ${cores} cores the rate cannot pass cores ÷ CPU per call. Twice the naive pool's rate, ${int(wanted)}/s, leaves at most ${cpu(budget)} of CPU a call, host and worker together; corral spends ${cpu(t.corral.hostCpuUs + t.corral.workerCpuUs)} (host ${cpu(t.corral.hostCpuUs)}, worker ${cpu(t.corral.workerCpuUs)}, calls sent many to a message), and the naive pool's worker alone spends ${cpu(t.naive.workerCpuUs)} a call.`;
}

export function newToolReason(r) {
  const c = r.cold;
  const parts = [`Of its ${ms(c.new.p50)}, the load (\`author\`) takes ${ms(c.new.loadP50)} and the first call ${ms(c.new.callP50)}.`];
  if (c.compileOnly !== undefined) parts.push(`Compiling the new source alone (esbuild through corral's BundleCache, the import policy, the disk cache; in this process, esbuild's service warm) takes ${ms(c.compileOnly.p50)}.`);
  const fresh = anatomyTotal(c.anatomy?.corralRuntime);
  const sporadic = r.warm.corralSporadic;
  parts.push(
    `The rest of the load${c.compileOnly !== undefined ? ` (${ms(c.new.loadP50 - c.compileOnly.p50)})` : ""} is the describe in a worker (the module's top level run in an isolate made ahead with the guest runtime already run${Number.isFinite(fresh) ? `: a fresh one would cost ${ms(fresh)} before the tool's code` : ""}), the host's check of the manifests, the ledger's record of the load, and waking processes that were idle (esbuild's service, a worker${sporadic !== undefined ? `; a warm call after ${r.warmGapMs} ms idle takes ${us(sporadic.p50)} at p50` : ""}).`,
  );
  return parts.join(" ");
}

export function seenSourceReason(r) {
  const { seenSameHost: same, seenNewHost: fresh } = r.cold;
  return `On the same host it takes ${ms(same.p50)} (load ${ms(same.loadP50)}, first call ${ms(same.callP50)}). A new host has neither the manifests in memory nor the tool's isolate: its load reads the checked manifests from the cache folder (${ms(fresh.loadP50)}), and its first call builds the tool's isolate in a worker from one made ahead (${ms(fresh.callP50)}, against ${ms(same.callP50)} where it is warm); the workers were idle before each step.`;
}

export function warmToolMemoryReason(r) {
  const m = r.memory;
  const runtime = r.cold.anatomy?.corralRuntime;
  return `Of the ${mb(m.perWarmToolBytes)} of RSS a warm tool adds, its isolate's heap is ${mb(m.heapBytesPerTool)} (\`metrics.heapBytes\`, median)${runtime !== undefined ? `: every tool isolate runs corral's guest runtime first (zod, the SDK, the runtime: ${(runtime.bytes / 1024).toFixed(0)} KB of code and the objects it makes), so that no tool can reach another's` : ""}; the rest is what V8 keeps beside a heap (code space, the young generation's pages).`;
}

export function codeModeReason(r) {
  const c = r.codeMode;
  const journal = c.journalPair !== undefined ? ` (${us(c.journalPair)} the pair measured alone in a loop; several times that between isolate entries, ARCHITECTURE: Code Mode, Cost)` : "";
  return `The tool's own call on the lane, timed by the worker between the call's two journal lines, takes ${us(c.inWorkerP50)}, ${ratio(c.inWorkerP50, c.invokeP50)} ToolIsolate.invoke (${us(c.invokeP50)}): the tool's isolate entered from inside the script's entry. The other ${us(c.nestedP50 - c.inWorkerP50)} of a nested call are the two journal lines written with writeSync${journal}, so that the call's record, and which call was running should the worker die, outlive the worker; the request's parse and the answer's JSON; and the script's own side (its promise, the request and the answer crossing isolates).`;
}
