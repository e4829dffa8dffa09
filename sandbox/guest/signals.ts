/**
 * @module sandbox/guest/signals
 * The runtime's own throwables (OutputTooLarge, ModuleError) are recognised
 * in catch blocks by identity in a WeakSet, never with `instanceof`: a tool
 * may throw a Proxy whose getPrototypeOf trap throws again, and a catch
 * block must not run tool code it did not mean to.
 */
import { intrinsics as I } from "./intrinsics.js";

const signals = new I.WeakSet<object>();

export function markSignal(value: object): void {
  I.weakSetAdd(signals, value);
}

/** True only for a throwable the runtime made itself. Runs no tool code. */
export function isSignal(value: unknown): boolean {
  return typeof value === "object" && value !== null && I.weakSetHas(signals, value);
}

/**
 * Refusals by the host's policy or gate (capability code `blocked`), as the
 * relay made them and as fetch wrapped them: an uncaught one ends the call
 * `blocked`, not `tool_error`. Recognised by identity, so a tool cannot make
 * its own error count as one; it can only let a real refusal through.
 */
const blockedRefusals = new I.WeakSet<object>();

export function markBlocked(value: object): void {
  I.weakSetAdd(blockedRefusals, value);
}

export function isBlocked(value: unknown): boolean {
  return typeof value === "object" && value !== null && I.weakSetHas(blockedRefusals, value);
}
