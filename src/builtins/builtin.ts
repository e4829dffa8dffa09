/**
 * @module src/builtins/builtin
 * Built-in tools are the host's own code (trusted), registered under
 * `host:corral`. They take the same call path as sandboxed tools (gate,
 * ledger, events) but run in the host: their input is checked with their zod
 * schema here, and they answer plain data.
 */
import { z } from "zod";
import { sha256 } from "../compile/bundle.js";
import type { BuiltinAnswer, BuiltinRun, CatalogEntry } from "../registry/index.js";
import type { Manifest } from "../registry/manifest.js";
import { trimSchema } from "../registry/json-schema.js";

export const BUILTIN_SOURCE = "host:corral";

export type BuiltinDefinition<I extends z.ZodObject> = {
  name: string;
  description: string;
  input: I;
  exposure: Manifest["exposure"];
  run(input: z.infer<I>, context: Parameters<BuiltinRun>[1]): Promise<BuiltinAnswer>;
};

export function builtinEntry<I extends z.ZodObject>(definition: BuiltinDefinition<I>): CatalogEntry {
  const inputSchema = trimSchema(z.toJSONSchema(definition.input, { io: "input" }) as Record<string, unknown>);
  return {
    source: BUILTIN_SOURCE,
    version: sha256(`corral builtin ${definition.name}`),
    manifest: {
      name: definition.name,
      description: definition.description,
      inputSchema,
      effects: [],
      exposure: definition.exposure,
      limits: {},
    },
    runner: {
      kind: "builtin",
      run: async (input, context) => {
        const parsed = definition.input.safeParse(input);
        if (!parsed.success) {
          const detail = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
          return { ok: false, kind: "invalid_input", message: `the input does not match the tool's schema: ${detail}` };
        }
        return definition.run(parsed.data, context);
      },
    },
  };
}
