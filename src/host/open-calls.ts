/**
 * @module src/host/open-calls
 * OpenCalls: the host's calls not yet settled, so close() can wait for
 * their records: a call the closing pool ends (cancelled, or its worker
 * stopped) still reaches the ledger before the ledger closes. A call still
 * waiting on a gate that never answers has no record to write, so the wait
 * is bounded (CLOSE_WAIT_MS).
 */
import type { ToolResult } from "../result.js";

/** How long close() waits for calls the closing pool ended to write their records. */
export const CLOSE_WAIT_MS = 2_000;

export class OpenCalls {
  readonly #calls = new Set<Promise<ToolResult>>();

  /** Keeps `call` until it settles; returns it. */
  track(call: Promise<ToolResult>): Promise<ToolResult> {
    this.#calls.add(call);
    const forget = () => this.#calls.delete(call);
    void call.then(forget, forget);
    return call;
  }

  /** Resolves when every call kept now has settled, or after `ms`, whichever comes first. */
  async settledWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.#calls]), waited]);
    clearTimeout(timer);
  }
}
