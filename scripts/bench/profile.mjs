// CPU profiles of the warm path, one call in flight:
// - host: a default host under --cpu-prof (profile-host-child.mjs);
// - worker: corral's real worker entry under --cpu-prof, driven over IPC with
//   corral's messages (direct-worker.mjs), which is the worker's hot path
//   without tinypool's host side;
// - guest: the guest runtime and the tool, in a node:vm context under the
//   inspector's profiler (guest-profile.mjs), since V8's profiler inside an
//   isolated-vm isolate deadlocks.
// Each answers a summary from cpu-profile.mjs plus the calls it covers.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { summarizeProfile } from "./cpu-profile.mjs";
import { DIST } from "./dist.mjs";
import { createDirectWorker } from "./direct-worker.mjs";
import { profileGuest } from "./guest-profile.mjs";
import { timeSerial } from "./harness.mjs";

const HOST_CHILD = fileURLToPath(new URL("./profile-host-child.mjs", import.meta.url));
const SAMPLING_US = 100;

function readProfile(dir) {
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error(`bench: no .cpuprofile was written in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), "utf8"));
}

export async function profileHost(tempDir, { calls }) {
  const dir = join(tempDir, "profile-host");
  mkdirSync(dir, { recursive: true });
  const windowFile = join(dir, "window.json");
  const args = ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${SAMPLING_US}`, HOST_CHILD, windowFile, join(tempDir, "profile-host-run"), String(calls)];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, BENCH_DIST: DIST } });
  const code = await new Promise((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`bench: the profiled host exited with code ${code}`);
  const window = JSON.parse(readFileSync(windowFile, "utf8"));
  return { ...summarizeProfile(readProfile(dir), { window }), calls, meanMs: window.meanMs, cpuUs: window.cpuUs };
}

export async function profileWorker(tempDir, { calls }) {
  const dir = join(tempDir, "profile-worker");
  mkdirSync(dir, { recursive: true });
  const profileOut = join(dir, "window.json");
  const worker = await createDirectWorker(tempDir, {
    extraExecArgv: ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${SAMPLING_US}`],
    profileOut,
  });
  try {
    await timeSerial(worker.call, 1_000, 0);
    await worker.startProfile();
    const samples = await timeSerial(worker.call, calls, 0);
    await worker.stopProfile();
    const { window } = JSON.parse(readFileSync(profileOut, "utf8"));
    return { ...summarizeProfile(readProfile(dir), { window }), calls, meanMs: samples.reduce((a, b) => a + b, 0) / calls, cpuUs: window.cpuUs };
  } finally {
    await worker.close();
  }
}

export async function profileGuestSide(tempDir, { calls }) {
  const run = await profileGuest(tempDir, { calls });
  return { ...summarizeProfile(run.profile, { locate: run.locate }), calls, meanMs: run.wallMs / calls };
}
