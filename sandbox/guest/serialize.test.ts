// The guest's result writer runs inside every isolate, but it uses only
// intrinsics it captured itself, so it can be imported and tested in plain
// Node. (This file is a test: the guest bundle never includes it.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { anyValue } from "../../test/helpers/any-value.js";
import { NotPlainData, OutputTooLarge, serialize, type SerializeBudget } from "./serialize.js";

const ROOMY: SerializeBudget = { maxBytes: 1024 * 1024, maxDepth: 64 };

function write(value: unknown, budget: SerializeBudget = ROOMY): string {
  return serialize(value, budget);
}

function tooLarge(value: unknown, budget: SerializeBudget): OutputTooLarge {
  try {
    serialize(value, budget);
  } catch (error) {
    assert.ok(error instanceof OutputTooLarge, `threw something else: ${String(error)}`);
    return error;
  }
  assert.fail("the value was written although it exceeds the budget");
}

describe("serialize: conversions to plain JSON", { timeout: 60_000 }, () => {
  it("writes plain JSON values as JSON.stringify would", () => {
    const value = { a: 1, b: "two", c: [true, false, null], d: { e: -1.5e-7 }, "quote\"key": "line\nbreak", u: "é😀" };
    assert.equal(write(value), JSON.stringify(value));
    assert.equal(write("text"), '"text"');
    assert.equal(write(3), "3");
    assert.equal(write(null), "null");
  });

  it("writes functions as [Function name]", () => {
    function named() {}
    const anonymous = [() => 1][0];
    assert.equal(write({ named, arrow: (x: number) => x, klass: class Secret {} }), '{"named":"[Function named]","arrow":"[Function arrow]","klass":"[Function Secret]"}');
    assert.equal(write(anonymous), '"[Function (anonymous)]"');
  });

  it("writes a Map as [[key, value], ...] and a Set as [...]", () => {
    const map = new Map<unknown, unknown>([["a", 1], [2, { b: true }]]);
    assert.equal(write(map), '[["a",1],[2,{"b":true}]]');
    assert.equal(write(new Set(["x", 1, null])), '["x",1,null]');
    assert.equal(write({ empty: new Map(), none: new Set() }), '{"empty":[],"none":[]}');
  });

  it("writes a Date as ISO text and an invalid Date as Invalid Date", () => {
    assert.equal(write(new Date(Date.UTC(2024, 1, 29, 12, 30))), '"2024-02-29T12:30:00.000Z"');
    assert.equal(write(new Date(Number.NaN)), '"Invalid Date"');
  });

  it("writes a BigInt as decimal text, a symbol as Symbol(description), and drops symbol keys", () => {
    assert.equal(write({ big: 12345678901234567890123n, negative: -5n }), '{"big":"12345678901234567890123","negative":"-5"}');
    assert.equal(write({ sym: Symbol("tag"), [Symbol("hidden")]: 1 }), '{"sym":"Symbol(tag)"}');
  });

  it('writes cycles as "[Circular]" but writes a shared (acyclic) value every time it appears', () => {
    const cyclic: Record<string, unknown> = { name: "root" };
    cyclic.self = cyclic;
    cyclic.list = [cyclic];
    assert.equal(write(cyclic), '{"name":"root","self":"[Circular]","list":["[Circular]"]}');
    const shared = { s: 1 };
    assert.equal(write({ a: shared, b: [shared, shared] }), '{"a":{"s":1},"b":[{"s":1},{"s":1}]}');
    const map = new Map<string, unknown>();
    map.set("me", map);
    assert.equal(write(map), '[["me","[Circular]"]]');
  });

  it("writes NaN and ±Infinity as null, and -0 as 0", () => {
    assert.equal(write([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0]), "[null,null,null,0]");
    assert.equal(write({ n: Number.NaN }), '{"n":null}');
  });

  it("omits undefined in objects and writes null for undefined (and holes) in arrays", () => {
    assert.equal(write({ a: undefined, b: 1, c: undefined }), '{"b":1}');
    assert.equal(write({ only: undefined }), "{}");
    // eslint-disable-next-line no-sparse-arrays
    assert.equal(write([undefined, , 3]), "[null,null,3]");
    assert.equal(write(undefined), "null");
  });

  it("writes a class instance as its own enumerable data, leaving prototype methods and accessors", () => {
    class Point {
      x = 1;
      y = 2;
      get sum(): number {
        return this.x + this.y;
      }
      move(): void {}
    }
    const point = new Point();
    Object.defineProperty(point, "hidden", { value: 3, enumerable: false });
    assert.equal(write(point), '{"x":1,"y":2}');
  });

  it("runs own getters, once each, and writes what they return", () => {
    let reads = 0;
    const value = {
      get computed(): string {
        reads++;
        return "from a getter";
      },
    };
    assert.equal(write(value), '{"computed":"from a getter"}');
    assert.equal(reads, 1);
  });

  it("never calls toJSON, on the value or on Object.prototype", () => {
    const value = { a: 1, toJSON: () => "replaced" };
    assert.equal(write(value), '{"a":1,"toJSON":"[Function toJSON]"}');
    Object.defineProperty(Object.prototype, "toJSON", { value: () => "polluted", configurable: true, writable: true });
    try {
      assert.equal(write({ b: [2] }), '{"b":[2]}');
    } finally {
      delete (Object.prototype as { toJSON?: unknown }).toJSON;
    }
  });

  it("writes regexps, typed arrays, ArrayBuffers, errors and promises as plain forms", () => {
    assert.equal(write(/a+b/gi), '"/a+b/gi"');
    assert.equal(write(new Uint8Array([1, 2, 255])), "[1,2,255]");
    assert.equal(write(new Float64Array([0.5, Number.NaN])), "[0.5,null]");
    assert.equal(write(new BigInt64Array([5n])), '["5"]');
    assert.equal(write(new ArrayBuffer(8)), '"[ArrayBuffer 8 bytes]"');
    assert.equal(write(new TypeError("bad")), '{"name":"TypeError","message":"bad"}');
    assert.equal(write(Promise.resolve(1)), '"[Promise]"');
  });

  it("recognises built-ins by their internal slots, not by their prototypes or tags", () => {
    const fakeDate = Object.create(Date.prototype) as object;
    const fakeMap = Object.create(Map.prototype) as object;
    assert.equal(write({ fakeDate, fakeMap, tagged: { [Symbol.toStringTag]: "Date", x: 1 } }), '{"fakeDate":{},"fakeMap":{},"tagged":{"x":1}}');
  });

  it("writes objects without a prototype", () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = "v";
    assert.equal(write(bare), '{"k":"v"}');
  });

  it("lets a throwing getter's error through (the runtime turns it into a tool_error)", () => {
    const value = {
      get bad(): never {
        throw new RangeError("getter failed");
      },
    };
    assert.throws(() => write(value), { name: "RangeError", message: "getter failed" });
  });
});

