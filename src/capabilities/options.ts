/**
 * @module src/capabilities/options
 * The `capabilities` host option: what a tool may reach beyond computing,
 * granted host-wide and overridden per source kind (`"agent"`) or source id
 * (`"agent:x"`). Nothing is granted by default. A section given for a source
 * replaces the host-wide section of the same name (net, fs, state, sampling) whole, so
 * a grant never mixes two places' settings.
 */
import { z } from "zod";
import { CorralError } from "../errors.js";
import { parseAllowEntry, type AllowEntry } from "./net-allow.js";
import type { CapabilityStore } from "./capability-store.js";

export const CAPABILITY_DEFAULTS = {
  /** The largest response body a fetch reads (decoded). @default 5 MiB */
  maxResponseBytes: 5 * 1024 * 1024,
  /** The largest request body a fetch sends. @default 1 MiB */
  maxRequestBytes: 1024 * 1024,
  /** Fetches one call may make (each redirect counts). @default 16 */
  maxRequests: 16,
  /** Redirects one fetch follows. @default 5 */
  maxRedirects: 5,
  /** The largest file ctx.fs reads or writes. @default 10 MiB */
  maxFileBytes: 10 * 1024 * 1024,
  /** Entries one readdir returns. @default 10000 */
  maxDirEntries: 10_000,
  /** Bytes (keys + JSON values) one source may keep in ctx.state. @default 1 MiB */
  quotaBytes: 1024 * 1024,
  /** Keys one source may keep in ctx.state. @default 1000 */
  maxKeys: 1000,
  /** The longest state key, in characters. @default 512 */
  maxKeyChars: 512,
  /** Tokens one call may ask its caller's model for (ctx.sample's maxTokens, summed). @default 4000 */
  maxTokensPerCall: 4000,
  /** Tokens one source may ask for per hour, in one host. @default 50000 */
  maxTokensPerHour: 50_000,
} as const;

const NetGrant = z.strictObject({
  /** Origins a tool may fetch: `https://api.example.com`, `*.example.com`, `http://127.0.0.1:8080`. */
  allow: z.array(z.string().min(1).max(300)).max(1000),
  maxResponseBytes: z.number().int().min(1).max(1024 * 1024 * 1024).optional(),
  maxRequestBytes: z.number().int().min(0).max(1024 * 1024 * 1024).optional(),
  maxRequests: z.number().int().min(1).max(10_000).optional(),
  maxRedirects: z.number().int().min(0).max(20).optional(),
});
const FsGrant = z.strictObject({
  /** The workspace folder; paths inside a tool are relative to it. */
  root: z.string().min(1),
  maxFileBytes: z.number().int().min(1).max(1024 * 1024 * 1024).optional(),
  maxDirEntries: z.number().int().min(1).max(1_000_000).optional(),
});
const StateGrant = z.strictObject({
  quotaBytes: z.number().int().min(1).max(1024 * 1024 * 1024).optional(),
  maxKeys: z.number().int().min(1).max(1_000_000).optional(),
});

const SamplingGrant = z.strictObject({
  maxTokensPerCall: z.number().int().min(1).max(10_000_000).optional(),
  maxTokensPerHour: z.number().int().min(1).max(1_000_000_000).optional(),
});

export const CapabilityGrant = z.strictObject({ net: NetGrant.optional(), fs: FsGrant.optional(), state: StateGrant.optional(), sampling: SamplingGrant.optional() });
export type CapabilityGrant = z.infer<typeof CapabilityGrant>;

const isCapabilityStore = (value: unknown): value is CapabilityStore =>
  typeof value === "object" && value !== null && ["stateGet", "stateSet", "recordUse", "readUses", "close"].every((name) => typeof (value as Record<string, unknown>)[name] === "function");

export const CapabilitiesOptions = CapabilityGrant.extend({
  /** Per source kind (`agent`, `plugin`, `host`) or source id (`agent:x`); an id wins over its kind. */
  sources: z.record(z.string().min(1), CapabilityGrant).optional(),
  /**
   * Where state and capability use are kept. Default: tables in the ledger's
   * SQLite file, or memory for a memory ledger (and for a ledger store passed
   * in, which should bring its own CapabilityStore here).
   */
  store: z.custom<CapabilityStore>(isCapabilityStore, "store must be a CapabilityStore").optional(),
});
export type CapabilitiesOptions = z.infer<typeof CapabilitiesOptions>;

