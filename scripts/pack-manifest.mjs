// The package.json a user installs, written for `npm pack` / `npm publish`
// and put back after (prepack: `write`, postpack: `restore`).
//
// The checkout's package.json serves contributors on every Node with one lock
// file: isolated-vm 7.0.1 for Node 24 and 26, and the lines for 22 and 20
// through the optional local packages in sandbox/isolated-vm-lines/, which
// npm skips by their engines. A local package means nothing in a user's
// project, so the published manifest names one dependency instead,
// `isolated-vm@<each line's version, joined by ||>`: npm picks the version
// whose engines fit the user's Node, so a line that never loads there is
// neither installed nor built. The contributor's scripts, devDependencies
// and script approvals go too: they need files the package does not ship.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifestPath = join(root, "package.json");
// Beside package.json, so a pack that died half-way is seen by the next one.
const keptPath = join(root, ".package.checkout.json");
const LINE_SPEC = /^npm:isolated-vm@(\d+\.\d+\.\d+)$/;

/** The published form of the checkout's manifest. */
export function publishedManifest(checkout, readLine) {
  const { scripts, devDependencies, allowScripts, optionalDependencies = {}, ...rest } = checkout;
  const versions = [];
  const others = {};
  for (const [name, spec] of Object.entries(optionalDependencies)) {
    if (name === "isolated-vm") versions.push(spec);
    else if (spec.startsWith("file:")) versions.push(lineVersion(name, readLine(spec.slice("file:".length))));
    else others[name] = spec;
  }
  if (versions.length === 0) throw new Error("pack-manifest: package.json names no isolated-vm line");
  versions.sort((a, b) => Number(a.split(".")[0]) - Number(b.split(".")[0]));
  return { ...rest, optionalDependencies: { ...others, "isolated-vm": versions.join(" || ") } };
}

function lineVersion(name, line) {
  const specs = Object.values(line.dependencies ?? {});
  const match = specs.length === 1 ? LINE_SPEC.exec(specs[0]) : null;
  if (match === null) throw new Error(`pack-manifest: ${name} must depend on exactly one npm:isolated-vm@<version>`);
  return match[1];
}

function write() {
  if (existsSync(keptPath)) {
    throw new Error(`pack-manifest: ${keptPath} exists: an earlier pack did not finish. Check package.json, then delete it (or run \`node scripts/pack-manifest.mjs restore\`).`);
  }
  const text = readFileSync(manifestPath, "utf8");
  const readLine = (folder) => JSON.parse(readFileSync(join(root, folder, "package.json"), "utf8"));
  const published = publishedManifest(JSON.parse(text), readLine);
  writeFileSync(keptPath, text);
  writeFileSync(manifestPath, `${JSON.stringify(published, null, 2)}\n`);
}

function restore() {
  if (existsSync(keptPath)) renameSync(keptPath, manifestPath);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const command = process.argv[2];
  if (command === "write") write();
  else if (command === "restore") restore();
  else {
    console.error("usage: node scripts/pack-manifest.mjs write|restore");
    process.exit(2);
  }
}