describe("serialize: the budget", { timeout: 60_000 }, () => {
  it("throws OutputTooLarge past maxBytes, and writes text of exactly maxBytes", () => {
    assert.equal(write("ab", { maxBytes: 4, maxDepth: 4 }), '"ab"');
    assert.match(tooLarge("abc", { maxBytes: 4, maxDepth: 4 }).reason, /larger than 4 bytes/);
    assert.equal(write([1, 2], { maxBytes: 5, maxDepth: 4 }), "[1,2]");
    tooLarge([1, 2, 3], { maxBytes: 5, maxDepth: 4 });
  });

  it("refuses a huge string before escaping or copying it", () => {
    let rope = "x";
    for (let i = 0; i < 22; i++) rope += rope; // 4 Mi characters, as a rope
    tooLarge({ rope }, ROOMY);
    tooLarge({ [rope]: 1 }, ROOMY);
  });

  it("throws OutputTooLarge past maxDepth", () => {
    assert.equal(write([[[]]], { maxBytes: 100, maxDepth: 3 }), "[[[]]]");
    assert.match(tooLarge([[[[]]]], { maxBytes: 100, maxDepth: 3 }).reason, /deeper than 3 levels/);
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { deep };
    tooLarge(deep, ROOMY);
  });

  it("stops a tiny DAG that expands exponentially at the byte budget", () => {
    let node: unknown = "leaf";
    for (let i = 0; i < 40; i++) node = [node, node];
    tooLarge(node, { maxBytes: 64 * 1024, maxDepth: 64 });
  });

  it("stops a sparse array of length 2^32 - 1 at the byte budget", () => {
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    tooLarge(sparse, { maxBytes: 64 * 1024, maxDepth: 4 });
  });
});

