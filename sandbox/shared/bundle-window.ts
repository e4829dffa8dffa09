/**
 * @module sandbox/shared/bundle-window
 * Which bundles sent with their code inline (a host without a cache folder)
 * a worker still holds: the last BUNDLE_WINDOW it received, the oldest out
 * first. The worker keeps the code; the host keeps the same window per
 * worker, applying the same rule in the same order (the order of its
 * messages), so it sends a bundle's code only to a worker that lacks it
 * instead of with every call. Pure: both sides import it.
 */
import { BUNDLE_WINDOW } from "./tuning.js";

export class BundleWindow<V> {
  readonly #entries = new Map<string, V>();
  readonly #size: number;

  constructor(size = BUNDLE_WINDOW) {
    this.#size = size;
  }

  get(hash: string): V | undefined {
    return this.#entries.get(hash);
  }

  /**
   * Adds `hash` unless it is held (a held one keeps its place: arrival order,
   * not use, decides who leaves); answers whether it was added.
   */
  admit(hash: string, value: V): boolean {
    if (this.#entries.has(hash)) return false;
    if (this.#entries.size >= this.#size) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(hash, value);
    return true;
  }
}
