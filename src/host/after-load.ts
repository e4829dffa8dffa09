/**
 * @module src/host/after-load
 * What follows a load the loader (loader.ts) finished, fresh or from the
 * caches: the log line, the ledger's record that the source exists, the
 * `tools_changed` event, and for a module of one tool whose manifests came
 * from a cache, the warm-up of its isolate while the caller moves on. And
 * what a `corral.load` span records of the result.
 */
import type { Logger } from "pino";
import { CorralError } from "../errors.js";
import type { EventHub } from "../events.js";
import type { Ledger } from "../ledger/index.js";
import type { ResolvedHostOptions } from "../options.js";
import type { SandboxPool } from "../pool/index.js";
import type { Catalog } from "../registry/index.js";
import type { LoadSummary } from "../telemetry/index.js";
import type { QuarantineView } from "./quarantine-view.js";
import { limitsOf, toolInfoOf } from "./tool-info.js";
import type { LoadResult } from "./types.js";

export type AfterLoadDeps = {
  options: ResolvedHostOptions;
  logger: Logger;
  catalog: Catalog;
  ledger: Ledger;
  events: EventHub;
  pool: SandboxPool;
  quarantine: QuarantineView;
  /** True once the host is closing: nothing more is warmed. */
  closed(): boolean;
};

export async function finishLoad(deps: AfterLoadDeps, result: LoadResult): Promise<LoadResult> {
  const { logger } = deps;
  if (!result.ok) {
    logger.info({ event: "load", source: result.source, outcome: result.error.kind }, "source failed to load");
    return result;
  }
  // After the caller's own next steps: a call made at once builds the
  // isolate itself (so the warm-up is skipped), and it does not wait for
  // the warm-up's message, whose write can cost a millisecond or more when
  // it wakes an idle worker on a virtual machine.
  if (result.manifestsFrom !== "worker") setImmediate(() => warmAhead(deps, result.source));
  const tools = deps.catalog.ofSource(result.source).map((entry) => toolInfoOf(deps.options, entry));
  // The ledger knows a source from its first successful load, before any
  // call: an operator's audit shows it and its tools with zero calls.
  // A ledger that cannot be reached (a server store in an outage) does not
  // fail the load: the source becomes known at its first recorded call.
  try {
    await deps.ledger.recordLoad({ source: result.source, version: result.version, tools: tools.map((t) => t.name) });
  } catch (error) {
    if (!(error instanceof CorralError && error.code === "ledger_unavailable")) throw error;
    logger.warn({ event: "load", source: result.source, err: error.message }, "the ledger could not record the load");
  }
  deps.events.emit({ type: "tools_changed", source: result.source, tools: tools.map((tool) => tool.name), at: Date.now() });
  logger.info({ event: "load", source: result.source, version: result.version, tools: tools.map((t) => t.name), cached: result.cached, manifestsFrom: result.manifestsFrom }, "source loaded");
  return { ...result, tools };
}

/**
 * A load that took its manifests from a cache ran no describe, so nothing
 * built the isolate a describe keeps for a module of one tool: build it
 * while the caller moves on, so a first call that comes a moment later
 * finds it warm as it would after a describe. Never for a quarantined
 * source, nor for a key a worker is home to (a call made at once).
 */
function warmAhead(deps: AfterLoadDeps, source: string): void {
  if (deps.closed()) return;
  const entries = deps.catalog.ofSource(source);
  const entry = entries[0];
  if (entries.length !== 1 || entry === undefined || entry.runner.kind !== "sandbox" || deps.quarantine.isQuarantined(source)) return;
  const tool = entry.manifest.name;
  const warm = deps.pool.warmAhead({ type: "warm", bundle: entry.runner.bundle, tool, limits: limitsOf(deps.options, entry, {}) });
  void warm?.then((outcome) => {
    const kind = outcome.ok ? outcome.reply.kind : outcome.kind;
    if (kind !== "ok") deps.logger.debug({ event: "warm_ahead", source, tool, kind }, "the tool's isolate was not built ahead; its first call builds it");
  });
}

/** What a `corral.load` span records of a load's result. */
export function summarizeLoad(result: LoadResult): LoadSummary {
  return result.ok
    ? { ok: true, source: result.source, version: result.version, tools: result.tools.length, cached: result.cached, manifestsFrom: result.manifestsFrom }
    : { ok: false, source: result.source, kind: result.error.kind, message: result.error.message };
}
