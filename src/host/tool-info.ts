/**
 * @module src/host/tool-info
 * What the host tells about a tool from its catalog entry and the host's
 * options: the limits a call of it runs under (the caller's ask, the tool's
 * own, the host's default, capped by the host's maxima) and the ToolInfo
 * that tools() and a load's result list; and the declarations a model is
 * given. One function for the limits, so a call, a warm-up and the listing
 * never disagree.
 */
import type { CallLimits } from "../../sandbox/shared/task-parts.js";
import { TOOL_SEARCH } from "../builtins/index.js";
import { RUN_CODE, type CodeMode } from "../codemode/index.js";
import type { ResolvedHostOptions } from "../options.js";
import { declare, type CatalogEntry } from "../registry/index.js";
import type { CallOptions, DeclarationOptions, ToolDeclaration, ToolInfo } from "./types.js";

export function limitsOf(o: ResolvedHostOptions, entry: CatalogEntry, options: CallOptions): CallLimits {
  const timeoutMs = Math.min(options.timeoutMs ?? entry.manifest.limits.timeoutMs ?? o.defaultTimeoutMs, o.maxTimeoutMs);
  return { timeoutMs: Math.max(1, Math.floor(timeoutMs)), memoryMb: memoryMbOf(o, entry.manifest, options), maxOutputBytes: o.maxOutputBytes, maxDepth: o.maxDepth };
}

/** A call's memory limit: the caller's ask, the tool's own, the host's default, capped by the host's maximum (at least 8 MB). */
export function memoryMbOf(o: ResolvedHostOptions, manifest: CatalogEntry["manifest"], options: CallOptions = {}): number {
  return Math.max(8, Math.floor(Math.min(options.memoryMb ?? manifest.limits.memoryMb ?? o.defaultMemoryMb, o.maxMemoryMb)));
}

export function toolInfoOf(o: ResolvedHostOptions, entry: CatalogEntry): ToolInfo {
  const { manifest } = entry;
  const limits = limitsOf(o, entry, {});
  const info: ToolInfo = {
    name: manifest.name,
    description: manifest.description,
    source: entry.source,
    version: entry.version,
    inputSchema: manifest.inputSchema,
    effects: manifest.effects,
    exposure: manifest.exposure,
    limits: { timeoutMs: limits.timeoutMs, memoryMb: limits.memoryMb },
  };
  if (manifest.outputSchema !== undefined) info.outputSchema = manifest.outputSchema;
  return info;
}

/** The declarations a caller's model is given: what it may call now, by exposure and quarantine. */
export function declarationsFor(entries: CatalogEntry[], isQuarantined: (source: string) => boolean, codeMode: CodeMode | undefined, options: DeclarationOptions): ToolDeclaration[] {
  const activated = new Set([...(options.caller?.activated ?? []), ...(options.activated ?? [])]);
  const waiting = entries.some((entry) => entry.manifest.exposure === "deferred" && !activated.has(entry.manifest.name) && !isQuarantined(entry.source));
  // tool_search is declared only while deferred tools wait to be found.
  const declared = declare(entries, isQuarantined, activated).filter((d) => d.name !== TOOL_SEARCH || waiting);
  // run_code's description carries the declarations of what a script may call now.
  return codeMode === undefined ? declared : declared.map((d) => (d.name === RUN_CODE ? { ...d, description: codeMode.description(options.caller) } : d));
}
