/**
 * @module sandbox/worker/load-isolated-vm
 * Loads whichever isolated-vm build npm installed: `isolated-vm` (6.x, Node 22
 * and 24) or `isolated-vm-node20` (5.x, which still compiles on Node 20).
 * Their typings are the same. Only sandbox workers import this file.
 */
import { createRequire } from "node:module";

// Typings resolve through tsconfig "paths" to whichever build is installed.
import type IsolatedVM from "isolated-vm-types";

const require = createRequire(import.meta.url);

export type Ivm = typeof IsolatedVM;

function load(): Ivm {
  const failures: string[] = [];
  for (const name of ["isolated-vm", "isolated-vm-node20"]) {
    try {
      return require(name) as Ivm;
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
    }
  }
  throw new Error(
    `corral: no isolated-vm build loads on Node ${process.version}; run \`npm ci\` again and check its output.\n${failures.join("\n")}`,
  );
}

export const ivm: Ivm = load();
