// attempts: vm2 GHSA-9vg3-4rfj-wgcm and GHSA-mpf8-4hx2-7cjg (2026): throw
// null-prototype objects and host-looking values from callbacks the runtime
// calls (a timer callback, a toJSON and a getter the result writer reads, a
// then the runtime awaits), resolve promises with them, and climb what the
// tool's own catch and then handlers receive back.
// expect: ok
// expect-output: contained
// A correct host hands the tool only its own values back: nothing crosses a
// realm, so nothing has a host constructor.
import { defineTool } from "corral";
import { z } from "zod";
import { Findings } from "./_escape-kit";

export default defineTool({
  name: "escape-vm2-null-proto-throw",
  description: "hostile case: null-prototype throws through runtime callbacks",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const findings = new Findings();
    const bare = (): object => Object.assign(Object.create(null) as object, { marker: 1 });
    await findings.attemptAsync("timer throw", () => new Promise((resolve, reject) => {
      setTimeout(() => {
        try {
          throw bare();
        } catch (error) {
          reject(error);
        }
      }, 1);
    }));
    await findings.attemptAsync("resolve with null proto", () => Promise.resolve(bare()));
    await findings.attemptAsync("thenable", () => Promise.resolve({ then: (_ok: unknown, fail: (e: unknown) => void) => fail(bare()) }));
    findings.attempt("JSON toJSON throw", () => JSON.stringify({ toJSON: () => { throw bare(); } }));
    findings.attempt("structuredClone", () => structuredClone(bare()));
    return findings.verdict();
  },
});
