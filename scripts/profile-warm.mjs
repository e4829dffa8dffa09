// `npm run profile`: CPU profiles of the warm path only (host, worker, guest;
// see scripts/bench/profile.mjs), printed as the markdown tables that
// `npm run bench` puts under "Where the time goes" in docs/benchmarks.md.
//
//   node scripts/profile-warm.mjs [--quick] [--build | --no-build]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const calls = args.includes("--quick") ? { host: 1_500, worker: 1_500, guest: 5_000 } : { host: 5_000, worker: 5_000, guest: 20_000 };

const { prepareDist, removeSnapshot } = await import("./bench/prepare.mjs");
const snapshot = prepareDist({ forceBuild: args.includes("--build"), skipBuild: args.includes("--no-build") });
// Read by scripts/bench/dist.mjs when the modules below load.
process.env.BENCH_DIST = snapshot;
const tempDir = mkdtempSync(join(tmpdir(), "corral-profile-"));
try {
  const { profileHost, profileWorker, profileGuestSide } = await import("./bench/profile.mjs");
  const { profileTables } = await import("./bench/report.mjs");
  console.error("profile: host …");
  const host = await profileHost(tempDir, { calls: calls.host });
  console.error("profile: worker …");
  const worker = await profileWorker(tempDir, { calls: calls.worker });
  console.error("profile: guest …");
  const guest = await profileGuestSide(tempDir, { calls: calls.guest });
  console.log([profileTables("Host process", host), profileTables("Worker process", worker), profileTables("Guest (inside the isolate)", guest, 10)].join("\n\n"));
} finally {
  rmSync(tempDir, { recursive: true, force: true });
  removeSnapshot(snapshot);
}
process.exit(0);
