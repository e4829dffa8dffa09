/**
 * @module test/codemode/fixture
 * Tools the Code Mode tests share.
 */
import assert from "node:assert/strict";
import type { Host } from "../../src/index.js";
import { toolSource } from "../helpers/host.js";

/** Three tools: `add` and `shout` (direct), `vault` (codemode only: a model never sees it, a script may call it). */
export async function loadTrio(host: Host): Promise<void> {
  const add = await host.load({
    source: "agent:math",
    code: toolSource({ name: "add", input: "z.object({ a: z.number(), b: z.number() })", extra: "output: z.object({ sum: z.number() }),", run: "return { sum: input.a + input.b };" }),
  });
  const shout = await host.load({ source: "agent:words", code: toolSource({ name: "shout", input: "z.object({ text: z.string() })", run: "return input.text.toUpperCase();" }) });
  const vault = await host.load({
    source: "agent:vault",
    code: toolSource({ name: "vault", input: "z.object({ key: z.string() })", extra: 'exposure: "codemode",', run: 'if (input.key !== "pin") throw new Error("no such key"); return { value: 1234 };' }),
  });
  for (const loaded of [add, shout, vault]) assert.ok(loaded.ok, JSON.stringify(loaded));
}

