/**
 * @module src/pool
 * The sandbox worker pool, its sessions and watchdog, and admission in front
 * of it: the host's side of the boundary.
 */
export { SandboxPool, WORKER_EXEC_ARGV, type PoolOutcome, type PoolFailureKind, type SandboxPoolOptions } from "./sandbox-pool.js";
export type { FastCulprit } from "./session.js";
export type { CapabilityHandler, CapabilityHooks } from "./session.js";
export type { NestedOutcome } from "./nested-calls.js";
export { Admission, type AdmissionLimits } from "./admission.js";
