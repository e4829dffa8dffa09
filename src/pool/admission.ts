/**
 * @module src/pool/admission
 * Back-pressure in front of the pool: at most `maxInFlight` calls run at once
 * (and `maxInFlightPerTool` of one tool), at most `maxQueue` wait; a call past
 * the queue is refused at once (`busy`) rather than waiting for ever. Waiting
 * calls keep their order per tool, honour their abort signal, and are all
 * settled by close().
 *
 * A slot is held from admission until the caller releases it, so a call's
 * queueing time is never counted against its timeout: the pool's watchdog
 * starts only when a worker takes the task.
 */

export type AdmissionLimits = { maxInFlight: number; maxInFlightPerTool: number; maxQueue: number };

export type Admitted = { ok: true; release: () => void };
export type Refused = { ok: false; reason: "busy" | "cancelled" | "closed"; message: string };

type Waiter = {
  tool: string;
  grant: (admitted: Admitted | Refused) => void;
  detach: () => void;
};

export class Admission {
  readonly #limits: AdmissionLimits;
  readonly #running = new Map<string, number>();
  #runningTotal = 0;
  readonly #waiting: Waiter[] = [];
  #closed = false;

  constructor(limits: AdmissionLimits) {
    this.#limits = limits;
  }

  get running(): number {
    return this.#runningTotal;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  admit(tool: string, signal?: AbortSignal): Promise<Admitted | Refused> | Admitted | Refused {
    if (this.#closed) return { ok: false, reason: "closed", message: "the host is closing" };
    if (signal?.aborted) return { ok: false, reason: "cancelled", message: "the call was cancelled before it started" };
    if (this.#waiting.length === 0 && this.#fits(tool)) return this.#grant(tool);
    if (this.#waiting.length >= this.#limits.maxQueue) {
      return {
        ok: false,
        reason: "busy",
        message: `the host is busy: ${this.#runningTotal} calls running and ${this.#waiting.length} waiting (maxQueue ${this.#limits.maxQueue}); retry later`,
      };
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#remove(waiter);
        resolve({ ok: false, reason: "cancelled", message: "the call was cancelled while it waited for a worker" });
      };
      const waiter: Waiter = {
        tool,
        grant: resolve,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #fits(tool: string): boolean {
    return this.#runningTotal < this.#limits.maxInFlight && (this.#running.get(tool) ?? 0) < this.#limits.maxInFlightPerTool;
  }

  #grant(tool: string): Admitted {
    this.#runningTotal++;
    this.#running.set(tool, (this.#running.get(tool) ?? 0) + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#runningTotal--;
        const left = (this.#running.get(tool) ?? 1) - 1;
        if (left === 0) this.#running.delete(tool);
        else this.#running.set(tool, left);
        this.#drain();
      },
    };
  }

  /** Starts every waiter that now fits, oldest first; a blocked tool does not block others. */
  #drain(): void {
    for (let i = 0; i < this.#waiting.length && this.#runningTotal < this.#limits.maxInFlight; ) {
      const waiter = this.#waiting[i] as Waiter;
      if (!this.#fits(waiter.tool)) {
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      waiter.detach();
      waiter.grant(this.#grant(waiter.tool));
    }
  }

  #remove(waiter: Waiter): void {
    const index = this.#waiting.indexOf(waiter);
    if (index >= 0) this.#waiting.splice(index, 1);
    waiter.detach();
  }

  /** Refuses every waiting call; running calls are ended by the pool. */
  close(): void {
    this.#closed = true;
    for (const waiter of this.#waiting.splice(0)) {
      waiter.detach();
      waiter.grant({ ok: false, reason: "closed", message: "the host was closed before the call started" });
    }
  }
}
