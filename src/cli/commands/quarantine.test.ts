/**
 * @module src/cli/commands/quarantine.test
 * `--until` parsing: durations from now, ISO times, and what must be refused
 * (the past, bare numbers, words) before the ledger is ever opened.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { InvalidArgumentError } from "commander";
import { defaultActor, parseUntil } from "./quarantine.js";

const NOW_MS = Date.parse("2030-06-01T12:00:00Z");

describe("parseUntil", () => {
  it("takes a duration from now in s, m, h or d", () => {
    assert.equal(parseUntil("30m", NOW_MS), NOW_MS + 30 * 60_000);
    assert.equal(parseUntil("2h", NOW_MS), NOW_MS + 2 * 3_600_000);
    assert.equal(parseUntil("1.5d", NOW_MS), NOW_MS + 1.5 * 86_400_000);
    assert.equal(parseUntil(" 45s ", NOW_MS), NOW_MS + 45_000);
  });

  it("takes an ISO time, with or without a time of day", () => {
    assert.equal(parseUntil("2030-06-01T13:00:00Z", NOW_MS), NOW_MS + 3_600_000);
    assert.equal(parseUntil("2030-06-01T14:00:00+01:00", NOW_MS), NOW_MS + 3_600_000);
    assert.equal(parseUntil("2030-06-02", NOW_MS), Date.parse("2030-06-02"));
  });

  it("refuses the past, now, bare numbers and words", () => {
    for (const text of ["2030-06-01T11:00:00Z", "0m", "5", "tomorrow", "2h30m", "", "-1h", "2030-13-45"]) {
      assert.throws(() => parseUntil(text, NOW_MS), InvalidArgumentError, text);
    }
  });
});

describe("defaultActor", () => {
  it("names the CLI and the user", () => {
    assert.match(defaultActor(), /^cli:.+/);
  });
});
