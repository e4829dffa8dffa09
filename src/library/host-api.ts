/**
 * @module src/library/host-api
 * The library as the host's public API (`host.library`) and `host.author`'s
 * checks before a publish: the agent id, the agent's quarantine. Arguments
 * from the embedding program are checked here, with errors that name the
 * method and what it takes.
 */
import { z } from "zod";
import { checkArgument } from "../arguments/check.js";
import type { SourceState } from "../ledger/index.js";
import type { LoadResult } from "../host/types.js";
import type { ToolLibrary } from "./library.js";
import { AgentId, ToolName, VersionNumber, type Published, type StoredTool, type StoredVersion } from "./types.js";

/** A tool of the library, retired ones too. */
export type LibraryTool = StoredTool;
/** A version of a library tool, with the manifest corral checked when it was published (`manifest` is its JSON text). */
export type LibraryVersion = StoredVersion;

export type HostLibrary = {
  /** Settles once the library's tools are in this host's catalog: `tools()` and `declarations()` list them from then on (`call` waits for it itself). */
  ready(): Promise<void>;
  /** The library's tools, retired ones too; one agent's with `{ agent }`. */
  tools(options?: { agent?: string }): Promise<LibraryTool[]>;
  /** One tool's versions, newest first. */
  versions(name: string): Promise<LibraryVersion[]>;
  /** Makes `version` current again on every host of the store (a retired tool becomes live). `agent`: only if it owns the tool. */
  rollback(name: string, version: number, options?: { agent?: string }): Promise<LibraryTool>;
  /** No longer offered nor callable on any host of the store; its versions and its ledger record stay. */
  retire(name: string, options?: { agent?: string }): Promise<LibraryTool>;
};

const AgentOption = z.strictObject({ agent: AgentId.optional() }).optional();

export function hostLibrary(library: ToolLibrary, assertAlive: () => void): HostLibrary {
  return {
    ready: () => library.ready(),
    async tools(options) {
      assertAlive();
      const { agent } = checkArgument("host.library.tools(options)", "options", AgentOption, options, "{ agent?: string }") ?? {};
      return library.tools(agent);
    },
    async versions(name) {
      assertAlive();
      return library.versions(checkArgument("host.library.versions(name)", "name", ToolName, name, "a tool name"));
    },
    async rollback(name, version, options) {
      assertAlive();
      const method = "host.library.rollback(name, version, options)";
      const { agent } = checkArgument(method, "options", AgentOption, options, "{ agent?: string }") ?? {};
      return library.rollback(checkArgument(method, "name", ToolName, name, "a tool name"), checkArgument(method, "version", VersionNumber, version, "a version number (1, 2, …)"), agent);
    },
    async retire(name, options) {
      assertAlive();
      const method = "host.library.retire(name, options)";
      const { agent } = checkArgument(method, "options", AgentOption, options, "{ agent?: string }") ?? {};
      return library.retire(checkArgument(method, "name", ToolName, name, "a tool name"), agent);
    },
  };
}

export type AuthorDeps = { library: ToolLibrary; check(source: string): Promise<SourceState> };

/** host.author: an agent id corral accepts, not quarantined, then the library's publish. */
export async function authorTools(deps: AuthorDeps, agent: string, caller: string | null, code: string): Promise<LoadResult & { versions?: Published[] }> {
  const source = `agent:${agent}`;
  if (!AgentId.safeParse(agent).success) return { ok: false, source, error: { kind: "compile_error", message: "an agent id is 1-128 letters, digits, '_', '.' or '-'" } };
  const state = await deps.check(source);
  if (state.state === "quarantined") {
    return { ok: false, source, error: { kind: "quarantined", message: `${source} is quarantined (${state.reason}); it cannot register tools until an operator releases it` } };
  }
  return deps.library.publish(agent, caller, code);
}
