/**
 * @module src/config/json-schema.test
 * The JSON Schema the build wrote (corral.schema.json at the package root,
 * what editors read through "$schema") and the zod schema every command
 * checks with agree: ajv takes the good samples and refuses the bad ones,
 * and zod says the same of each.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { configJsonSchema, CorralConfig } from "./schema.js";

/** The compiled test is in dist/src/config/; the schema file is at the package root. */
const SCHEMA_FILE = fileURLToPath(new URL("../../../corral.schema.json", import.meta.url));

const GOOD: unknown[] = [
  {},
  { $schema: "./node_modules/corral/corral.schema.json" },
  { workers: 2, defaultTimeoutMs: 1000, maxMemoryMb: 256, cacheDir: false, isolation: "call", logToolData: true, commitBeforeResult: "all" },
  { isolation: { default: "scope", agent: "call", sources: { "plugin:tools/x.ts": "call" } } },
  { effects: { plugin: { net_read: "allow" }, agent: { state_write: "ask", exec: "deny" } } },
  { ledger: { store: "ledger.db", policy: { strikes: 5 }, recentStrikes: 20 } },
  { ledger: { store: false } },
  { createTool: { agent: "desktop", exposure: "direct" }, codeMode: { timeoutMs: 5000, maxCalls: 10 } },
  { capabilities: { net: { allow: ["https://example.com"], maxRequests: 4 }, sources: { agent: { state: { quotaBytes: 1024 } } } } },
  { tools: ["./tools", "./node_modules/corral/plugins"], mcp: { transport: "http", port: 8765, host: "127.0.0.1", allowedHosts: ["corral.local"] }, dashboard: { port: 0 } },
];

const BAD: unknown[] = [
  [],
  { workers: "two" },
  { workers: 0 },
  { frobnicate: true },
  { cacheDir: 5 },
  { isolation: "never" },
  { effects: { plugin: { net_read: "maybe" } } },
  { ledger: { store: 5 } },
  { ledger: { now: 1 } },
  { createTool: {} },
  { codeMode: { timeoutMs: -1 } },
  { capabilities: { net: {} } },
  { capabilities: { store: {} } },
  { tools: "./tools" },
  { tools: [""] },
  { mcp: { transport: "sse" } },
  { mcp: { port: 70000 } },
  { mcp: { token: "s3cret" } },
  { dashboard: { token: "s3cret" } },
  { beforeToolCall: {} },
  { telemetry: {} },
];

describe("corral.schema.json", () => {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, "utf8")) as Record<string, unknown>;
  const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);

  it("is what the zod schema makes, as the build wrote it", () => {
    assert.deepEqual(schema, configJsonSchema());
    assert.equal(schema.additionalProperties, false, "unknown keys are errors for editors too");
  });

  it("takes every good sample, as zod does", () => {
    for (const sample of GOOD) {
      assert.equal(validate(sample), true, `ajv refused ${JSON.stringify(sample)}: ${JSON.stringify(validate.errors)}`);
      assert.equal(CorralConfig.safeParse(sample).success, true, `zod refused ${JSON.stringify(sample)}`);
    }
  });

  it("refuses every bad sample, as zod does", () => {
    for (const sample of BAD) {
      assert.equal(validate(sample), false, `ajv took ${JSON.stringify(sample)}`);
      assert.equal(CorralConfig.safeParse(sample).success, false, `zod took ${JSON.stringify(sample)}`);
    }
  });
});
