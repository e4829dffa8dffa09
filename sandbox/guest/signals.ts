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
