import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { EFFECTS, EXPOSURES } from "../../sandbox/shared/tool-vocabulary.js";
import { checkManifests, MAX_DESCRIPTION_CHARS, TOOL_NAME_PATTERN, type Manifest } from "./manifest.js";

const GOOD = { name: "good_tool-1", description: "does a good thing", inputSchema: { type: "object", properties: {} } };

function check(tools: unknown[]) {
  return checkManifests(JSON.stringify({ ok: true, tools }));
}

function accepted(tools: unknown[]): Manifest[] {
  const result = check(tools);
  assert.ok(result.ok, `refused: ${result.ok ? "" : result.message}`);
  return result.manifests;
}

function refused(tools: unknown[], pattern?: RegExp): string {
  const result = check(tools);
  assert.equal(result.ok, false, `accepted: ${JSON.stringify(tools).slice(0, 200)}`);
  assert.ok(!result.ok);
  if (pattern !== undefined) assert.match(result.message, pattern);
  return result.message;
}

describe("checkManifests: what it accepts", { timeout: 60_000 }, () => {
  it("accepts a minimal manifest and fills the defaults: effects null, exposure direct, limits {}", () => {
    const [manifest] = accepted([GOOD]);
    assert.deepEqual(manifest, { ...GOOD, effects: null, exposure: "direct", limits: {} });
  });

  it("keeps declared effects as declared, unknown names included, and [] as pure", () => {
    assert.deepEqual(accepted([{ ...GOOD, effects: [] }])[0]?.effects, []);
    assert.deepEqual(accepted([{ ...GOOD, effects: [...EFFECTS] }])[0]?.effects, [...EFFECTS]);
    assert.deepEqual(accepted([{ ...GOOD, effects: ["read", "teleport"] }])[0]?.effects, ["read", "teleport"]);
  });

  it("accepts every exposure, limits, and an output schema", () => {
    for (const exposure of EXPOSURES) assert.equal(accepted([{ ...GOOD, exposure }])[0]?.exposure, exposure);
    const [manifest] = accepted([{ ...GOOD, limits: { timeoutMs: 250, memoryMb: 8 }, outputSchema: { type: "string" } }]);
    assert.deepEqual(manifest?.limits, { timeoutMs: 250, memoryMb: 8 });
    assert.deepEqual(manifest?.outputSchema, { type: "string" });
  });

  it("accepts names of 1 and 64 characters and a description of the maximum length", () => {
    accepted([{ ...GOOD, name: "a" }]);
    accepted([{ ...GOOD, name: "A".repeat(64) }]);
    accepted([{ ...GOOD, description: "d".repeat(MAX_DESCRIPTION_CHARS) }]);
  });

  it("accepts several tools in order and an empty list", () => {
    const manifests = accepted([GOOD, { ...GOOD, name: "second" }, { ...GOOD, name: "third" }]);
    assert.deepEqual(
      manifests.map((m) => m.name),
      ["good_tool-1", "second", "third"],
    );
    assert.deepEqual(accepted([]), []);
  });

  it("passes a module's own failure through, with its stack", () => {
    const result = checkManifests(JSON.stringify({ ok: false, message: "the module threw", stack: "at top" }));
    assert.deepEqual(result, { ok: false, message: "the module threw\nat top" });
  });
});

describe("checkManifests: what it refuses", { timeout: 60_000 }, () => {
  it("refuses bad names: empty, 65 characters, spaces, unicode, dots, slashes, non-strings", () => {
    for (const name of ["", "a".repeat(65), "has space", " lead", "ünïcode", "emoji😀", "tab\tname", "dot.name", "slash/name", "new\nline"]) {
      refused([{ ...GOOD, name }], /name/);
    }
    for (const name of [42, null, ["a"], { a: 1 }]) refused([{ ...GOOD, name }]);
    refused([{ description: GOOD.description, inputSchema: GOOD.inputSchema }]);
  });

  it("refuses two tools with the same name", () => {
    refused([GOOD, { ...GOOD, description: "another" }], /two tools are named "good_tool-1"/);
  });

  it("refuses a missing, empty, oversized or non-string description", () => {
    refused([{ name: "x", inputSchema: {} }], /description/);
    refused([{ ...GOOD, description: "" }], /description/);
    refused([{ ...GOOD, description: "d".repeat(MAX_DESCRIPTION_CHARS + 1) }], /description/);
    refused([{ ...GOOD, description: 7 }], /description/);
  });

  it("refuses malformed effects", () => {
    for (const effects of ["read", [1], [null], ["x".repeat(65)], Array.from({ length: 17 }, () => "read"), { read: true }]) {
      refused([{ ...GOOD, effects }], /effects/);
    }
  });

  it("refuses a malformed exposure", () => {
    for (const exposure of ["public", "", 5, ["direct"], "DIRECT"]) refused([{ ...GOOD, exposure }], /exposure/);
  });

  it("refuses malformed limits", () => {
    for (const limits of [{ timeoutMs: -1 }, { timeoutMs: 0 }, { timeoutMs: 1.5 }, { memoryMb: 4 }, { memoryMb: "64" }, { cpu: 1 }, "fast", [1]]) {
      refused([{ ...GOOD, limits }], /limits/);
    }
  });

  it("refuses a missing, non-object or oversized input schema and a bad output schema", () => {
    refused([{ name: "x", description: "d" }], /inputSchema/);
    refused([{ ...GOOD, inputSchema: "object" }], /inputSchema/);
    refused([{ ...GOOD, inputSchema: { description: "x".repeat(70_000) } }], /schema is larger/);
    refused([{ ...GOOD, outputSchema: 5 }], /outputSchema/);
  });

  it("refuses unknown keys in a manifest and in the description envelope", () => {
    refused([{ ...GOOD, run: "function" }]);
    assert.equal(checkManifests(JSON.stringify({ ok: true, tools: [GOOD], extra: 1 })).ok, false);
  });

  it("refuses text that is not JSON, a malformed envelope, and more than 64 tools", () => {
    assert.deepEqual(checkManifests("{"), { ok: false, message: "the module's description is not JSON" });
    for (const text of ["null", "[]", '"ok"', '{"ok":true}', '{"ok":true,"tools":{}}', '{"ok":false}']) {
      assert.deepEqual(checkManifests(text), { ok: false, message: "the module's description is malformed" }, text);
    }
    const many = Array.from({ length: 65 }, (_, i) => ({ ...GOOD, name: `t${i}` }));
    assert.equal(check(many).ok, false);
    assert.equal(check(many.slice(0, 64)).ok, true);
  });

  it("names the faulty tool and its field in the message", () => {
    const message = refused([GOOD, { ...GOOD, name: "second", exposure: "public" }]);
    assert.match(message, /tool "second"/);
    assert.match(message, /exposure/);
  });
});

