// Where the bench takes corral from: a private snapshot of dist/ that
// scripts/bench.mjs makes at start (BENCH_DIST), so that someone rebuilding
// dist/ meanwhile can neither break a run nor mix two versions of corral in
// one table; dist/ itself when run alone. Paths only: importing this module
// loads nothing of corral (the naive pool's workers import it too).
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const DIST = process.env.BENCH_DIST ?? fileURLToPath(new URL("../../dist/", import.meta.url));

export const distUrl = (relative) => pathToFileURL(join(DIST, relative)).href;
export const distPath = (relative) => join(DIST, relative);

/** corral's public API (host side; loads no isolated-vm). */
export const importCorral = () => import(distUrl("src/index.js"));

/** isolated-vm, loaded the way corral's worker loads it (needs --no-node-snapshot). */
export const importIvm = async () => (await import(distUrl("sandbox/worker/load-isolated-vm.js"))).ivm;
