// attempts: vm2 CVE-2023-37903 (GHSA-g644-9gfx-q4q4, 3.9.20),
// GHSA-p5gc-c584-jj6v and GHSA-v37h-5mfm-c47c (util.inspect showProxy
// handler leak): hand objects with a `nodejs.util.inspect.custom` method, and
// Proxies, to everything that might inspect them (console, a thrown value,
// WebAssembly.compileStreaming, the result); the custom method climbs the
// `inspect` function and options it is given, and a Proxy handler records
// who reads it.
// expect: ok
// expect-output: contained
// A correct host never inspects a tool's values with Node's util.inspect:
// the isolate's console formats them itself, and nothing reaches the host.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-inspect-custom",
  description: "hostile case: nodejs.util.inspect.custom and showProxy",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const findings = new Findings();
    const custom = {
      [Symbol.for("nodejs.util.inspect.custom")](depth: unknown, options: unknown, inspect: unknown): string {
        findings.check("custom depth", depth);
        findings.check("custom options", options);
        findings.check("custom inspect", inspect);
        findings.attempt("options.stylize", () => (options as { stylize?: unknown } | undefined)?.stylize);
        return "custom";
      },
    };
    const handler = {
      get(target: object, key: PropertyKey, receiver: unknown): unknown {
        findings.check("proxy receiver", receiver);
        return Reflect.get(target, key);
      },
    };
    const proxy = new Proxy({ a: 1 }, handler);
    findings.attempt("console.log", () => console.log(custom, proxy));
    findings.attempt("console.error", () => console.error("%o %O", custom, proxy));
    const W = WebAssembly as unknown as { compileStreaming?: (x: unknown) => Promise<unknown> };
    if (typeof W.compileStreaming === "function") await findings.attemptAsync("compileStreaming", () => W.compileStreaming!(custom));
    try {
      throw custom;
    } catch (caught) {
      findings.check("thrown", caught);
    }
    return findings.verdict();
  },
});
