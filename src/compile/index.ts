/**
 * @module src/compile
 * Compiling tool sources: the esbuild run, its import policy, and the cache.
 */
export { BundleCache, type CompiledBundle, type CompileResult } from "./cache.js";
export { type BundleInput, sha256 } from "./bundle.js";
export { writeAtomically } from "./write-atomically.js";
export { PROVIDED_MODULES } from "./import-policy.js";
