// `npm run fuzz -- --count N --seed S [--workers W] [--no-shrink] [--campaign programs|payloads]`: builds,
// then runs a fuzz campaign of generated hostile programs through one host
// (test/fuzz/campaign.ts). Prints each failure's seed and shrunk program.
import { execFileSync, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (!process.argv.includes("--no-build")) execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { stdio: "inherit" });
const args = process.argv.slice(2).filter((arg) => arg !== "--no-build");
const result = spawnSync(process.execPath, [join(root, "dist/test/fuzz/cli.js"), ...args], { stdio: "inherit", cwd: root });
process.exit(result.status ?? 1);
