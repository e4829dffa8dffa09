/**
 * @module test/web/conformance.test
 * The web-standard globals inside a tool's isolate give the same answers as
 * Node's own, case by case (./conformance-cases.ts), through a real host,
 * worker process and isolate.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost } from "../helpers/host.js";
import { answersInNode, answersInTool, differences } from "../runtime/run-cases.js";
import { CASES } from "./conformance-cases.js";

describe("web globals: conformance with Node", { timeout: 120_000 }, () => {
  it("answers every case as Node does", async () => {
    const expected = await answersInNode(CASES);
    await withHost(async (host) => {
      const actual = await answersInTool(host, "web_conformance", CASES);
      assert.deepEqual(differences(actual, expected), []);
      assert.equal(Object.keys(actual).length, Object.keys(CASES).length);
    });
  });

  it("hands out random bytes that differ between isolates and calls", async () => {
    await withHost(async (host) => {
      const ids = new Set<unknown>();
      for (let i = 0; i < 5; i++) {
        const answers = await answersInTool(host, "uuid_tool", { id: "return crypto.randomUUID();" });
        ids.add((answers.id as { value: unknown }).value);
      }
      assert.equal(ids.size, 5);
    });
  });
});
