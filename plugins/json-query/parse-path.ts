/**
 * @module plugins/json-query/parse-path
 * Turns a JSONPath expression into segments the evaluator walks. The dialect
 * is the common subset of RFC 9535 that models reach for: `$`, `.name`,
 * `['quoted name']`, `*`, `..` (recursive descent), indices (negative count
 * from the end), slices `[start:end:step]`, unions `[0,2]` and simple filters
 * `[?(@.price < 10)]`. Anything else fails with the position of the problem,
 * because a wrong guess at a path would return wrong data silently.
 */

export type Literal = string | number | boolean | null;
export type ComparisonOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** `@.a.b op literal`, or a bare `@.a.b`: true when the member exists. */
export type Filter = { path: (string | number)[]; op: ComparisonOp | "exists"; value: Literal };

export type Selector =
  | { kind: "name"; name: string }
  | { kind: "wildcard" }
  | { kind: "index"; index: number }
  | { kind: "slice"; start: number | undefined; end: number | undefined; step: number }
  | { kind: "filter"; filter: Filter };

/** `recursive` applies the selectors to every node below the current ones too. */
export type Segment = { recursive: boolean; selectors: Selector[] };

const NAME = /[\p{L}\p{N}_$-]/u;
const COMPARISONS: readonly ComparisonOp[] = ["==", "!=", "<=", ">=", "<", ">"];
const ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", "/": "/", "\\": "\\", "'": "'", '"': '"' };

/** A cursor over the path text; every failure names the 1-based character. */
class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? "";
  }
  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }
  eat(token: string): boolean {
    if (!this.text.startsWith(token, this.pos)) return false;
    this.pos += token.length;
    return true;
  }
  expect(token: string, what: string): void {
    if (!this.eat(token)) this.fail(`expected ${what}`);
  }
  fail(problem: string): never {
    const found = this.done ? "the end of the path" : `"${this.peek()}"`;
    throw new Error(`Invalid JSONPath "${this.text}": ${problem} at character ${this.pos + 1}, found ${found}`);
  }
}

export function parsePath(text: string): Segment[] {
  const reader = new Reader(text.trim());
  if (!reader.eat("$")) reader.fail('a path must start with "$" (the root), e.g. $.items[0]');
  const segments: Segment[] = [];
  while (!reader.done) segments.push(readSegment(reader));
  return segments;
}

function readSegment(reader: Reader): Segment {
  if (reader.eat("..")) {
    if (reader.peek() === "[") return { recursive: true, selectors: readBracket(reader) };
    return { recursive: true, selectors: [readDotted(reader)] };
  }
  if (reader.eat(".")) return { recursive: false, selectors: [readDotted(reader)] };
  if (reader.peek() === "[") return { recursive: false, selectors: readBracket(reader) };
  return reader.fail('expected ".", ".." or "["');
}

function readDotted(reader: Reader): Selector {
  if (reader.eat("*")) return { kind: "wildcard" };
  return { kind: "name", name: readName(reader) };
}

function readName(reader: Reader): string {
  const start = reader.pos;
  while (!reader.done && NAME.test(reader.peek())) reader.pos++;
  if (reader.pos === start) reader.fail('expected a member name (quote unusual names: ["my key"])');
  return reader.text.slice(start, reader.pos);
}

function readBracket(reader: Reader): Selector[] {
  reader.expect("[", '"["');
  const selectors: Selector[] = [];
  do {
    reader.skipSpaces();
    selectors.push(readBracketSelector(reader));
    reader.skipSpaces();
  } while (reader.eat(","));
  reader.expect("]", '"]" or ","');
  return selectors;
}

function readBracketSelector(reader: Reader): Selector {
  const c = reader.peek();
  if (c === "'" || c === '"') return { kind: "name", name: readQuoted(reader) };
  if (reader.eat("*")) return { kind: "wildcard" };
  if (reader.eat("?")) return { kind: "filter", filter: readFilter(reader) };
  return readIndexOrSlice(reader);
}

function readQuoted(reader: Reader): string {
  const quote = reader.peek();
  reader.pos++;
  let out = "";
  while (!reader.eat(quote)) {
    if (reader.done) reader.fail(`unterminated string, expected a closing ${quote}`);
    const c = reader.peek();
    reader.pos++;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const escaped = reader.peek();
    reader.pos++;
    if (escaped === "u" && /^[0-9a-fA-F]{4}$/.test(reader.text.slice(reader.pos, reader.pos + 4))) {
      out += String.fromCharCode(parseInt(reader.text.slice(reader.pos, reader.pos + 4), 16));
      reader.pos += 4;
    } else if (Object.hasOwn(ESCAPES, escaped)) {
      out += ESCAPES[escaped] ?? "";
    } else {
      reader.pos--;
      reader.fail("unknown escape in a quoted name");
    }
  }
  return out;
}

function readInteger(reader: Reader): number | undefined {
  const match = /^-?\d+/.exec(reader.text.slice(reader.pos));
  if (match === null) return undefined;
  reader.pos += match[0].length;
  const value = Number(match[0]);
  if (!Number.isSafeInteger(value)) reader.fail("the number is too large");
  return value;
}

function readIndexOrSlice(reader: Reader): Selector {
  const start = readInteger(reader);
  reader.skipSpaces();
  if (!reader.eat(":")) {
    if (start === undefined) reader.fail('expected an index, a slice, "*", "?" or a quoted name');
    return { kind: "index", index: start };
  }
  reader.skipSpaces();
  const end = readInteger(reader);
  reader.skipSpaces();
  let step = 1;
  if (reader.eat(":")) {
    reader.skipSpaces();
    step = readInteger(reader) ?? 1;
    if (step === 0) reader.fail("a slice step cannot be 0");
  }
  return { kind: "slice", start, end, step };
}

/** `?(@.a.b op literal)` or `?@.a.b op literal`; the parentheses are optional. */
function readFilter(reader: Reader): Filter {
  reader.skipSpaces();
  const parenthesised = reader.eat("(");
  reader.skipSpaces();
  reader.expect("@", '"@" (the current item) to start the filter');
  const path: (string | number)[] = [];
  for (;;) {
    if (reader.eat(".")) path.push(readName(reader));
    else if (reader.peek() === "[") {
      reader.pos++;
      reader.skipSpaces();
      const c = reader.peek();
      path.push(c === "'" || c === '"' ? readQuoted(reader) : (readInteger(reader) ?? reader.fail("expected an index or a quoted name")));
      reader.skipSpaces();
      reader.expect("]", '"]"');
    } else break;
  }
  reader.skipSpaces();
  const op = COMPARISONS.find((candidate) => reader.eat(candidate));
  let value: Literal = null;
  if (op !== undefined) {
    reader.skipSpaces();
    value = readLiteral(reader);
    reader.skipSpaces();
  }
  if (parenthesised) reader.expect(")", '")" to close the filter');
  return { path, op: op ?? "exists", value };
}

function readLiteral(reader: Reader): Literal {
  const c = reader.peek();
  if (c === "'" || c === '"') return readQuoted(reader);
  for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
    if (reader.eat(word)) return value;
  }
  const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(reader.text.slice(reader.pos));
  if (match === null) reader.fail("expected a number, a quoted string, true, false or null");
  reader.pos += match[0].length;
  return Number(match[0]);
}
