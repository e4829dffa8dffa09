// Runs memory-probe.mjs in a fresh process and derives the figures: RSS of
// the host and of its workers idle, and what a warm tool costs a worker.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DIST } from "./dist.mjs";

const PROBE = fileURLToPath(new URL("./memory-probe.mjs", import.meta.url));

export async function measureMemory(tempDir, { tools }) {
  const child = spawn(process.execPath, ["--expose-gc", PROBE, tempDir, String(tools)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, BENCH_DIST: DIST },
  });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`bench: the memory probe exited with code ${code}`);
  const probe = JSON.parse(out.trim().split("\n").pop());
  const { host, loader, serving } = probe.oneWorker;
  return {
    tools: probe.count,
    defaultIdle: probe.defaultIdle,
    oneWorker: probe.oneWorker,
    /** Worker RSS per warm tool, on a worker that loaded nothing (the spare, promoted). */
    perWarmToolBytes: (serving.warm - serving.idle) / probe.count,
    /** What loading left in the worker that did it (its describe isolates, kept warm or disposed). */
    perToolLoadedBytes: (loader.loaded - loader.idle) / probe.count,
    hostPerToolBytes: (host.warm - host.idle) / probe.count,
    heapBytesPerTool: probe.heapBytesPerTool,
  };
}
