// The host side of the warm path under --cpu-prof: a default host with
// word_count warm, then calls one at a time. Started by profile.mjs with
// --cpu-prof; it writes the measured window (on the profile's clock) to the
// file named in argv[2], closes the host and exits normally so that node
// writes the profile. Its workers never see the profiler's flags: corral
// forks them with its own fixed flags.
import { writeFileSync } from "node:fs";
import { createWarmCorral } from "./contenders.mjs";
import { timeSerial } from "./harness.mjs";

const [, , windowFile, tempDir, callsText] = process.argv;
const calls = Number(callsText);
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

const corral = await createWarmCorral(tempDir);
await timeSerial(corral.call, 1_000, 0);
const cpuBefore = process.cpuUsage();
const startUs = nowUs();
const samples = await timeSerial(corral.call, calls, 0);
const endUs = nowUs();
const cpu = process.cpuUsage(cpuBefore);
const cpuUs = cpu.user + cpu.system;
writeFileSync(windowFile, JSON.stringify({ startUs, endUs, calls, cpuUs, meanMs: samples.reduce((a, b) => a + b, 0) / calls }));
await corral.close();
process.exit(0);
