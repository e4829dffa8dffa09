/**
 * @module sandbox/worker/bundle-store
 * Bundle code by content hash. The host sends code inline or the path of its
 * cache file; either way the sha256 must match the hash the host named, so a
 * worker never runs code under another bundle's name.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { BundleRef } from "../protocol.js";

const MAX_BUNDLES = 256;
const bundles = new Map<string, string>();

export function bundleCode(ref: BundleRef): string {
  const known = bundles.get(ref.hash);
  if (known !== undefined) return known;
  const code = ref.code ?? (ref.path !== undefined ? readFileSync(ref.path, "utf8") : undefined);
  if (code === undefined) throw new Error(`bundle ${ref.hash.slice(0, 12)} is unknown to this worker and came without code`);
  const actual = createHash("sha256").update(code).digest("hex");
  if (actual !== ref.hash) throw new Error(`bundle ${ref.hash.slice(0, 12)} does not match its hash (got ${actual.slice(0, 12)})`);
  if (bundles.size >= MAX_BUNDLES) bundles.delete(bundles.keys().next().value as string);
  bundles.set(ref.hash, code);
  return code;
}
