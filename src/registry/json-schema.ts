/**
 * @module src/registry/json-schema
 * Declarations cost the model tokens on every turn, so a tool's JSON Schema
 * is trimmed of what says nothing before anyone sees it: the `$schema` URL,
 * the ±(2^53 − 1) bounds zod writes for every `.int()`, and the
 * `additionalProperties: {}`/`true` that only restate the default. Nothing
 * that constrains an input is removed, so the schema a model sees still
 * accepts and refuses what the tool's own zod schema does (a test checks
 * that against every bundled plugin).
 *
 * The walk knows where subschemas sit: a property *named* `$schema` or
 * `minimum` inside `properties` is a name, not a keyword, and is kept.
 */

type Schema = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const ONE_SCHEMA = new Set([
  "items", "additionalItems", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains",
  "propertyNames", "not", "if", "then", "else", "contentSchema",
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of `schema` without the keys that constrain nothing; the input is left as it was. */
export function trimSchema(schema: Schema): Schema {
  return trimNode(schema, true) as Schema;
}

function trimNode(node: unknown, root: boolean): unknown {
  if (!isObject(node)) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (saysNothing(node, key, value, root)) continue;
    if (SCHEMA_MAP.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, trimNode(sub, false)]));
    } else if (SCHEMA_LIST.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => trimNode(sub, false));
    } else if (ONE_SCHEMA.has(key)) {
      out[key] = trimNode(value, false);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function saysNothing(node: Schema, key: string, value: unknown, root: boolean): boolean {
  switch (key) {
    case "$schema":
      // Only the root's says which draft; the model does not need telling.
      return root;
    case "minimum":
      // zod's `.int()` bound: JSON numbers past it are not exact anyway.
      return node.type === "integer" && value === -MAX_SAFE;
    case "maximum":
      return node.type === "integer" && value === MAX_SAFE;
    case "additionalProperties":
      // The default already allows any other property.
      return value === true || (isObject(value) && Object.keys(value).length === 0);
    default:
      return false;
  }
}
