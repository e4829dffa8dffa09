// Not a case: what the published-escape cases (escape-vm2-*, escape-ivm-*,
// escape-ses-*) share. Each case recreates an advisory's proof-of-concept
// shape inside a corral tool; a sandbox of vm2's kind fell when such a value
// led to the host realm's Function constructor. In a correct corral isolate
// every value a tool can reach belongs to its own context, so every climb
// below finds this realm's Function and no `process`, `require` or `Buffer`.

const OWN_FUNCTION = Function;
/** This realm's other function constructors: same global as Function, so not foreign. */
const OWN_CONSTRUCTORS = new Set<unknown>([
  OWN_FUNCTION,
  Object.getPrototypeOf(async function () {}).constructor,
  Object.getPrototypeOf(function* () {}).constructor,
  Object.getPrototypeOf(async function* () {}).constructor,
]);

/** What a candidate Function constructor reaches: "" when nothing, else what it found. */
export function reach(candidate: unknown): string {
  if (typeof candidate !== "function") return "";
  if (!OWN_CONSTRUCTORS.has(candidate)) {
    // Another realm's Function would be the escape itself; look what it sees.
    try {
      const seen = (candidate as FunctionConstructor)("return [typeof process, typeof require, typeof Buffer].join()")() as string;
      return `a foreign Function (${seen})`;
    } catch {
      return "";
    }
  }
  return OWN_REACH;
}

/** What this realm's own Function reaches, asked once (compiling a body per climb is slow). */
const OWN_REACH = ((): string => {
  try {
    const seen = OWN_FUNCTION("return [typeof process, typeof require, typeof Buffer].join()")() as string;
    return seen === "undefined,undefined,undefined" ? "" : `host names (${seen})`;
  } catch {
    return "";
  }
})();

/** Climbs a value's constructors and prototypes (as the advisories do) and reports the first escape. */
export function climb(value: unknown): string {
  let current: unknown = value;
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth++) {
    try {
      const ctor = (current as { constructor?: { constructor?: unknown } }).constructor;
      const found = reach(ctor) || reach(ctor?.constructor);
      if (found !== "") return found;
      current = Object.getPrototypeOf(current);
    } catch {
      return "";
    }
  }
  return "";
}

/** Collects escapes under names; `verdict` answers "contained" or what escaped where. */
export class Findings {
  readonly #found: string[] = [];

  check(where: string, value: unknown): void {
    const found = climb(value);
    if (found !== "") this.#found.push(`${where}: ${found}`);
  }

  /** Runs an attempt; whatever it throws is climbed too. */
  attempt(where: string, fn: () => unknown): void {
    try {
      this.check(where, fn());
    } catch (error) {
      this.check(`${where} (thrown)`, error);
    }
  }

  async attemptAsync(where: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      this.check(where, await fn());
    } catch (error) {
      this.check(`${where} (rejected)`, error);
    }
  }

  verdict(): string {
    return this.#found.length === 0 ? "contained" : `escaped: ${this.#found.join("; ")}`;
  }
}

/**
 * Recurses to the edge of the stack, then calls `fn` once in each of the
 * first `levels` frames on the way back, so that at some depth the overflow
 * happens inside `fn` (runtime code) rather than in the call to it: a host
 * error raised there is what vm2 leaked. No call may happen between catching
 * and storing (assignments only), or the store itself would overflow.
 */
export function atStackEdge(fn: () => unknown, levels = 64): unknown[] {
  const caught: unknown[] = new Array(levels).fill(undefined);
  let remaining = -1;
  const recurse = (): void => {
    try {
      recurse();
    } catch {
      remaining = levels;
      return;
    }
    if (remaining > 0) {
      remaining--;
      try {
        caught[remaining] = fn();
      } catch (error) {
        caught[remaining] = error;
      }
    }
  };
  recurse();
  return caught;
}

/** Every function the runtime lends a tool: the values a hostile tool calls to meet runtime code. */
export function lentFunctions(): Array<[string, unknown]> {
  const g = globalThis as Record<string, unknown>;
  const consoleObject = g.console as Record<string, unknown> | undefined;
  return [
    ["setTimeout", g.setTimeout],
    ["clearTimeout", g.clearTimeout],
    ["setInterval", g.setInterval],
    ["clearInterval", g.clearInterval],
    ["queueMicrotask", g.queueMicrotask],
    ["console.log", consoleObject?.log],
    ["console.error", consoleObject?.error],
    ["structuredClone", g.structuredClone],
  ];
}