// ---------------------------------------------------------------------------
// Properties: whatever the guest writes, the check answers and never throws.

/** Anything a manifest field might hold, valid or not. */
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.stringMatching(/^[A-Za-z0-9_-]{0,70}$/),
  fc.constantFrom(...EFFECTS, ...EXPOSURES, "direct", "teleport"),
);

/** Mostly valid, sometimes anything: both sides of the check get exercised. */
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: fieldValue });

const manifestShape = fc.record(
  {
    name: mostly(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/)),
    description: mostly(fc.string({ minLength: 1, maxLength: 40 })),
    inputSchema: mostly(fc.oneof(fc.constant({ type: "object" }), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })))),
    outputSchema: mostly(fc.constant({ type: "string" })),
    effects: mostly(fc.subarray([...EFFECTS])),
    exposure: mostly(fc.constantFrom(...EXPOSURES)),
    limits: mostly(
      fc.record({ timeoutMs: fc.integer({ min: -5, max: 100_000 }), memoryMb: fc.integer({ min: 0, max: 1024 }) }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: [] },
);

function assertWellFormedAnswer(text: string): void {
  // A throw fails the property with the input that caused it.
  const answer = checkManifests(text);
  assert.equal(typeof answer.ok, "boolean");
  if (!answer.ok) {
    assert.equal(typeof answer.message, "string");
    return;
  }
  const names = new Set<string>();
  for (const manifest of answer.manifests) {
    assert.match(manifest.name, TOOL_NAME_PATTERN);
    assert.ok(!names.has(manifest.name), "accepted a duplicate name");
    names.add(manifest.name);
    assert.ok(manifest.description.length >= 1 && manifest.description.length <= MAX_DESCRIPTION_CHARS);
    assert.ok((EXPOSURES as readonly string[]).includes(manifest.exposure));
    assert.ok(manifest.effects === null || manifest.effects.every((effect) => typeof effect === "string"));
    assert.equal(typeof manifest.inputSchema, "object");
    assert.ok(!Array.isArray(manifest.inputSchema));
  }
}

describe("checkManifests: properties (fast-check)", { timeout: 60_000 }, () => {
  it("never throws on any JSON value, and answers ok true or false", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assertWellFormedAnswer(JSON.stringify(value) ?? "null");
      }),
      { numRuns: 500 },
    );
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        assertWellFormedAnswer(text);
      }),
      { numRuns: 300 },
    );
  });

  it("on random manifest shapes, anything accepted satisfies the name pattern and the other rules", () => {
    let acceptedCount = 0;
    fc.assert(
      fc.property(fc.array(manifestShape, { maxLength: 4 }), fc.boolean(), (tools, wrapOk) => {
        const text = JSON.stringify(wrapOk ? { ok: true, tools } : { ok: false, message: "m", tools });
        assertWellFormedAnswer(text);
        if (checkManifests(text).ok && tools.length > 0) acceptedCount++;
      }),
      // About one run in forty is accepted (every field of every tool valid,
      // and ok: true); 500 runs gave ~13 and sometimes fewer than 10.
      { numRuns: 2_000 },
    );
    // The generator must reach the accepting side, or the property proves little.
    assert.ok(acceptedCount > 10, `only ${acceptedCount} random lists were accepted`);
  });

  it("accepts every well-formed manifest whatever its valid name", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.string({ minLength: 1, maxLength: 100 }), (name, description) => {
        const result = check([{ name, description, inputSchema: { type: "object" } }]);
        assert.ok(result.ok);
        assert.equal(result.manifests[0]?.name, name);
      }),
      { numRuns: 300 },
    );
  });
});
