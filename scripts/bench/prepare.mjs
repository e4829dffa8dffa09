// Before a run: build dist/ unless it is fresh, then copy what the bench
// needs (dist/src and dist/sandbox, JavaScript and source maps) to a private
// snapshot under node_modules/.cache, so that a rebuild of dist/ by someone
// else during the run changes nothing under the bench's feet.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(ROOT, "dist");
const SNAPSHOTS = join(ROOT, "node_modules/.cache/corral-bench");
const KEY_FILES = ["src/index.js", "sandbox/worker/entry.js", "sandbox/worker/load-isolated-vm.js", "sandbox/guest/runtime.bundle.js", "src/compile/index.js"];

function tsFiles(dir, found = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") tsFiles(path, found);
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : -Infinity);

/** Every src/ and sandbox/ file compiled after its last change, and the guest bundle after the guest's. */
export function distIsFresh() {
  if (KEY_FILES.some((file) => !existsSync(join(DIST, file)))) return false;
  const sources = [...tsFiles(join(ROOT, "src")), ...tsFiles(join(ROOT, "sandbox"))];
  for (const source of sources) {
    if (mtime(source) > mtime(join(DIST, relative(ROOT, source)).replace(/\.ts$/, ".js"))) return false;
  }
  const guest = [...tsFiles(join(ROOT, "sandbox/guest")), ...tsFiles(join(ROOT, "sandbox/sdk"))];
  const bundle = mtime(join(DIST, "sandbox/guest/runtime.bundle.js"));
  return guest.every((source) => mtime(source) <= bundle);
}

export function build() {
  console.error("bench: building corral (scripts/build.mjs) …");
  // Others may be half-way through a change elsewhere in the tree: their type
  // errors must not stop a benchmark of what compiles.
  execFileSync(process.execPath, [join(ROOT, "scripts/build.mjs")], {
    stdio: "inherit",
    env: { ...process.env, CORRAL_BUILD_ALLOW_TYPE_ERRORS: "1" },
  });
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Copies dist/ to a fresh snapshot folder and answers its path (with a trailing slash). */
export function snapshotDist() {
  mkdirSync(SNAPSHOTS, { recursive: true });
  for (const name of readdirSync(SNAPSHOTS)) {
    const pid = Number(/^dist-(\d+)$/.exec(name)?.[1]);
    if (Number.isFinite(pid) && !pidAlive(pid)) rmSync(join(SNAPSHOTS, name), { recursive: true, force: true });
  }
  const target = join(SNAPSHOTS, `dist-${process.pid}`);
  rmSync(target, { recursive: true, force: true });
  const keep = (path) => statSync(path).isDirectory() || /\.js(\.map)?$/.test(path);
  for (const part of ["src", "sandbox"]) cpSync(join(DIST, part), join(target, part), { recursive: true, filter: keep });
  const missing = KEY_FILES.filter((file) => !existsSync(join(target, file)));
  if (missing.length > 0) throw new Error(`bench: dist/ is incomplete (missing ${missing.join(", ")}); is a build running? try again`);
  return `${target}/`;
}

export function removeSnapshot(path) {
  rmSync(path, { recursive: true, force: true });
}

/** Build if needed (or if forced), then snapshot; retries once if dist/ changed under the copy. */
export function prepareDist({ forceBuild = false, skipBuild = false } = {}) {
  if (!skipBuild && (forceBuild || !distIsFresh())) build();
  try {
    return snapshotDist();
  } catch (error) {
    if (skipBuild) throw error;
    console.error(`${error.message}; building again`);
    build();
    return snapshotDist();
  }
}
