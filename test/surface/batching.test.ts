/**
 * The batched channel: calls handed to a worker together share a message,
 * and the worker holds a finished call's reply back only behind calls it
 * knows to be quick, of the same bundle, that cannot outrun the held call's
 * limit. A reply must never wait for a slow call, nor for a quick one that
 * turned out to wait on a timer, nor for another bundle's call.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Host } from "../../src/index.js";
import { toolSource, withHost } from "../helpers/host.js";

/**
 * Two tools of one module (one source), so that two calls made together take
 * the same path through the host and reach the pool in the same turn.
 */
function pair(second: { name: string; run: string }, quickLimitMs = 5000): string {
  return `import { defineTool } from "corral";
import { z } from "zod";
export const quick = defineTool({
  name: "quick", description: "answers at once", input: z.object({}), effects: [],
  limits: { timeoutMs: ${quickLimitMs} },
  run: () => "quick",
});
export const other = defineTool({
  name: ${JSON.stringify(second.name)}, description: "the second tool", input: z.object({ ms: z.number() }), effects: [],
  limits: { timeoutMs: 5000 },
  async run(input) { ${second.run} },
});
`;
}
// Synchronous work inside run: the worker's thread is held while it spins.
const SPIN_RUN = "const start = Date.now(); while (Date.now() - start < input.ms) {} return { end: Date.now() };";
const SPIN = pair({ name: "spin", run: SPIN_RUN });
// Answers at once when told not to wait, so the worker learns it is quick.
const NAP = pair({ name: "nap", run: "if (input.ms > 0) await new Promise((r) => setTimeout(r, input.ms)); return { end: Date.now() };" });

/**
 * Calls quick, `other`, quick, quick together (one message to the one
 * worker, four deep) and answers when the first quick's answer reached the
 * caller and when `other` ended, by the tool's own clock. The worker holds
 * the first reply back (fewer replies than tasks still queued), so only the
 * rule under test can send it before `other` ends.
 */
async function quickThenOther(host: Host, other: string, ms: number): Promise<{ quickAnsweredAt: number; otherEnd: number }> {
  let quickAnsweredAt = 0;
  const quick = host.call("quick", {}).then((result) => {
    quickAnsweredAt = Date.now();
    return result;
  });
  const results = await Promise.all([quick, host.call(other, { ms }), host.call("quick", {}), host.call("quick", {})]);
  assert.ok(results.every((result) => result.ok), JSON.stringify(results));
  const otherResult = results[1];
  return { quickAnsweredAt, otherEnd: otherResult?.ok === true ? (otherResult.structured as { end: number }).end : 0 };
}

/**
 * Warms quick and `other` (with `warmMs`, which decides whether the worker
 * knows `other` as quick), then checks that quick's reply did not wait for
 * `other`'s 600 ms run.
 */
async function assertNotHeld(host: Host, other: string, warmMs: number): Promise<void> {
  for (let i = 0; i < 3; i++) assert.ok((await host.call("quick", {})).ok);
  for (let i = 0; i < 3; i++) assert.ok((await host.call(other, { ms: warmMs })).ok);
  const { quickAnsweredAt, otherEnd } = await quickThenOther(host, other, 600);
  assert.ok(quickAnsweredAt < otherEnd, `quick answered at ${quickAnsweredAt}, ${other} ended at ${otherEnd}`);
}

const ONE_WORKER = { workers: 1, pipelineDepth: 4 };

describe("batched replies", { timeout: 120_000 }, () => {
  it("a quick call's reply does not wait for the slow call sent with it", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:spin", code: SPIN });
      await assertNotHeld(host, "spin", 20); // known, and known to be slow
    }, ONE_WORKER);
  });

  it("a reply held behind a quick call leaves as soon as that call waits on a timer", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:nap", code: NAP });
      await assertNotHeld(host, "nap", 0); // known quick: the reply is held behind it
    }, ONE_WORKER);
  });

  it("a reply is not held behind a quick call of another bundle that turns slow", async () => {
    await withHost(async (host) => {
      await host.load({ source: "agent:quick", code: toolSource({ name: "quick", run: "return 'quick';" }) });
      await host.load({ source: "agent:spin", code: toolSource({ name: "spin", input: "z.object({ ms: z.number() })", extra: "limits: { timeoutMs: 5000 },", run: SPIN_RUN }) });
      await assertNotHeld(host, "spin", 0);
    }, ONE_WORKER);
  });

  it("a reply is not held behind a call whose limit reaches past the held call's", async () => {
    await withHost(async (host) => {
      // quick's limit (1 s) ends long before spin's (5 s) could.
      await host.load({ source: "agent:spin", code: pair({ name: "spin", run: SPIN_RUN }, 1000) });
      await assertNotHeld(host, "spin", 0);
    }, ONE_WORKER);
  });

  it("many calls in flight over few workers all answer, each with its own result", async () => {
    await withHost(
      async (host) => {
        await host.load({ source: "agent:echo", code: toolSource({ name: "echo", input: "z.object({ n: z.number() })", run: "return input.n * 2;" }) });
        const results = await Promise.all(Array.from({ length: 200 }, (_, n) => host.call("echo", { n })));
        assert.deepEqual(
          results.map((result) => (result.ok ? result.structured : result.error.kind)),
          Array.from({ length: 200 }, (_, n) => n * 2),
        );
      },
      { workers: 2, pipelineDepth: 8, maxQueue: 1000 },
    );
  });
});
