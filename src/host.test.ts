import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost, toolSource } from "../test/helpers/host.js";

describe("createHost end to end", { timeout: 60_000 }, () => {
  it("loads an agent tool from text and calls it", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ source: "agent:demo", code: toolSource({ name: "echo", input: "z.object({ text: z.string() })", run: "return { echoed: input.text };" }) });
      assert.equal(loaded.ok, true);
      const result = await host.call("echo", { text: "hi" });
      assert.equal(result.ok, true);
      assert.ok(result.ok && JSON.stringify(result.structured) === '{"echoed":"hi"}');
    });
  });
});
