/**
 * @module sandbox/shared/task-parts
 * What every task is built from, on both sides: the bundle it runs, the
 * limits it runs under, the scope it is for, and the key that names the warm
 * isolate those make. The tasks themselves (tasks.ts) and a Code Mode
 * script's fast lane (fast-lane-schemas.ts) are both made of these parts.
 */
import { z } from "zod";

/** Limits of one call, already capped by the host's maxima. */
export const CallLimits = z.strictObject({
  timeoutMs: z.number().int().positive(),
  memoryMb: z.number().int().min(8),
  maxOutputBytes: z.number().int().positive(),
  maxDepth: z.number().int().positive(),
});
export type CallLimits = z.infer<typeof CallLimits>;

/**
 * Where the worker finds a bundle: inline `code` or a `path` in the host's
 * cache. The worker checks the sha256 of what it reads against `hash`.
 */
export const BundleRef = z.strictObject({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** Shown in stack traces, e.g. `agent:demo` or `plugin:plugins/csv`. */
  filename: z.string().max(512),
  path: z.string().optional(),
  code: z.string().optional(),
});
export type BundleRef = z.infer<typeof BundleRef>;

/** The longest scope name: whom a call is for (a tenant, a user, a conversation). */
export const MAX_SCOPE_CHARS = 256;
/** A scope's name: any text without control characters; "" is the default scope. */
export const Scope = z.string().max(MAX_SCOPE_CHARS).regex(/^[^\u0000-\u001f\u007f]*$/, "a scope has no control characters");

/**
 * Names one warm isolate, on both sides: the source (the bundle's filename),
 * the bundle, the memory limit, the tool and the scope. Two sources that load
 * the same code never share an isolate: what one left in it is never charged
 * to the other. The default scope ("") and a describe's or warm-up's isolate
 * (which no call has used yet) have the key without a scope; a scope's key adds
 * it after a unit separator, which no tool name or scope contains, so two
 * scopes never name one isolate.
 */
export function isolateKey(bundle: Pick<BundleRef, "hash" | "filename">, memoryMb: number, tool: string, scope = ""): string {
  const base = `${bundle.filename}:${bundle.hash}:${memoryMb}:${tool}`;
  return scope === "" ? base : `${base}\u001f${scope}`;
}
