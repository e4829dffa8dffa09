/**
 * @module sandbox/worker/cancellations.test
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Cancellations } from "./cancellations.js";

describe("Cancellations", { timeout: 10_000 }, () => {
  it("a task cancelled before it starts is skipped, once", () => {
    const cancels = new Cancellations();
    cancels.received(1);
    cancels.received(2);
    cancels.cancel(2);
    assert.equal(cancels.starting(1), false);
    assert.equal(cancels.starting(2), true);
    assert.equal(cancels.size, 0);
  });

  it("a cancel that comes after its task started, or ended, is forgotten at once", () => {
    const cancels = new Cancellations();
    cancels.received(7);
    assert.equal(cancels.starting(7), false);
    cancels.cancel(7);
    cancels.cancel(8); // never received: nothing to skip
    assert.equal(cancels.size, 0);
    cancels.received(9);
    assert.equal(cancels.starting(9), false, "a late cancel of another task does not skip this one");
  });
});
