/**
 * @module sandbox/worker/load-isolated-vm
 * Loads the isolated-vm line npm installed for this Node. Only sandbox
 * workers import this file.
 *
 * One line per Node, each the newest that ships a prebuilt binary for it:
 *
 *   Node 24, 26   isolated-vm 7.0.1   prebuilt (abi137, abi147)
 *   Node 22       isolated-vm 6.2.0   prebuilt (abi127)
 *   Node 20       isolated-vm 5.0.4   compiled (the last line that builds on 20)
 *
 * An installed corral depends on `isolated-vm@5.0.4 || 6.2.0 || 7.0.1` and
 * npm picks the version whose engines fit the Node it runs on, under the
 * name `isolated-vm`. corral's own checkout keeps one lock file for every
 * Node: there the lines for 22 and 20 come through the optional packages in
 * sandbox/isolated-vm-lines/, whose engines npm checks, as
 * `isolated-vm-node22` and `isolated-vm-node20`. Either way one line is
 * installed, so the first name that resolves is the one to load; a name
 * that does not resolve is never required. The typings of the three lines
 * are the same.
 */
import { createRequire } from "node:module";

// Typings resolve through tsconfig "paths" to whichever build is installed.
import type IsolatedVM from "isolated-vm-types";

const require = createRequire(import.meta.url);

export type Ivm = typeof IsolatedVM;

/** The names a line may be installed under on this Node, in the order they are looked for. */
function namesForThisNode(): string[] {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= 24) return ["isolated-vm"];
  return ["isolated-vm", major >= 22 ? "isolated-vm-node22" : "isolated-vm-node20"];
}

function load(): Ivm {
  const failures: string[] = [];
  for (const name of namesForThisNode()) {
    let path: string;
    try {
      path = require.resolve(name);
    } catch {
      failures.push(`${name}: not installed`);
      continue;
    }
    try {
      return require(path) as Ivm;
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
    }
  }
  throw new Error(
    `corral: no isolated-vm line loads on Node ${process.version}; a node_modules installed under another Node has the wrong one: reinstall (npm ci, or npm install) with this Node.\n${failures.join("\n")}`,
  );
}

export const ivm: Ivm = load();
