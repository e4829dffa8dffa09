/**
 * @module src/registry/caller
 * A Caller is who a call is made for when it is not the embedding program:
 * a model in a conversation, an MCP session, an adapter's tool set, or
 * a Code Mode script. It carries its origin (which exposures it may reach),
 * an id (written with the call in the ledger and the audit line) and the
 * deferred tools tool_search activated for it. One Caller is one
 * conversation or session: activations never leak between two of them.
 *
 * The host's call path adds to `activated` only from what its own built-ins
 * (tool_search, create_tool) answered, so a sandboxed tool cannot unlock
 * another; the embedding program is trusted and may call `activate` itself.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CorralError, describeIssues } from "../errors.js";

/** `model`: a model's tool call. `codemode`: a call from a Code Mode script (see "9 · Code Mode"). */
export const CALLER_ORIGINS = ["model", "codemode"] as const;
export type CallerOrigin = (typeof CALLER_ORIGINS)[number];

export const CALLER_ID_PATTERN = /^[A-Za-z0-9:._-]{1,128}$/;

export const CallerOptions = z.strictObject({
  /** @default "model" */
  origin: z.enum(CALLER_ORIGINS).optional(),
  /** Written with each call in the ledger and the audit line. @default `model:<uuid>` */
  id: z.string().regex(CALLER_ID_PATTERN, "a caller id is 1-128 letters, digits, ':', '.', '_' or '-'").optional(),
});
export type CallerOptions = z.input<typeof CallerOptions>;

export class Caller {
  readonly origin: CallerOrigin;
  readonly id: string;
  readonly #activated = new Set<string>();

  constructor(options: CallerOptions = {}) {
    const parsed = CallerOptions.safeParse(options);
    if (!parsed.success) {
      const detail = describeIssues(parsed.error.issues);
      throw new CorralError("invalid_options", `caller options are invalid: ${detail}`, { issues: parsed.error.issues });
    }
    this.origin = parsed.data.origin ?? "model";
    this.id = parsed.data.id ?? `${this.origin}:${randomUUID()}`;
  }

  /** Deferred tools this caller may call and is declared. */
  get activated(): ReadonlySet<string> {
    return this.#activated;
  }

  activate(names: Iterable<string>): void {
    for (const name of names) if (typeof name === "string") this.#activated.add(name);
  }
}

export function createCaller(options: CallerOptions = {}): Caller {
  return new Caller(options);
}