describe("serialize: properties (fast-check)", { timeout: 60_000 }, () => {
  const anything = anyValue({ maxDepth: 4 });
  const budget = fc.record({ maxBytes: fc.integer({ min: 1, max: 4096 }), maxDepth: fc.integer({ min: 1, max: 8 }) });

  it("any value becomes text JSON.parse accepts, within the budget, or throws OutputTooLarge; nothing else", () => {
    let written = 0;
    let refused = 0;
    fc.assert(
      fc.property(anything, budget, (value, limits) => {
        let text: string;
        try {
          text = serialize(value, limits);
        } catch (error) {
          assert.ok(error instanceof OutputTooLarge, `threw ${String(error)}`);
          refused++;
          return;
        }
        written++;
        assert.equal(typeof text, "string");
        assert.ok(text.length <= limits.maxBytes, `${text.length} > ${limits.maxBytes}`);
        JSON.parse(text);
      }),
      { numRuns: 1000 },
    );
    // Both outcomes must actually happen, or the property proves little.
    assert.ok(written > 100 && refused > 50, `written ${written}, refused ${refused}`);
  });

  it("with a roomy budget, plain JSON values round-trip exactly as JSON.stringify writes them", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.deepEqual(JSON.parse(write(value)), JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });

  it("with a roomy budget, anything is written (nothing fast-check makes is too large)", () => {
    fc.assert(
      fc.property(anything, (value) => {
        JSON.parse(write(value));
      }),
      { numRuns: 500 },
    );
  });

  it("plainOnly: a value with no function, symbol or BigInt is written as without it; one with any, anywhere, throws NotPlainData naming where", () => {
    const plainOnly = { ...ROOMY, plainOnly: true };
    /** The first non-data leaf in writing order (own enumerable keys, arrays by index), with its path; Maps and Sets as the writer turns them into arrays. */
    const firstNotData = (value: unknown, path: (string | number)[], seen: Set<object>): { type: string; path: (string | number)[] } | undefined => {
      const type = typeof value;
      if (type === "function" || type === "symbol" || type === "bigint") return { type, path };
      if (type !== "object" || value === null || seen.has(value as object)) return undefined;
      seen.add(value as object);
      try {
        const items = value instanceof Map ? [...value].map(([k, v]) => [k, v]) : value instanceof Set ? [...value] : ArrayBuffer.isView(value) ? [] : value;
        if (Array.isArray(items)) {
          for (let i = 0; i < items.length; i++) {
            const found = firstNotData(items[i], [...path, i], seen);
            if (found !== undefined) return found;
          }
          return undefined;
        }
        if (value instanceof Date || value instanceof RegExp || value instanceof Error || value instanceof Promise || value instanceof ArrayBuffer) return undefined;
        for (const key of Object.keys(items as object)) {
          const item = (items as Record<string, unknown>)[key];
          if (item === undefined) continue;
          const found = firstNotData(item, [...path, key], seen);
          if (found !== undefined) return found;
        }
        return undefined;
      } finally {
        seen.delete(value as object);
      }
    };
    let refused = 0;
    fc.assert(
      fc.property(anything, (value) => {
        const expected = firstNotData(value, [], new Set());
        if (expected === undefined) {
          assert.equal(serialize(value, plainOnly), write(value));
          return;
        }
        refused++;
        try {
          serialize(value, plainOnly);
        } catch (error) {
          assert.ok(error instanceof NotPlainData, `threw ${String(error)}`);
          assert.equal(error.type, expected.type);
          assert.deepEqual(error.path, expected.path);
          return;
        }
        assert.fail(`a ${expected.type} at ${expected.path.join(".")} was written`);
      }),
      { numRuns: 1000 },
    );
    assert.ok(refused > 50, `only ${refused} values held a function, symbol or BigInt`);
  });
});
