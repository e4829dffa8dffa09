/**
 * @module sandbox/worker/bundle-store
 * Bundle code by content hash. The host sends the path of its cache file, or
 * the code inline the first time this worker needs it (see
 * sandbox/shared/bundle-window.ts): inline code is taken as its message arrives,
 * so what this worker holds follows the host's messages exactly. Either way
 * the sha256 must match the hash the host named, so a worker never runs code
 * under another bundle's name.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { BundleRef } from "../shared/task-parts.js";
import { BundleWindow } from "../shared/bundle-window.js";
import { DISK_BUNDLES_KEPT } from "../shared/tuning.js";

/** Bundles read from the host's cache folder, kept by the same rule as inline ones. */
const fromDisk = new BundleWindow<string>(DISK_BUNDLES_KEPT);
/** Inline code as received; `matches` is false when its sha256 is not its hash (the run then fails). */
const received = new BundleWindow<{ code: string; matches: boolean }>();

function sha256(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

/** Called for every bundle of a message from the host, in order, as it arrives. */
export function receiveBundle(ref: BundleRef): void {
  if (ref.code === undefined || received.get(ref.hash) !== undefined) return;
  received.admit(ref.hash, { code: ref.code, matches: sha256(ref.code) === ref.hash });
}

export function bundleCode(ref: BundleRef): string {
  const inline = received.get(ref.hash);
  if (inline !== undefined) {
    if (!inline.matches) throw mismatch(ref.hash, inline.code);
    return inline.code;
  }
  // Code this worker was handed directly (its own warm-up), not by a message.
  if (ref.code !== undefined) {
    if (sha256(ref.code) !== ref.hash) throw mismatch(ref.hash, ref.code);
    return ref.code;
  }
  const known = fromDisk.get(ref.hash);
  if (known !== undefined) return known;
  if (ref.path === undefined) throw new Error(`bundle ${ref.hash.slice(0, 12)} is unknown to this worker and came without code`);
  const code = readFileSync(ref.path, "utf8");
  if (sha256(code) !== ref.hash) throw mismatch(ref.hash, code);
  fromDisk.admit(ref.hash, code);
  return code;
}

function mismatch(hash: string, code: string): Error {
  return new Error(`bundle ${hash.slice(0, 12)} does not match its hash (got ${sha256(code).slice(0, 12)})`);
}
