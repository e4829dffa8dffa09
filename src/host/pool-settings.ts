/**
 * @module src/host/pool-settings
 * The host options the sandbox pool and its workers take, as the pool names them.
 */
import type { ResolvedHostOptions } from "../options.js";

export function poolSettingsOf(options: ResolvedHostOptions) {
  return {
    workers: options.workers,
    spareWorkers: options.spareWorkers,
    pipelineDepth: options.pipelineDepth,
    quickPipelineDepth: options.quickPipelineDepth,
    watchdogGraceMs: options.watchdogGraceMs,
    workerMemorySlackMb: options.workerMemorySlackMb,
    worker: {
      maxWarmIsolates: options.maxWarmIsolates,
      maxWarmHeapMb: options.maxWarmHeapMb,
      loadTimeoutMs: options.loadTimeoutMs,
      defaultMemoryMb: options.defaultMemoryMb,
    },
  };
}