export type NetPolicy = {
  allow: AllowEntry[];
  maxResponseBytes: number;
  maxRequestBytes: number;
  maxRequests: number;
  maxRedirects: number;
};
export type FsPolicy = { root: string; maxFileBytes: number; maxDirEntries: number };
export type StatePolicy = { quotaBytes: number; maxKeys: number };
export type SamplingPolicy = { maxTokensPerCall: number; maxTokensPerHour: number };
/** What one source is granted; a missing section grants nothing. */
export type SourceGrant = { net?: NetPolicy; fs?: FsPolicy; state?: StatePolicy; sampling?: SamplingPolicy };

function resolveNet(grant: z.infer<typeof NetGrant>, where: string): NetPolicy {
  const allow = grant.allow.map((entry) => {
    const parsed = parseAllowEntry(entry);
    if (typeof parsed === "string") throw new CorralError("invalid_options", `options.${where}.net.allow: "${entry}" ${parsed}`);
    return parsed;
  });
  return {
    allow,
    maxResponseBytes: grant.maxResponseBytes ?? CAPABILITY_DEFAULTS.maxResponseBytes,
    maxRequestBytes: grant.maxRequestBytes ?? CAPABILITY_DEFAULTS.maxRequestBytes,
    maxRequests: grant.maxRequests ?? CAPABILITY_DEFAULTS.maxRequests,
    maxRedirects: grant.maxRedirects ?? CAPABILITY_DEFAULTS.maxRedirects,
  };
}

function resolveGrant(grant: CapabilityGrant, where: string): SourceGrant {
  const out: SourceGrant = {};
  if (grant.net !== undefined) out.net = resolveNet(grant.net, where);
  if (grant.fs !== undefined) {
    out.fs = {
      root: grant.fs.root,
      maxFileBytes: grant.fs.maxFileBytes ?? CAPABILITY_DEFAULTS.maxFileBytes,
      maxDirEntries: grant.fs.maxDirEntries ?? CAPABILITY_DEFAULTS.maxDirEntries,
    };
  }
  if (grant.state !== undefined) {
    out.state = { quotaBytes: grant.state.quotaBytes ?? CAPABILITY_DEFAULTS.quotaBytes, maxKeys: grant.state.maxKeys ?? CAPABILITY_DEFAULTS.maxKeys };
  }
  if (grant.sampling !== undefined) {
    out.sampling = {
      maxTokensPerCall: grant.sampling.maxTokensPerCall ?? CAPABILITY_DEFAULTS.maxTokensPerCall,
      maxTokensPerHour: grant.sampling.maxTokensPerHour ?? CAPABILITY_DEFAULTS.maxTokensPerHour,
    };
  }
  return out;
}

const GRANT_SECTIONS = ["net", "fs", "state", "sampling"] as const satisfies readonly (keyof SourceGrant)[];

/** Answers what a source is granted: its id's entry, else its kind's, else the host-wide one, per section. */
export type GrantResolver = (source: string) => SourceGrant;

export function createGrantResolver(options: CapabilitiesOptions | undefined): GrantResolver {
  const hostWide = resolveGrant(options ?? {}, "capabilities");
  const perSource = new Map<string, SourceGrant>();
  for (const [key, grant] of Object.entries(options?.sources ?? {})) {
    perSource.set(key, resolveGrant(grant, `capabilities.sources["${key}"]`));
  }
  return (source) => {
    const kind = source.slice(0, source.indexOf(":"));
    const byId = perSource.get(source);
    const byKind = perSource.get(kind);
    const pick = <K extends keyof SourceGrant>(key: K): SourceGrant[K] => byId?.[key] ?? byKind?.[key] ?? hostWide[key];
    const grant: SourceGrant = {};
    for (const section of GRANT_SECTIONS) {
      const picked = pick(section);
      if (picked !== undefined) (grant as Record<string, unknown>)[section] = picked;
    }
    return grant;
  };
}
