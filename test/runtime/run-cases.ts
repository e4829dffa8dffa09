/**
 * @module test/runtime/run-cases
 * Runs web-API cases inside a real tool (host, worker process, isolate) and,
 * for reference, in this Node. A case is the body of an async function (with
 * `z`, zod, in scope) returning JSON-able data; a throw is answered by its
 * `name` (and `code` for a DOMException), not its message, which engines
 * word differently. Shared by the conformance suites of test/web and
 * test/runtime.
 */
import { z } from "zod";
import type { Host } from "../../src/index.js";

export type Answer = { value: unknown } | { threw: string };

/** The same wrapper text runs in Node and inside the tool. */
const RUN_CASE = `async function runCase(body, z) {
  try {
    const value = await new Function("z", "return (async () => {" + body + "})();")(z);
    return { value: JSON.parse(JSON.stringify(value === undefined ? null : value)) };
  } catch (e) {
    return { threw: e && e.name === "DOMException" ? e.name + ":" + e.code : String(e && e.name) };
  }
}`;

// eslint-disable-next-line no-new-func
const runInNode = new Function(`${RUN_CASE}; return runCase;`)() as (body: string, zod: unknown) => Promise<Answer>;

/** A tool named `name` that runs the cases it is given and answers each one's Answer. */
export const casesTool = (name: string): string => `import { defineTool } from "corral";
import { z } from "zod";
${RUN_CASE}
export default defineTool({
  name: ${JSON.stringify(name)},
  description: "runs web API cases",
  input: z.object({ cases: z.record(z.string(), z.string()) }),
  effects: [],
  async run(input) {
    const out = {};
    for (const [name, body] of Object.entries(input.cases)) out[name] = await runCase(body, z);
    return out;
  },
});
`;

/** Each case's answer in this Node. */
export async function answersInNode(cases: Record<string, string>): Promise<Record<string, Answer>> {
  const out: Record<string, Answer> = {};
  for (const [name, body] of Object.entries(cases)) out[name] = await runInNode(body, z);
  return out;
}

const loadedTools = new WeakMap<Host, Set<string>>();

/** Each case's answer inside a tool of `host` (loaded under `name` on first use). */
export async function answersInTool(host: Host, name: string, cases: Record<string, string>, limits = { timeoutMs: 20_000, memoryMb: 128 }): Promise<Record<string, Answer>> {
  const loaded = loadedTools.get(host) ?? new Set<string>();
  loadedTools.set(host, loaded);
  if (!loaded.has(name)) {
    const answer = await host.load({ source: `agent:${name}`, code: casesTool(name) });
    if (!answer.ok) throw new Error(`loading ${name} failed: ${JSON.stringify(answer)}`);
    loaded.add(name);
  }
  const result = await host.call(name, { cases }, limits);
  if (!result.ok) throw new Error(`calling ${name} failed: ${JSON.stringify(result)}`);
  return result.structured as Record<string, Answer>;
}

/** "name: isolate …, expected …" for each case whose answer differs from `expected`'s. */
export function differences(actual: Record<string, Answer>, expected: Record<string, Answer>): string[] {
  return Object.keys(expected)
    .filter((name) => JSON.stringify(actual[name]) !== JSON.stringify(expected[name]))
    .map((name) => `${name}: isolate ${JSON.stringify(actual[name])}, expected ${JSON.stringify(expected[name])}`);
}
