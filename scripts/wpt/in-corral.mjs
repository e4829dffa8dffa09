/**
 * Runs WPT tests inside a pure corral tool (no effects): a real host, real
 * worker processes, an isolate per call (`isolation: "call"`, so no test
 * file sees another's globals). The test's resource files come in the
 * call's input, since the tool has no file system or network.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHost } from "../../dist/src/index.js";
import { RUN_WPT } from "./harness.mjs";

const TOOL = `import { defineTool } from "corral";
import { z } from "zod";
${RUN_WPT}
export default defineTool({
  name: "wpt_run",
  description: "runs one Web Platform Test file with testharness.js",
  input: z.object({
    input: z.object({ path: z.string(), search: z.string(), timeoutMs: z.number(), scripts: z.array(z.object({ name: z.string(), text: z.string() })) }),
    resources: z.record(z.string(), z.string()),
  }),
  effects: [],
  limits: { timeoutMs: 60000, memoryMb: 256 },
  async run({ input, resources }) {
    const load = (path) => {
      const b64 = resources[path];
      if (b64 === undefined) return undefined;
      const text = atob(b64);
      const bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
      return bytes;
    };
    return await runWpt(input, load);
  },
});
`;

/** A host with the WPT tool loaded; `run(input, resourcePaths)` answers the call's result. */
export async function corralRunner(wpt, { workers = 2 } = {}) {
  const host = createHost({
    workers,
    isolation: "call",
    cacheDir: false,
    ledger: { store: ":memory:", policy: { strikes: 1000 } },
  });
  const loaded = await host.load({ source: "host:wpt", code: TOOL });
  if (!loaded.ok) throw new Error("the WPT tool did not load: " + JSON.stringify(loaded));
  const run = async (input, resourcePaths) => {
    const resources = {};
    for (const path of resourcePaths) {
      try { resources[path] = readFileSync(join(wpt, path)).toString("base64"); } catch { /* Node asked for it and missed too */ }
    }
    return host.call("wpt_run", { input, resources }, { timeoutMs: 60_000, memoryMb: 256 });
  };
  return { host, run };
}
