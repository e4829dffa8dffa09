/**
 * @module src/registry/manifest
 * The host's own check of what a module says about its tools. The guest
 * wrote the manifests; the host trusts none of it until this schema passes:
 * names, sizes, effects, exposure and limits are all checked here, and the
 * schemas trimmed of what costs a model tokens and says nothing.
 */
import { z } from "zod";
import { EXPOSURES } from "../../sandbox/shared/tool-vocabulary.js";
import { trimSchema } from "./json-schema.js";

export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_DESCRIPTION_CHARS = 2048;
export const MAX_SCHEMA_CHARS = 64 * 1024;
export const MAX_TOOLS_PER_MODULE = 64;

const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((schema) => JSON.stringify(schema).length <= MAX_SCHEMA_CHARS, {
    message: `the schema is larger than ${MAX_SCHEMA_CHARS} characters`,
  });

export const Manifest = z.strictObject({
  name: z.string().regex(TOOL_NAME_PATTERN, "a tool name is 1-64 letters, digits, '_' or '-'"),
  description: z
    .string()
    .min(1, "a tool needs a description: the model reads it to decide when to call the tool")
    .max(MAX_DESCRIPTION_CHARS, `a description is at most ${MAX_DESCRIPTION_CHARS} characters`),
  inputSchema: JsonSchemaObject,
  outputSchema: JsonSchemaObject.optional(),
  /**
   * What the tool declared, as declared: `null` when it declared nothing.
   * Unknown names are kept; every policy treats them as the most dangerous.
   */
  effects: z.array(z.string().max(64)).max(16).nullable(),
  exposure: z.enum(EXPOSURES),
  limits: z.strictObject({
    timeoutMs: z.number().int().positive().optional(),
    memoryMb: z.number().int().min(8).optional(),
  }),
});
export type Manifest = z.infer<typeof Manifest>;

/** The guest's raw form: missing optional fields get their defaults here. */
const RawManifest = z.looseObject({
  effects: z.unknown().optional(),
  exposure: z.unknown().optional(),
  limits: z.unknown().optional(),
});

export type ManifestCheck = { ok: true; manifests: Manifest[] } | { ok: false; message: string };

/** Built once: zod compiles a parser for each object schema on its first use. */
const GuestDescription = z.union([
  z.strictObject({ ok: z.literal(true), tools: z.array(z.unknown()).max(MAX_TOOLS_PER_MODULE) }),
  z.strictObject({ ok: z.literal(false), message: z.string(), stack: z.string().optional() }),
]);

export function checkManifests(guestJson: string): ManifestCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(guestJson);
  } catch {
    return { ok: false, message: "the module's description is not JSON" };
  }
  const described = GuestDescription.safeParse(raw);
  if (!described.success) return { ok: false, message: "the module's description is malformed" };
  if (!described.data.ok) {
    const { message, stack } = described.data;
    return { ok: false, message: stack === undefined ? message : `${message}\n${stack}` };
  }
  return checkManifestList(described.data.tools);
}

/**
 * The per-tool half of the check: defaults filled, each tool parsed with
 * `Manifest`, names unique. A fresh describe and a manifest read back from
 * the disk cache both pass through here, so neither is trusted more.
 */
export function checkManifestList(tools: readonly unknown[]): ManifestCheck {
  if (tools.length > MAX_TOOLS_PER_MODULE) return { ok: false, message: `a module defines at most ${MAX_TOOLS_PER_MODULE} tools` };
  const manifests: Manifest[] = [];
  const seen = new Set<string>();
  for (const [index, item] of tools.entries()) {
    const base = RawManifest.safeParse(item);
    const filled = base.success
      ? { ...base.data, effects: base.data.effects ?? null, exposure: base.data.exposure ?? "direct", limits: base.data.limits ?? {} }
      : item;
    const parsed = Manifest.safeParse(filled);
    if (!parsed.success) {
      const name = base.success && typeof base.data.name === "string" ? `tool "${base.data.name.slice(0, 64)}"` : `tool #${index + 1}`;
      const detail = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(tool)"}: ${issue.message}`).join("; ");
      return { ok: false, message: `${name} has an invalid definition: ${detail}` };
    }
    if (seen.has(parsed.data.name)) return { ok: false, message: `two tools are named "${parsed.data.name}"` };
    seen.add(parsed.data.name);
    const { inputSchema, outputSchema } = parsed.data;
    manifests.push({ ...parsed.data, inputSchema: trimSchema(inputSchema), ...(outputSchema !== undefined ? { outputSchema: trimSchema(outputSchema) } : {}) });
  }
  return { ok: true, manifests };
}
