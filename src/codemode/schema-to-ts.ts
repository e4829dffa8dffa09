/**
 * @module src/codemode/schema-to-ts
 * A tool's JSON Schema (zod 4's `toJSONSchema`, trimmed by the registry) as
 * a TypeScript type, for the declarations a Code Mode script is written
 * against. Only what a model needs to call the tool right: types, required
 * keys, enums, unions, and each property's description as JSDoc. What it
 * cannot say in a type (patterns, bounds, `$ref`s it does not follow)
 * becomes `unknown` or the plainer type, never a wrong one.
 */

type Schema = Record<string, unknown>;

/** Deeper than this, a schema is written as `unknown`: a declaration stays short and finite. */
const MAX_DEPTH = 8;
/** A property description in JSDoc is cut past this many characters. */
const MAX_DOC_CHARS = 160;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `name` as a property key: bare when it is an identifier, else a JSON string. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** One line of JSDoc text: no comment terminator, no line breaks, clipped. */
export function docText(text: string, maxChars = MAX_DOC_CHARS): string {
  const flat = text.replace(/\*\//g, "*\\/").replace(/\s+/g, " ").trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function literal(value: unknown): string {
  if (value === null || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  return "unknown";
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes("unknown")) return "unknown";
  return unique.length === 0 ? "never" : unique.join(" | ");
}

/** Wraps a union or intersection that is an array's item in parentheses. */
function grouped(type: string): string {
  return /[|&]/.test(type) && !/^\{[\s\S]*\}$/.test(type) ? `(${type})` : type;
}

/** The TypeScript type of `schema`, indented for `indent` levels of nesting. */
export function schemaToType(schema: unknown, indent = 0, depth = 0): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isSchema(schema) || depth > MAX_DEPTH) return "unknown";
  if ("const" in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return union(options.map((option) => schemaToType(option, indent, depth + 1)));
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => schemaToType(part, indent, depth + 1)).filter((part) => part !== "unknown");
    return parts.length === 0 ? "unknown" : parts.map(grouped).join(" & ");
  }
  const type = schema.type;
  if (Array.isArray(type)) return union(type.map((one) => schemaToType({ ...schema, type: one }, indent, depth + 1)));
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return arrayType(schema, indent, depth);
    case "object":
      return objectType(schema, indent, depth);
    default:
      return isSchema(schema.properties) ? objectType(schema, indent, depth) : "unknown";
  }
}

function arrayType(schema: Schema, indent: number, depth: number): string {
  if (Array.isArray(schema.prefixItems)) {
    const items = schema.prefixItems.map((item) => schemaToType(item, indent, depth + 1));
    return `[${items.join(", ")}]`;
  }
  return `${grouped(schemaToType(schema.items, indent, depth + 1))}[]`;
}

function objectType(schema: Schema, indent: number, depth: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === "string") : []);
  const pad = "  ".repeat(indent + 1);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const description = isSchema(property) && typeof property.description === "string" ? property.description : undefined;
    if (description !== undefined && description.trim() !== "") lines.push(`${pad}/** ${docText(description)} */`);
    lines.push(`${pad}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${schemaToType(property, indent + 1, depth + 1)};`);
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) lines.push(`${pad}[key: string]: ${extra === true ? "unknown" : schemaToType(extra, indent + 1, depth + 1)};`);
  if (lines.length === 0) return extra === false ? "{}" : "Record<string, unknown>";
  return `{\n${lines.join("\n")}\n${"  ".repeat(indent)}}`;
}
