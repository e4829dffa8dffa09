/**
 * @module plugins/json-query/json-query.test
 * json_query through a real host: path syntax, filters, slices, and every
 * way a call can fail (bad input, bad JSON, bad path, runaway queries).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { ToolResult } from "../../src/index.js";
import { withHost } from "../../test/helpers/host.js";

// Tests run from dist/plugins/json-query/; the host compiles the TypeScript source.
const PLUGIN = fileURLToPath(new URL("../../../plugins/json-query", import.meta.url));

const STORE = JSON.stringify({
  store: {
    book: [
      { category: "reference", author: "Nigel Rees", title: "Sayings of the Century", price: 8.95 },
      { category: "fiction", author: "Evelyn Waugh", title: "Sword of Honour", price: 12.99 },
      { category: "fiction", author: "Herman Melville", title: "Moby Dick", isbn: "0-553-21311-3", price: 8.99 },
      { category: "fiction", author: "J. R. R. Tolkien", title: "The Lord of the Rings", isbn: "0-395-19395-8", price: 22.99 },
    ],
    bicycle: { color: "red", price: 19.95 },
  },
});

type Query = (input: unknown) => Promise<ToolResult>;

/** A fresh host with the plugin loaded; `query` calls json_query. */
async function withQuery(fn: (query: Query) => Promise<void>): Promise<void> {
  await withHost(async (host) => {
    const loaded = await host.load({ path: PLUGIN });
    assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
    await fn((input) => host.call("json_query", input));
  });
}

