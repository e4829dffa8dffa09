/**
 * @module plugins/json-query
 * The `json_query` tool: picks values out of JSON text with a JSONPath
 * expression. Parsing the path and walking the document live in their own
 * files; this one owns the tool's contract (input schema, description,
 * error wording).
 */
import { defineTool } from "corral";
import { z } from "zod";
import { evaluate } from "./evaluate.js";
import { parsePath } from "./parse-path.js";

export default defineTool({
  name: "json_query",
  description:
    "Extract values from a JSON document with a JSONPath expression. Supports $ (root), .name, " +
    '["name with spaces"], * (every child), .. (recursive descent, e.g. $..price), indices ([0], [-1] for the last), ' +
    "slices ([0:2], [::2]), unions ([0,2]) and simple filters ([?(@.price < 10)], [?(@.isbn)]). " +
    "Returns every match in document order and their count; an empty list means nothing matched. " +
    "Fails with a message when the JSON or the path is invalid.",
  input: z.strictObject({
    json: z.string().describe("The JSON document, as text."),
    path: z.string().min(1).describe('A JSONPath expression starting with "$", e.g. "$.store.book[0].title" or "$..price".'),
  }),
  effects: [],
  run({ json, path }) {
    // Parse the path first: a bad path is the caller's mistake whatever the document.
    const segments = parsePath(path);
    let document: unknown;
    try {
      document = JSON.parse(json);
    } catch (error) {
      throw new Error(`The "json" input is not valid JSON: ${(error as Error).message}`);
    }
    const matches = evaluate(document, segments);
    return { matches, count: matches.length };
  },
});
