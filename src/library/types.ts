/**
 * @module src/library/types
 * The library of agent-written tools, as plain data: what a publish writes
 * (a module's source text under its content hash, one version per tool it
 * defines), what the stores answer, and why a publish is refused. The
 * manifests are kept as the JSON text corral checked; whoever reads them
 * back checks them again (checkManifestList): a row is never trusted more
 * than a fresh describe.
 */
import { z } from "zod";

/** sha256 of the module's source text, 64 lower-case hex digits. */
export const ContentHash = z.string().regex(/^[0-9a-f]{64}$/, "a content hash is a sha256 in 64 lower-case hex digits");
export const AgentId = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, "an agent id is 1-128 letters, digits, '_', '.' or '-'");
export const ToolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a tool name is 1-64 letters, digits, '_' or '-'");
export const VersionNumber = z.number().int().min(1);

/** One module an agent submitted, with the manifests of the tools it defines. */
export type PublishDraft = {
  agent: string;
  /** Who asked (a caller id: `mcp:<session>`, `model:<uuid>`); null for the embedding program. */
  caller: string | null;
  code: string;
  hash: string;
  /** The checked manifests, by tool name, as JSON text. */
  manifests: { name: string; json: string }[];
  at: number;
};

export type PublishLimits = { maxTools: number };

export type Published = { name: string; version: number; unchanged: boolean };

export type PublishOutcome =
  | { ok: true; tools: Published[] }
  | { ok: false; reason: "name_taken"; name: string; owner: string }
  | { ok: false; reason: "too_many_tools"; have: number; max: number };

/** A version as stored: the module it runs and the manifest corral checked. */
export const StoredVersion = z.strictObject({
  name: ToolName,
  version: VersionNumber,
  agent: AgentId,
  hash: ContentHash,
  manifestJson: z.string(),
  caller: z.string().nullable(),
  createdAt: z.number().int().nonnegative(),
});
export type StoredVersion = z.infer<typeof StoredVersion>;

/** A tool of the library: its owner, its current version, and whether it was retired. */
export const StoredTool = z.strictObject({
  name: ToolName,
  agent: AgentId,
  current: VersionNumber,
  versions: z.number().int().min(1),
  retiredAt: z.number().int().nonnegative().nullable(),
  updatedAt: z.number().int().nonnegative(),
});
export type StoredTool = z.infer<typeof StoredTool>;

/** A live tool with its current version: what a host serves. */
export type CurrentTool = StoredTool & { hash: string; manifestJson: string };

export type Change = { ok: true; tool: StoredTool } | { ok: false; reason: "not_found" | "no_such_version"; message: string };
