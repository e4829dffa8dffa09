/**
 * @module sandbox/worker/guest-bridge
 * The worker's typed wrappers over the guest runtime's API (GuestApi in
 * sandbox/shared/guest-api.ts). The References are taken once, by the keys
 * of that one declared type; every call passes one typed argument list and
 * copies plain data both ways; every answer is checked before it is trusted.
 * An answer of the wrong shape is corral's own failure (GuestContractError),
 * never a tool's outcome.
 */
import type IsolatedVM from "isolated-vm-types";
import { isGuestAnswer, type GuestAnswer, type GuestApi, type GuestLoadAnswer, type StartRequest } from "../shared/guest-api.js";

type Reference = IsolatedVM.Reference<unknown>;

/** The guest runtime answered outside its declared type: a bug of corral's, not the tool's. */
export class GuestContractError extends Error {
  constructor(what: string) {
    super(`the corral runtime broke its contract: ${what}`);
    this.name = "GuestContractError";
  }
}

const API_KEYS = ["load", "describe", "start", "poll", "fire", "warm", "capability"] as const satisfies readonly (keyof GuestApi)[];
type ApiKey = (typeof API_KEYS)[number];

const COPY = { arguments: { copy: true }, result: { copy: true } } as const;

export class GuestBridge {
  readonly #refs: Record<ApiKey, Reference>;

  /** `api` is the runtime script's completion value, by reference. */
  constructor(api: IsolatedVM.Reference<GuestApi>) {
    const refs = {} as Record<ApiKey, Reference>;
    for (const key of API_KEYS) refs[key] = api.getSync(key, { reference: true }) as Reference;
    this.#refs = refs;
  }

  load(factory: Reference, timeoutMs: number): GuestLoadAnswer {
    const answer = this.#refs.load.applySync(undefined, [factory.derefInto()], { result: { copy: true }, timeout: timeoutMs }) as unknown;
    if (typeof answer !== "object" || answer === null || typeof (answer as { ok?: unknown }).ok !== "boolean") {
      throw new GuestContractError("load answered something that is not a load answer");
    }
    const loaded = answer as GuestLoadAnswer;
    if (!loaded.ok && typeof loaded.message !== "string") throw new GuestContractError("load refused without a message");
    return loaded;
  }

  describe(maxBytes: number, timeoutMs: number): GuestAnswer {
    return checked(this.#refs.describe.applySync(undefined, [maxBytes], { ...COPY, timeout: timeoutMs }), "describe");
  }

  start(request: StartRequest, timeoutMs: number): GuestAnswer | null {
    const answer = this.#refs.start.applySync(undefined, [request], { ...COPY, timeout: timeoutMs }) as unknown;
    return answer === null ? null : checked(answer, "start");
  }

  poll(seq: number, timeoutMs: number): GuestAnswer | "pending" | null {
    const answer = this.#refs.poll.applySync(undefined, [seq], { ...COPY, timeout: timeoutMs }) as unknown;
    return answer === null || answer === "pending" ? answer : checked(answer, "poll");
  }

  async fire(timeoutMs: number): Promise<number> {
    const next = (await this.#refs.fire.apply(undefined, [], { result: { copy: true }, timeout: timeoutMs })) as unknown;
    return typeof next === "number" ? next : -1;
  }

  /**
   * Delivers the host's answer to capability request `seq` of the running
   * call, and its payload: copied into the isolate once, as an ArrayBuffer
   * the isolate's allocator counts (past its limit isolated-vm throws a
   * RangeError here and leaves the isolate as it was).
   */
  capability(seq: number, answerJson: string, payload: ArrayBuffer | string | undefined, timeoutMs: number): void {
    const args = payload === undefined ? [seq, answerJson] : [seq, answerJson, payload];
    this.#refs.capability.applySync(undefined, args, { arguments: { copy: true }, timeout: timeoutMs });
  }

  warm(timeoutMs: number): void {
    this.#refs.warm.applySync(undefined, [], { timeout: timeoutMs });
  }

  release(): void {
    for (const key of API_KEYS) {
      try {
        this.#refs[key].release();
      } catch {
        // released with the isolate already
      }
    }
  }
}

function checked(answer: unknown, entry: string): GuestAnswer {
  if (!isGuestAnswer(answer)) throw new GuestContractError(`${entry} answered something that is not an answer`);
  return answer;
}
