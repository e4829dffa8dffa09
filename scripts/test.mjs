// `npm test`: builds, then runs every compiled *.test.js under node's test
// runner. Each file gets a timeout, so a hanging test fails instead of
// stalling CI. Pass file or folder names to run a subset.
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { stdio: "inherit" });

function collect(dir, found = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "fixtures") collect(path, found);
    } else if (entry.name.endsWith(".test.js")) found.push(path);
  }
  return found;
}

const filters = process.argv.slice(2);
const files = collect(join(root, "dist"))
  .filter((file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f.replace(/\.ts$/, ""))))
  .sort();
if (files.length === 0) {
  console.error("corral test: no test files matched");
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  // --no-node-snapshot: in-process tests of the worker's core load isolated-vm
  // (the test runner passes this flag on to each file's process).
  ["--no-node-snapshot", "--test", "--test-timeout=180000", "--test-reporter=spec", ...files],
  { stdio: "inherit", cwd: root, env: { ...process.env, CORRAL_TEST: "1" } },
);
process.exit(result.status ?? 1);
