/**
 * @module src/registry/search.test
 * BM25 ranking of tools: words split at case changes and separators and
 * lightly stemmed, names weighing more than parameter names and those more
 * than descriptions, rare words more than common ones, and nothing offered
 * that matches no word.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CatalogEntry } from "./catalog.js";
import { SearchIndex, words } from "./search.js";

function entry(name: string, description: string, parameters: string[] = []): CatalogEntry {
  return {
    manifest: { name, description, inputSchema: { type: "object", properties: Object.fromEntries(parameters.map((p) => [p, { type: "string" }])) }, effects: [], exposure: "deferred", limits: {} },
    source: "agent:a",
    version: "0".repeat(64),
    runner: { kind: "builtin", run: async () => ({ ok: true, text: "" }) },
  };
}

const names = (found: CatalogEntry[]) => found.map((e) => e.manifest.name);

describe("tool search (BM25)", () => {
  it("splits names and stems words", () => {
    assert.deepEqual(words("csvToJSON parse_HTTPServer logs"), ["csv", "to", "json", "parse", "http", "server", "log"]);
    assert.deepEqual(words("converts invoices, running boxes cities"), ["convert", "invoice", "runn", "box", "city"]);
    assert.deepEqual(words("convert invoice box city"), ["convert", "invoice", "box", "city"], "the query's words stem to the same");
    assert.deepEqual(words("a b address class"), ["address", "class"], "one letter says nothing; 'ss' is no plural");
  });

  it("ranks a name match over a description match, and a rare word over a common one", () => {
    const index = new SearchIndex([
      entry("weather_report", "Tells the forecast for a city"),
      entry("city_lookup", "Finds a city by name and reports its weather"),
      entry("unrelated", "Counts words in a text"),
      entry("also_text", "Reverses a text"),
    ]);
    assert.deepEqual(names(index.search("weather", 5)), ["weather_report", "city_lookup"]);
    assert.deepEqual(names(index.search("forecast", 5)), ["weather_report"]);
    const common = new SearchIndex([entry("alpha", "common words here"), entry("beta", "common words there"), entry("gamma", "common words beta")]);
    assert.deepEqual(names(common.search("common gamma", 5))[0], "gamma", "the rare word decides");
    assert.deepEqual(index.search("spaceship", 5), [], "no word matched: nothing offered");
  });

  it("finds a tool by its parameter names, and honours limit and keep", () => {
    const index = new SearchIndex([entry("tool_one", "does a thing", ["delimiter", "encoding"]), entry("tool_two", "does another thing", ["text"]), entry("tool_three", "mentions delimiter once")]);
    assert.deepEqual(names(index.search("delimiter", 5)), ["tool_one", "tool_three"], "a parameter name weighs more than a description word");
    assert.equal(index.search("thing", 1).length, 1);
    assert.deepEqual(names(index.search("delimiter", 5, (e) => e.manifest.name !== "tool_one")), ["tool_three"]);
  });
});
