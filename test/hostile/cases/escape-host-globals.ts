// attempts: find any Node or corral-internal name on the isolate's global
// object and its prototype chain (process, require, Buffer, the worker's
// timer callback, isolated-vm handles, XMLHttpRequest, ...). `fetch` is not
// among them: it is the web standard's global, in every isolate, and a use
// the tool did not declare is refused `undeclared` by the host
// (test/capabilities/undeclared-paths.test.ts).
// expect: ok
// expect-output: []
// A correct host leaves none of them reachable: the list is empty.
import { defineTool } from "corral";
import { z } from "zod";

const WANTED = [
  "process", "require", "module", "exports", "Buffer", "global", "__dirname", "__filename",
  "__corral_schedule", "__corral_capability", "ivm", "_ivm", "isolated_vm", "setImmediate", "XMLHttpRequest",
  "WebSocket", "Deno", "Bun", "importScripts", "postMessage", "gc", "%DebugPrint",
  // The worker's lent callbacks and the slots its scripts leave their exports in, for an instant.
  "__corral_wake", "__corral_done", "__corral_random", "__corral_load_url", "__corral_load_streams", "__corral_load_web",
  "__corral_encoding", "__corral_decode", "__corral_url_module", "__corral_streams_module", "__corral_lazy_module",
];

export default defineTool({
  name: "escape-host-globals",
  description: "hostile case: enumerates the global object for host names",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    // Every script the worker runs on first use has run (and left nothing behind) before the search.
    void [Response, ReadableStream, URL, Blob, crypto.subtle, URLPattern];
    const seen = new Set<string>();
    for (let o: object | null = globalThis; o !== null; o = Object.getPrototypeOf(o)) {
      for (const key of Object.getOwnPropertyNames(o)) seen.add(key);
    }
    const indirect = (0, eval)("this") as Record<string, unknown>;
    const fromFunction = Function("return this")() as Record<string, unknown>;
    const found = WANTED.filter((name) => seen.has(name) || name in indirect || name in fromFunction);
    return found;
  },
});
