/**
 * @module src/adapters/json-validator
 * A JSON Schema check (ajv, draft 2020-12: what zod's toJSONSchema writes)
 * for SDKs that validate a model's arguments before a tool runs, such as the
 * AI SDK's `jsonSchema(schema, { validate })`. The tool still checks its
 * input with its own zod schema in the sandbox; this lets the SDK answer the
 * model in its own way first. Each schema is compiled once, on first use.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

export type Verdict = { ok: true } | { ok: false; message: string };

export function createJsonValidator(): (schema: Record<string, unknown>) => (value: unknown) => Verdict {
  // strict: false: tools' schemas may carry keywords ajv does not know (zod's own annotations).
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  return (schema) => {
    let compiled: ValidateFunction | undefined;
    return (value) => {
      compiled ??= ajv.compile(schema);
      return compiled(value) ? { ok: true } : { ok: false, message: ajv.errorsText(compiled.errors, { dataVar: "input" }) };
    };
  };
}
