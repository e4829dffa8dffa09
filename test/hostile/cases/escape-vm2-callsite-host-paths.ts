// attempts: vm2 GHSA-v27g-jcqj-v8rw, GHSA-x6m4-chr9-cg97 and
// GHSA-r273-hxvj-fxhp (2026: host file paths and host frames leaked through
// CallSite methods, error stacks and util.getCallSites): collect every
// CallSite method's answer (file, script name, eval origin, function name,
// type name) for errors raised in the tool, in the runtime's input check, in
// a timer and by V8, and look for absolute paths, node: or file: URLs.
// expect: ok
// expect-output: contained
// A correct host shows only the tool's own source id and corral:runtime:
// nothing of the worker's or the host's files.
import { defineTool } from "corral";
import { z } from "zod";

type CallSite = Record<string, (() => unknown) | undefined>;
const METHODS = ["getFileName", "getScriptNameOrSourceURL", "getEvalOrigin", "getFunctionName", "getTypeName", "getMethodName", "toString"];

export default defineTool({
  name: "escape-vm2-callsite-host-paths",
  description: "hostile case: host paths through CallSites",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 5000, memoryMb: 64 },
  async run() {
    const seen: string[] = [];
    const E = Error as unknown as { prepareStackTrace?: unknown; stackTraceLimit: number };
    E.stackTraceLimit = 200;
    E.prepareStackTrace = (_e: unknown, sites: CallSite[]) => {
      for (const site of sites) {
        for (const method of METHODS) {
          try {
            const value = site[method]?.call(site);
            if (typeof value === "string") seen.push(value);
          } catch {
            // a method that throws shows nothing
          }
        }
      }
      return "";
    };
    const errors: unknown[] = [new Error("own")];
    try {
      setTimeout(7 as unknown as () => void, 1);
    } catch (error) {
      errors.push(error);
    }
    try {
      (undefined as unknown as { x: number }).x;
    } catch (error) {
      errors.push(error);
    }
    errors.push(await new Promise((resolve) => setTimeout(() => resolve(new Error("timer")), 1)));
    for (const error of errors) void (error as Error).stack;
    const getCallSites = (globalThis as Record<string, unknown>).getCallSites;
    if (typeof getCallSites === "function") seen.push(JSON.stringify(getCallSites()));
    delete E.prepareStackTrace;
    const leaks = seen.filter((text) => /(^|[\s(])\/[a-z]|node:|file:|\.js:\d|\.mjs|node_modules|dist\/sandbox/.test(text));
    return leaks.length === 0 ? "contained" : `leaked: ${[...new Set(leaks)].slice(0, 5).join(" | ")}`;
  },
});