async function matches(query: Query, json: string, path: string): Promise<unknown[]> {
  const result = await query({ json, path });
  assert.equal(result.ok, true, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  const structured = (result.ok ? result.structured : undefined) as { matches: unknown[]; count: number };
  assert.equal(structured.count, structured.matches.length);
  return structured.matches;
}

async function failure(query: Query, input: unknown): Promise<{ kind: string; message: string }> {
  const result = await query(input);
  assert.equal(result.ok, false, "the call should fail");
  return result.ok ? { kind: "ok", message: "" } : result.error;
}

describe("json_query plugin", { timeout: 60_000 }, () => {
  it("loads as one pure tool with a described input", async () => {
    await withHost(async (host) => {
      const loaded = await host.load({ path: PLUGIN });
      assert.ok(loaded.ok);
      assert.deepEqual(loaded.tools.map((t) => [t.name, t.effects]), [["json_query", []]]);
      const properties = loaded.tools[0]?.inputSchema.properties as Record<string, { description?: string }>;
      assert.match(properties.path?.description ?? "", /JSONPath/);
    });
  });

  it("follows names, indices, wildcards and recursive descent", async () => {
    await withQuery(async (query) => {
      assert.deepEqual(await matches(query, STORE, "$.store.book[0].title"), ["Sayings of the Century"]);
      assert.deepEqual(await matches(query, STORE, "$.store.book[-1].title"), ["The Lord of the Rings"]);
      assert.deepEqual(await matches(query, STORE, "$.store.book[*].author"), ["Nigel Rees", "Evelyn Waugh", "Herman Melville", "J. R. R. Tolkien"]);
      assert.deepEqual(await matches(query, STORE, "$..price"), [8.95, 12.99, 8.99, 22.99, 19.95]);
      assert.deepEqual(await matches(query, STORE, "$.store.*.color"), ["red"]);
      assert.deepEqual(await matches(query, STORE, "$..book[2].isbn"), ["0-553-21311-3"]);
      assert.deepEqual(await matches(query, '{"a":1}', "$"), [{ a: 1 }]);
    });
  });

  it("reads quoted names, slices and unions", async () => {
    await withQuery(async (query) => {
      const doc = JSON.stringify({ a: { "key with space": 1, "it's": 2, "x.y": 3 }, list: [0, 1, 2, 3, 4, 5] });
      assert.deepEqual(await matches(query, doc, '$.a["key with space"]'), [1]);
      assert.deepEqual(await matches(query, doc, "$['a']['it\\'s']"), [2]);
      assert.deepEqual(await matches(query, doc, '$.a["x.y"]'), [3]);
      assert.deepEqual(await matches(query, doc, "$.list[0:2]"), [0, 1]);
      assert.deepEqual(await matches(query, doc, "$.list[-2:]"), [4, 5]);
      assert.deepEqual(await matches(query, doc, "$.list[::2]"), [0, 2, 4]);
      assert.deepEqual(await matches(query, doc, "$.list[::-1]"), [5, 4, 3, 2, 1, 0]);
      assert.deepEqual(await matches(query, doc, "$.list[ 5 , 0 ]"), [5, 0]);
      assert.deepEqual(await matches(query, STORE, "$.store.book[0:2].title"), ["Sayings of the Century", "Sword of Honour"]);
    });
  });

  it("filters items by comparison and by existence", async () => {
    await withQuery(async (query) => {
      assert.deepEqual(await matches(query, STORE, "$.store.book[?(@.price < 10)].title"), ["Sayings of the Century", "Moby Dick"]);
      assert.deepEqual(await matches(query, STORE, "$..book[?(@.isbn)].author"), ["Herman Melville", "J. R. R. Tolkien"]);
      assert.deepEqual(await matches(query, STORE, "$.store.book[?@.category == 'reference'].price"), [8.95]);
      // Mixed types never compare: a string price is not "less than" a number.
      assert.deepEqual(await matches(query, '[{"p":"5"},{"p":5}]', "$[?(@.p < 10)]"), [{ p: 5 }]);
    });
  });

  it("answers an empty list when nothing matches", async () => {
    await withQuery(async (query) => {
      assert.deepEqual(await matches(query, STORE, "$.store.magazine"), []);
      assert.deepEqual(await matches(query, STORE, "$.store.book[10]"), []);
      // A name never selects from an array, nor an index from an object.
      assert.deepEqual(await matches(query, STORE, "$.store.book.title"), []);
      assert.deepEqual(await matches(query, STORE, "$.store[0]"), []);
      assert.deepEqual(await matches(query, "null", "$.a"), []);
    });
  });

  it("walks deeply nested JSON without overflowing the stack", async () => {
    await withQuery(async (query) => {
      const depth = 50_000;
      const doc = '{"a":'.repeat(depth) + '{"v":1}' + "}".repeat(depth);
      assert.deepEqual(await matches(query, doc, "$..v"), [1]);
    });
  });

  it("reports invalid JSON and invalid paths as tool errors", async () => {
    await withQuery(async (query) => {
      const badJson = await failure(query, { json: "{not json", path: "$.a" });
      assert.equal(badJson.kind, "tool_error");
      assert.match(badJson.message, /not valid JSON/);

      const noRoot = await failure(query, { json: STORE, path: "store.book" });
      assert.equal(noRoot.kind, "tool_error");
      assert.match(noRoot.message, /must start with "\$"/);

      const unclosed = await failure(query, { json: STORE, path: "$.store.book[0" });
      assert.equal(unclosed.kind, "tool_error");
      assert.match(unclosed.message, /character 15/);

      const zeroStep = await failure(query, { json: STORE, path: "$.store.book[::0]" });
      assert.match(zeroStep.message, /step cannot be 0/);
    });
  });

  it("stops a query that touches too many values", async () => {
    await withQuery(async (query) => {
      const doc = JSON.stringify(new Array(100_001).fill(0));
      const error = await failure(query, { json: doc, path: "$..*" });
      assert.equal(error.kind, "tool_error");
      assert.match(error.message, /more than 100000 values/);
    });
  });

  it("rejects malformed input before running", async () => {
    await withQuery(async (query) => {
      assert.equal((await failure(query, { json: STORE })).kind, "invalid_input");
      assert.equal((await failure(query, { json: { a: 1 }, path: "$" })).kind, "invalid_input");
      assert.equal((await failure(query, { json: STORE, path: "$", limit: 3 })).kind, "invalid_input");
    });
  });
});
