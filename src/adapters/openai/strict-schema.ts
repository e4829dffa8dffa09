/**
 * @module src/adapters/openai/strict-schema
 * OpenAI's strict function calling (Structured Outputs) takes a subset of
 * JSON Schema: every object closed (`additionalProperties: false`), every
 * property listed in `required`, no root `anyOf`, no `allOf`, `not`,
 * `if`/`then`/`else`, open records or `$ref` here. A tool's schema is
 * converted when it can be, without changing what it accepts:
 *
 * - an optional property becomes required and nullable, and `restore()`
 *   turns the `null` a model then sends back into "absent" before the tool
 *   sees it (the tool's zod schema would refuse the null);
 * - `oneOf` becomes `anyOf`; `default` moves into the description.
 *
 * When it cannot, the caller leaves the tool non-strict and says why.
 */

type Schema = Record<string, unknown>;

export type StrictConversion = { ok: true; schema: Schema; restore(input: unknown): unknown } | { ok: false; reason: string };

const REFUSED_KEYWORDS = ["allOf", "not", "if", "then", "else", "$ref", "patternProperties", "dependentSchemas", "unevaluatedProperties", "prefixItems"] as const;

class NotStrict extends Error {}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObjectNode(node: Schema): boolean {
  return node.type === "object" || isObject(node.properties);
}

export function toStrictSchema(schema: Schema): StrictConversion {
  if (!isObjectNode(schema)) return { ok: false, reason: "its input is not a JSON object schema" };
  if ("anyOf" in schema || "oneOf" in schema) return { ok: false, reason: "its input schema is a union at the root" };
  try {
    const converted = convert(schema);
    return { ok: true, schema: converted, restore: (input) => restore(schema, input) };
  } catch (error) {
    if (error instanceof NotStrict) return { ok: false, reason: error.message };
    throw error;
  }
}

function convert(node: Schema): Schema {
  for (const keyword of REFUSED_KEYWORDS) {
    if (keyword in node) throw new NotStrict(`its input schema uses "${keyword}", which strict mode does not take`);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "default") continue;
    if (key === "oneOf" || key === "anyOf") out.anyOf = (value as unknown[]).map((sub) => (isObject(sub) ? convert(sub) : sub));
    else if (key === "items" && isObject(value)) out.items = convert(value);
    else if (key === "$defs" || key === "definitions") continue;
    else out[key] = value;
  }
  if ("default" in node) {
    const note = `(default: ${JSON.stringify(node.default)})`;
    out.description = typeof node.description === "string" ? `${node.description} ${note}` : note;
  }
  if (!isObjectNode(node)) return out;
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
    throw new NotStrict("its input schema has an open record (additionalProperties), which strict mode cannot close");
  }
  const properties = isObject(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  out.properties = Object.fromEntries(
    Object.entries(properties).map(([name, sub]) => {
      const converted = isObject(sub) ? convert(sub) : {};
      return [name, required.has(name) ? converted : nullable(converted)];
    }),
  );
  out.required = Object.keys(properties);
  out.additionalProperties = false;
  return out;
}

function acceptsNull(node: unknown): boolean {
  if (!isObject(node)) return true;
  if (node.type === "null" || (Array.isArray(node.type) && node.type.includes("null"))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if ("const" in node && node.const === null) return true;
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) return union.some(acceptsNull);
  // No type at all accepts anything, null included.
  return node.type === undefined && node.enum === undefined && !("const" in node) && union === undefined;
}

function nullable(node: Schema): Schema {
  if (acceptsNull(node)) return node;
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...node.anyOf, { type: "null" }] };
  if (typeof node.type === "string" && !("const" in node)) {
    const out: Schema = { ...node, type: [node.type, "null"] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  const { description, ...rest } = node;
  return { anyOf: [rest, { type: "null" }], ...(description !== undefined ? { description } : {}) };
}

/** The model's input with each `null` given for an optional, non-nullable property taken out, as the tool expects. */
function restore(node: unknown, input: unknown): unknown {
  if (!isObject(node)) return input;
  if (Array.isArray(input)) return isObject(node.items) ? input.map((item) => restore(node.items, item)) : input;
  if (!isObject(input) || !isObject(node.properties)) return input;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const sub = node.properties[key];
    if (value === null && sub !== undefined && !required.has(key) && !acceptsNull(sub)) continue;
    out[key] = sub === undefined ? value : restore(sub, value);
  }
  return out;
}
