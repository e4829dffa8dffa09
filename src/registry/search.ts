/**
 * @module src/registry/search
 * Ranking tools by a query, BM25 over three fields of each manifest: the
 * name (weighted 3), the input's parameter names (2) and the description
 * (1), as BM25F folds fields into one weighted term frequency. Words are
 * split at case changes and separators (`csvToJson`, `csv_to_json` and
 * "csv to json" are the same three words) and lightly stemmed, so
 * "converts" finds "convert". An index is built once per set of entries and
 * answers a query by walking the postings of its words only: a library of
 * thousands of tools answers in well under a millisecond once built.
 */
import type { CatalogEntry } from "./catalog.js";

const K1 = 1.2;
const B = 0.75;
const FIELD_WEIGHTS = { name: 3, parameters: 2, description: 1 } as const;
/** A word this short says nothing (and "a", "to" would match everything). */
const MIN_WORD = 2;

/** Lower-case words of `text`: split at non-alphanumerics and at case changes (fooBar, HTTPServer). */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= MIN_WORD)
    .map(stem);
}

/** A light suffix stripper: plural and verb endings, never below three letters ("boxes" → box, "invoices" → invoice, "cities" → city). */
function stem(word: string): string {
  if (word.length < 4 || word.endsWith("ss")) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("ing") && word.length >= 6) return word.slice(0, -3);
  if (word.endsWith("ed") && word.length >= 5) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

/** The names of an input schema's properties, one level of nesting included. */
function parameterNames(schema: Record<string, unknown>): string[] {
  const names: string[] = [];
  const visit = (node: unknown, depth: number) => {
    if (typeof node !== "object" || node === null || depth > 1) return;
    const properties = (node as { properties?: unknown }).properties;
    if (typeof properties !== "object" || properties === null) return;
    for (const [key, value] of Object.entries(properties)) {
      names.push(key);
      visit(value, depth + 1);
    }
  };
  visit(schema, 0);
  return names;
}

type Posting = { doc: number; tf: number };

/**
 * A manifest's weighted term frequencies, kept as long as the manifest
 * lives: a catalog that changed by one tool rebuilds its index from these,
 * tokenizing only the new tool.
 */
const TERMS = new WeakMap<object, Map<string, number>>();

function termsOf(manifest: CatalogEntry["manifest"]): Map<string, number> {
  let counts = TERMS.get(manifest);
  if (counts !== undefined) return counts;
  counts = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + weight);
  };
  add(manifest.name, FIELD_WEIGHTS.name);
  add(parameterNames(manifest.inputSchema).join(" "), FIELD_WEIGHTS.parameters);
  add(manifest.description, FIELD_WEIGHTS.description);
  TERMS.set(manifest, counts);
  return counts;
}

export class SearchIndex {
  readonly #entries: CatalogEntry[];
  readonly #postings = new Map<string, Posting[]>();
  readonly #lengths: number[] = [];
  readonly #averageLength: number;

  constructor(entries: CatalogEntry[]) {
    this.#entries = entries;
    let total = 0;
    entries.forEach((entry, doc) => {
      let length = 0;
      for (const [word, tf] of termsOf(entry.manifest)) {
        length += tf;
        let list = this.#postings.get(word);
        if (list === undefined) this.#postings.set(word, (list = []));
        list.push({ doc, tf });
      }
      this.#lengths.push(length);
      total += length;
    });
    this.#averageLength = entries.length === 0 ? 1 : total / entries.length;
  }

  /** The best `limit` entries for `query` that `keep` accepts, best first (ties by name); entries matching no word are left out. */
  search(query: string, limit: number, keep: (entry: CatalogEntry) => boolean = () => true): CatalogEntry[] {
    const scores = new Map<number, number>();
    const n = this.#entries.length;
    for (const word of new Set(words(query))) {
      const postings = this.#postings.get(word);
      if (postings === undefined) continue;
      const idf = Math.log(1 + (n - postings.length + 0.5) / (postings.length + 0.5));
      for (const { doc, tf } of postings) {
        const norm = K1 * (1 - B + (B * (this.#lengths[doc] ?? 0)) / this.#averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    const ranked = [...scores]
      .map(([doc, score]) => ({ entry: this.#entries[doc] as CatalogEntry, score }))
      .filter((item) => keep(item.entry))
      .sort((a, b) => b.score - a.score || a.entry.manifest.name.localeCompare(b.entry.manifest.name));
    return ranked.slice(0, limit).map((item) => item.entry);
  }
}
