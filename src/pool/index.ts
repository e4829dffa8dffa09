/**
 * @module src/pool
 * The sandbox worker pool and its watchdog: the host's side of the boundary.
 */
export { SandboxPool, WORKER_EXEC_ARGV, type PoolOutcome, type PoolFailureKind, type SandboxPoolOptions } from "./sandbox-pool.js";
export { Admission, type AdmissionLimits } from "./admission.js";
