// corral's real sandbox worker (dist/sandbox/worker/entry.js) started without
// tinypool: this wrapper imports the entry, starts its `serve` task and lets
// the parent drive it with corral's own HostMessages over IPC. Used to time
// the worker alone and to profile it (the parent forks it with --cpu-prof),
// with no change to the worker's code. Two extra messages, which the worker's
// HostMessage schema ignores: {bench: "start"} marks the start of the
// measured window, {bench: "stop"} writes the window to BENCH_PROFILE_OUT and
// exits normally (so that --cpu-prof writes its file).
// (V8's profiler inside an isolate cannot be used here: with isolated-vm
// 5.0.4 an applySync into a profiled isolate never returns. guest-profile.mjs
// profiles the guest side instead.)
import { writeFileSync } from "node:fs";

import { distUrl } from "./dist.mjs";

const { default: serve } = await import(distUrl("sandbox/worker/entry.js"));
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
let window;

process.on("message", (message) => {
  if (message?.bench === "start") {
    window = { startUs: nowUs(), cpu: process.cpuUsage() };
    process.send({ bench: "started" });
  } else if (message?.bench === "stop") {
    window.endUs = nowUs();
    const cpu = process.cpuUsage(window.cpu);
    window.cpuUs = cpu.user + cpu.system;
    if (process.env.BENCH_PROFILE_OUT) writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify({ window }));
    process.exit(0);
  }
});

serve({ type: "serve" });
