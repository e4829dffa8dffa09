/**
 * @module plugins/csv-to-json
 * The `csv_to_json` tool: CSV text to JSON rows. The reader lives in
 * parse-csv.ts; this file owns the tool's contract and the shaping of
 * records into rows (column names, ragged rows).
 */
import { defineTool } from "corral";
import { z } from "zod";
import { parseCsv } from "./parse-csv.js";

/**
 * Column names made unique and non-empty: objects cannot hold two values
 * under one key, and a silently dropped column would be lost data.
 */
function columnNames(header: string[], width: number): string[] {
  const used = new Set<string>();
  const names: string[] = [];
  for (let i = 0; i < width; i++) {
    const base = header[i] !== undefined && header[i] !== "" ? header[i]! : `column${i + 1}`;
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    names.push(name);
  }
  return names;
}

export default defineTool({
  name: "csv_to_json",
  description:
    "Convert CSV text to JSON. Follows RFC 4180: fields in double quotes may contain the delimiter, line breaks " +
    'and doubled quotes (""); lines may end in LF or CRLF; blank lines are skipped. With header=true (default) the ' +
    "first record names the columns and each row is an object keyed by column name; empty or repeated names become " +
    "column3 or name_2, short rows are padded with empty strings, and extra fields get generated columns. With " +
    "header=false each row is an array of strings, padded to the widest row, and columns are column1..columnN. " +
    "All values are strings; nothing is converted to numbers.",
  input: z.strictObject({
    csv: z.string().describe("The CSV text."),
    delimiter: z
      .string()
      .length(1)
      .refine((d) => d !== '"' && d !== "\n" && d !== "\r", { message: "the delimiter cannot be a double quote or a line break" })
      .default(",")
      .describe('The one-character field separator, e.g. "," (default), ";", "\\t" or "|".'),
    header: z.boolean().default(true).describe("Whether the first record holds the column names (default true)."),
  }),
  effects: [],
  run({ csv, delimiter, header }) {
    let records: string[][];
    try {
      records = parseCsv(csv, delimiter);
    } catch (error) {
      throw new Error(`The CSV could not be read: ${(error as Error).message}`);
    }
    // A loop, not Math.max(...spread): a spread of many rows overflows the argument limit.
    let width = 0;
    for (const record of records) width = Math.max(width, record.length);
    const pad = (record: string[]) => Array.from({ length: width }, (_, i) => record[i] ?? "");
    if (!header) {
      return { columns: columnNames([], width), rows: records.map(pad), rowCount: records.length };
    }
    const [first = [], ...body] = records;
    const columns = columnNames(first, width);
    // fromEntries defines own properties, so a column named "__proto__" stays a column.
    const rows = body.map((record) => Object.fromEntries(columns.map((name, i) => [name, record[i] ?? ""])));
    return { columns, rows, rowCount: rows.length };
  },
});
