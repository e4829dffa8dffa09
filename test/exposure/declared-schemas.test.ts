/**
 * The schema a model is shown and the schema the tool checks agree: every
 * bundled plugin's declared input schema goes to a real JSON Schema validator
 * (ajv, draft 2020-12) with inputs the tool accepts and inputs it refuses,
 * and each verdict must match what the tool itself answers through
 * host.call. And the declarations carry nothing that only costs tokens.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { outcomeOf } from "../../src/index.js";
import { withHost } from "../helpers/host.js";

/** Per bundled tool: inputs its zod schema accepts, then inputs it refuses. */
const CASES: Record<string, { accepted: unknown[]; rejected: unknown[] }> = {
  csv_to_json: {
    accepted: [{ csv: "a,b\n1,2" }, { csv: "a;b\n1;2", delimiter: ";", header: true }, { csv: "1,2", header: false }],
    rejected: [{}, { csv: 5 }, { csv: "a", delimiter: ";;" }, { csv: "a", header: "yes" }, { csv: "a", extra: 1 }],
  },
  date_math: {
    accepted: [{ date: "2024-01-31" }, { date: "2024-01-31", add: { months: 1, days: 1.5 } }, { date: "2024-01-31", diffTo: "2024-03-01" }],
    rejected: [{ date: "" }, { date: "2024-01-31", add: { months: 1.5 } }, { date: "2024-01-31", add: { fortnights: 1 } }, { date: 1 }, { date: "2024-01-31", diffTo: "" }],
  },
  // The host allows their effects (a blocked call is refused before its
  // input is read) but grants no address or folder: the accepted inputs end
  // in a refusal or failure inside the tool, never invalid_input.
  fetch_page: {
    accepted: [{ url: "http://127.0.0.1:9/" }, { url: "http://127.0.0.1:9/a", maxLinks: 0, maxTextChars: 100 }],
    rejected: [{}, { url: 5 }, { url: "http://127.0.0.1:9/", maxLinks: 1.5 }, { url: "http://127.0.0.1:9/", maxTextChars: 99 }],
  },
  file_search: {
    accepted: [{ query: "x" }, { query: "x", path: "docs", extensions: [".md"], regex: true, caseSensitive: true, maxResults: 1, maxFiles: 1 }],
    rejected: [{}, { query: "" }, { query: "x", extensions: ["md"] }, { query: "x", maxResults: 0 }, { query: "x", regex: "yes" }],
  },
  json_query: {
    accepted: [{ json: '{"a":1}', path: "$.a" }],
    rejected: [{ json: "{}" }, { json: "{}", path: "" }, { json: {}, path: "$" }, { json: "{}", path: "$", more: true }],
  },
  text_diff: {
    accepted: [{ before: "a", after: "b" }, { before: "a", after: "b", context: 0 }, { before: "a", after: "b", context: 1000 }],
    rejected: [{ before: "a" }, { before: "a", after: "b", context: 1.5 }, { before: "a", after: "b", context: -1 }, { before: "a", after: "b", context: 1001 }],
  },
  text_stats: {
    accepted: [{ text: "" }, { text: "Some words here." }],
    rejected: [{}, { text: null }, { text: "x", lang: "en" }],
  },
  unit_convert: {
    accepted: [{ value: 1, from: "km", to: "mi" }, { value: -40.5, from: "C", to: "F" }],
    rejected: [{ value: "1", from: "km", to: "mi" }, { value: 1, from: "", to: "mi" }, { value: 1, from: "km" }],
  },
};

const ZOD_INT_BOUND = String(Number.MAX_SAFE_INTEGER);

describe("declared schemas", { timeout: 180_000 }, () => {
  it("accept and refuse what each bundled tool accepts and refuses, and carry no $schema or ±2^53 bounds", async () => {
    await withHost(async (host) => {
      const loaded = await host.loadDirectory("plugins");
      assert.ok(loaded.every((result) => result.ok), JSON.stringify(loaded.filter((result) => !result.ok)));
      const declarations = host.declarations();
      assert.deepEqual(declarations.map((d) => d.name).sort(), Object.keys(CASES).sort(), "every bundled tool has its cases here");
      const ajv = new Ajv2020({ strict: false });
      for (const declaration of declarations) {
        const text = JSON.stringify(declaration.input_schema);
        assert.ok(!text.includes("$schema"), `${declaration.name} declares no $schema`);
        assert.ok(!text.includes(ZOD_INT_BOUND), `${declaration.name} declares no ±2^53 bounds`);
        const validate = ajv.compile(declaration.input_schema);
        const cases = CASES[declaration.name] as { accepted: unknown[]; rejected: unknown[] };
        for (const [input, expected] of [...cases.accepted.map((i) => [i, true] as const), ...cases.rejected.map((i) => [i, false] as const)]) {
          const outcome = outcomeOf(await host.call(declaration.name, input));
          assert.equal(outcome !== "invalid_input", expected, `${declaration.name} ${JSON.stringify(input)}: the tool answered ${outcome}`);
          assert.equal(validate(input), expected, `${declaration.name} ${JSON.stringify(input)}: the declared schema disagrees (${ajv.errorsText(validate.errors)})`);
        }
      }
    }, { effects: { plugin: { net_read: "allow", read: "allow" } } });
  });
});
