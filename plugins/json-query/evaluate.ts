/**
 * @module plugins/json-query/evaluate
 * Walks parsed JSONPath segments over a parsed JSON value and returns the
 * matches in document order. Node lists are capped so a query such as
 * `$..*..*` on a large document fails with a clear message instead of
 * exhausting the isolate's memory (which the host would count as a strike
 * against this plugin, not against the query).
 */
import type { Filter, Literal, Segment, Selector } from "./parse-path.js";

export const MAX_NODES = 100_000;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The children of a node: array items or object member values. */
function children(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  if (isObject(node)) return Object.values(node);
  return [];
}

function push(into: unknown[], value: unknown): void {
  if (into.length >= MAX_NODES) {
    throw new Error(`the query touches more than ${MAX_NODES} values; narrow the path (fewer ".." or "*")`);
  }
  into.push(value);
}

/** Each node followed by all its descendants, depth first; no recursion, so deep JSON cannot overflow the stack. */
function withDescendants(nodes: unknown[]): unknown[] {
  const out: unknown[] = [];
  const stack = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop();
    push(out, node);
    const kids = children(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}

/** Python-style slice bounds, as RFC 9535 defines them. */
function sliceIndices(length: number, start: number | undefined, end: number | undefined, step: number): number[] {
  const clamp = (n: number, low: number, high: number) => Math.min(Math.max(n, low), high);
  const normal = (n: number) => (n < 0 ? n + length : n);
  const indices: number[] = [];
  if (step > 0) {
    const from = clamp(normal(start ?? 0), 0, length);
    const to = clamp(normal(end ?? length), 0, length);
    for (let i = from; i < to; i += step) indices.push(i);
  } else {
    const from = clamp(normal(start ?? length - 1), -1, length - 1);
    const to = clamp(end === undefined ? -1 : normal(end), -1, length - 1);
    for (let i = from; i > to; i += step) indices.push(i);
  }
  return indices;
}

function lookup(node: unknown, path: (string | number)[]): { found: boolean; value: unknown } {
  let current = node;
  for (const key of path) {
    if (typeof key === "number" && Array.isArray(current)) {
      const index = key < 0 ? key + current.length : key;
      if (index < 0 || index >= current.length) return { found: false, value: undefined };
      current = current[index];
    } else if (typeof key === "string" && isObject(current) && Object.hasOwn(current, key)) {
      current = current[key];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: current };
}

/** Comparisons hold only between values of one primitive type; anything else is simply no match. */
function passes(node: unknown, filter: Filter): boolean {
  const { found, value } = lookup(node, filter.path);
  if (filter.op === "exists") return found;
  if (!found) return filter.op === "!=";
  const expected: Literal = filter.value;
  switch (filter.op) {
    case "==":
      return value === expected;
    case "!=":
      return value !== expected;
    default: {
      const comparable =
        (typeof value === "number" && typeof expected === "number") ||
        (typeof value === "string" && typeof expected === "string");
      if (!comparable) return false;
      const a = value as number | string;
      const b = expected as number | string;
      if (filter.op === "<") return a < b;
      if (filter.op === "<=") return a <= b;
      if (filter.op === ">") return a > b;
      return a >= b;
    }
  }
}

function select(node: unknown, selector: Selector, into: unknown[]): void {
  switch (selector.kind) {
    case "name":
      if (isObject(node) && Object.hasOwn(node, selector.name)) push(into, node[selector.name]);
      return;
    case "wildcard":
      for (const child of children(node)) push(into, child);
      return;
    case "index":
      if (Array.isArray(node)) {
        const index = selector.index < 0 ? selector.index + node.length : selector.index;
        if (index >= 0 && index < node.length) push(into, node[index]);
      }
      return;
    case "slice":
      if (Array.isArray(node)) {
        for (const i of sliceIndices(node.length, selector.start, selector.end, selector.step)) push(into, node[i]);
      }
      return;
    case "filter":
      for (const child of children(node)) if (passes(child, selector.filter)) push(into, child);
      return;
  }
}

export function evaluate(root: unknown, segments: Segment[]): unknown[] {
  let nodes: unknown[] = [root];
  for (const segment of segments) {
    const targets = segment.recursive ? withDescendants(nodes) : nodes;
    const next: unknown[] = [];
    for (const node of targets) for (const selector of segment.selectors) select(node, selector, next);
    nodes = next;
  }
  return nodes;
}
