/**
 * @module src/host/isolation
 * What may carry over from one call of a tool to the next, chosen per
 * source: `"scope"` (the default) keeps a warm isolate per scope, so calls
 * of one scope may see what earlier calls of that scope left and calls of
 * another scope never do; `"call"` runs every call in a fresh isolate that is
 * disposed after it, so nothing carries over at all. The host option is one
 * mode, or a mode per source kind and per source id (the most specific wins).
 */
import { z } from "zod";

export const ISOLATION_MODES = ["scope", "call"] as const;
export const IsolationMode = z.enum(ISOLATION_MODES);
export type IsolationMode = z.infer<typeof IsolationMode>;

export const IsolationOption = z.union([
  IsolationMode,
  z.strictObject({
    /** For sources not named below. @default "scope" */
    default: IsolationMode.optional(),
    plugin: IsolationMode.optional(),
    agent: IsolationMode.optional(),
    host: IsolationMode.optional(),
    /** By source id, e.g. `{ "plugin:plugins/csv": "call" }`. */
    sources: z.record(z.string(), IsolationMode).optional(),
  }),
]);
export type IsolationOption = z.infer<typeof IsolationOption>;

/** The mode each call of `source` runs in under `option`. */
export function isolationFor(option: IsolationOption, source: string): IsolationMode {
  if (typeof option === "string") return option;
  const own = option.sources !== undefined && Object.hasOwn(option.sources, source) ? option.sources[source] : undefined;
  const kind = source.slice(0, source.indexOf(":"));
  const byKind = kind === "plugin" || kind === "agent" || kind === "host" ? option[kind] : undefined;
  return own ?? byKind ?? option.default ?? "scope";
}
