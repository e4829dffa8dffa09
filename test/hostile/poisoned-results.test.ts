/**
 * @module test/hostile/poisoned-results.test
 * Poisoned results: what a tool returns or throws is hostile (getters that
 * throw or loop, Proxy traps, thenables, toJSON, huge or deep or cyclic data,
 * functions and symbols, errors with hostile fields, prototype pollution
 * before returning). A correct host writes the result inside the isolate,
 * under the call's limits, and answers plain data or a clean error.
 * The cases are test/hostile/cases/poisoned-*.ts; the property test below
 * throws fast-check's random values through cases/poisoned-thrown-value.ts.
 */
import { it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { outcomeOf } from "../../src/index.js";
import { caseFile, describeCategory } from "./harness.js";
import { describeValue, thrownValue } from "./thrown-values.js";

describeCategory("poisoned", {
  moreTests(shared) {
    it("any value a tool throws (fast-check) is a tool_error with a string message", async () => {
      const host = shared.host;
      const loaded = await host.load({ path: caseFile("poisoned-thrown-value.ts") });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      await fc.assert(
        fc.asyncProperty(thrownValue, async (value) => {
          const result = await host.call("poisoned-thrown-value", { spec: JSON.stringify(describeValue(value)) });
          assert.equal(outcomeOf(result), "tool_error", JSON.stringify(result).slice(0, 800));
          assert.ok(!result.ok);
          assert.equal(typeof result.error.message, "string");
          assert.ok(result.error.message.length <= 4_100);
          assert.equal(host.alive, true);
        }),
        { numRuns: 150 },
      );
    });
  },
});
