/**
 * @module plugins/csv-to-json/csv-to-json.test
 * csv_to_json through a real host: RFC 4180 quoting, line endings, header
 * handling, ragged rows, and the failures a caller can cause.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { ToolResult } from "../../src/index.js";
import { withHost } from "../../test/helpers/host.js";

// Tests run from dist/plugins/csv-to-json/; the host compiles the TypeScript source.
const PLUGIN = fileURLToPath(new URL("../../../plugins/csv-to-json", import.meta.url));

type Call = (input: unknown) => Promise<ToolResult>;
type Table = { columns: string[]; rows: unknown[]; rowCount: number };

async function withTool(fn: (call: Call) => Promise<void>): Promise<void> {
  await withHost(async (host) => {
    const loaded = await host.load({ path: PLUGIN });
    assert.equal(loaded.ok, true, loaded.ok ? "" : loaded.error.message);
    await fn((input) => host.call("csv_to_json", input));
  });
}

async function table(call: Call, input: unknown): Promise<Table> {
  const result = await call(input);
  assert.equal(result.ok, true, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  const structured = (result.ok ? result.structured : undefined) as Table;
  assert.equal(structured.rowCount, structured.rows.length);
  return structured;
}

async function failure(call: Call, input: unknown): Promise<{ kind: string; message: string }> {
  const result = await call(input);
  assert.equal(result.ok, false, "the call should fail");
  return result.ok ? { kind: "ok", message: "" } : result.error;
}

describe("csv_to_json plugin", { timeout: 60_000 }, () => {
  it("turns a header and rows into objects, with defaults", async () => {
    await withTool(async (call) => {
      assert.deepEqual(await table(call, { csv: "a,b\n1,2" }), { columns: ["a", "b"], rows: [{ a: "1", b: "2" }], rowCount: 1 });
      const people = await table(call, { csv: "name,age\nAda,36\nAlan,41\n" });
      assert.deepEqual(people.rows, [
        { name: "Ada", age: "36" },
        { name: "Alan", age: "41" },
      ]);
    });
  });

  it("reads quoted fields: delimiters, doubled quotes, line breaks, CRLF", async () => {
    await withTool(async (call) => {
      const csv = 'id,text\r\n1,"hello, world"\r\n2,"she said ""hi"""\r\n3,"two\r\nlines"\r\n4,""\r\n';
      const { rows } = await table(call, { csv });
      assert.deepEqual(rows, [
        { id: "1", text: "hello, world" },
        { id: "2", text: 'she said "hi"' },
        { id: "3", text: "two\r\nlines" },
        { id: "4", text: "" },
      ]);
      // A quote inside an unquoted field is plain text.
      assert.deepEqual((await table(call, { csv: 'size\n5" screen' })).rows, [{ size: '5" screen' }]);
    });
  });

  it("honours another delimiter and header=false", async () => {
    await withTool(async (call) => {
      assert.deepEqual((await table(call, { csv: "a;b\n1;2,5", delimiter: ";" })).rows, [{ a: "1", b: "2,5" }]);
      assert.deepEqual((await table(call, { csv: "x\ty\n1\t2", delimiter: "\t" })).rows, [{ x: "1", y: "2" }]);
      const raw = await table(call, { csv: "1,2,3\n4,5\n", header: false });
      assert.deepEqual(raw, { columns: ["column1", "column2", "column3"], rows: [["1", "2", "3"], ["4", "5", ""]], rowCount: 2 });
    });
  });

  it("keeps every value of ragged rows and odd headers", async () => {
    await withTool(async (call) => {
      const ragged = await table(call, { csv: "a,b\n1\n2,3,4\n\n5,6\n" });
      assert.deepEqual(ragged.columns, ["a", "b", "column3"]);
      assert.deepEqual(ragged.rows, [
        { a: "1", b: "", column3: "" },
        { a: "2", b: "3", column3: "4" },
        { a: "5", b: "6", column3: "" },
      ]);
      const odd = await table(call, { csv: "\uFEFFname,,name,__proto__\nx,y,z,w" });
      assert.deepEqual(odd.columns, ["name", "column2", "name_2", "__proto__"]);
      const row = odd.rows[0] as Record<string, string>;
      assert.equal(row.name_2, "z");
      assert.equal(Object.getOwnPropertyDescriptor(row, "__proto__")?.value, "w");
    });
  });

  it("answers empty tables for empty input and a header alone", async () => {
    await withTool(async (call) => {
      assert.deepEqual(await table(call, { csv: "" }), { columns: [], rows: [], rowCount: 0 });
      assert.deepEqual(await table(call, { csv: "a,b\r\n" }), { columns: ["a", "b"], rows: [], rowCount: 0 });
    });
  });

  it("handles many rows", async () => {
    await withTool(async (call) => {
      const lines = ["n,square"];
      for (let i = 0; i < 20_000; i++) lines.push(`${i},${i * i}`);
      const big = await table(call, { csv: lines.join("\n") });
      assert.equal(big.rowCount, 20_000);
      assert.deepEqual(big.rows[19_999], { n: "19999", square: String(19_999 * 19_999) });
    });
  });

  it("reports malformed quoting as a tool error naming the line", async () => {
    await withTool(async (call) => {
      const unterminated = await failure(call, { csv: 'a,b\n1,"open\n2,3' });
      assert.equal(unterminated.kind, "tool_error");
      assert.match(unterminated.message, /unterminated quoted field starting on line 2/);
      const trailing = await failure(call, { csv: 'a,b\n1,2\n"x"y,3' });
      assert.equal(trailing.kind, "tool_error");
      assert.match(trailing.message, /after a closing quote on line 3/);
    });
  });

  it("rejects bad options as invalid input", async () => {
    await withTool(async (call) => {
      assert.equal((await failure(call, { csv: "a", delimiter: ";;" })).kind, "invalid_input");
      assert.equal((await failure(call, { csv: "a", delimiter: '"' })).kind, "invalid_input");
      assert.equal((await failure(call, { csv: "a", header: "yes" })).kind, "invalid_input");
      assert.equal((await failure(call, { text: "a" })).kind, "invalid_input");
    });
  });
});
