/**
 * @module sandbox/guest/tool-call
 * One call of a tool, inside the isolate: its input checked with the tool's
 * own schema, its `run`, its result or throw made an answer. Apart from
 * runtime.ts, which owns the runtime's setup and the entry points the worker
 * drives, because this is the code that meets the tool's values: every path
 * here runs tool code (getters, thenables, thrown objects) inside a try and
 * never throws or rejects itself. The runtime's own intrinsics only.
 */
import type { Tool } from "../sdk/index.js";
import type { GuestAnswer } from "../shared/guest-api.js";
import { intrinsics as I } from "./intrinsics.js";
import { NotPlainData, OutputTooLarge, type SerializeBudget } from "./serialize.js";
import { describeThrown } from "./describe-thrown.js";
import { isBlocked, isSignal } from "./signals.js";
import { isAllocationRefusal, issuesOf, summarise, type createAnswers } from "./answers.js";
import type { createCapabilityApi } from "./capability-api.js";
import type { createTalkBackApi } from "./talk-back-api.js";

export type ToolCallParts = {
  answers: ReturnType<typeof createAnswers>;
  /** `ctx.fs`, `ctx.state` and the talk-back (`ctx.progress`, `log`, `elicit`, `sample`): the host's capabilities for the current call. */
  capabilityApi: Readonly<ReturnType<typeof createCapabilityApi> & ReturnType<typeof createTalkBackApi>>;
  /** Whether a tool's results are written plain data only (a Code Mode script's: serialize's `plainOnly`). */
  plainOnly(tool: Tool): boolean;
};

/**
 * `invokeTool` runs a call: a tool whose `run` returns a plain value is
 * answered in that same entry; one that returns a promise (or any thenable)
 * is answered by the promise it returns. Never throws, never rejects.
 * `failCurrentCall` fails the call in progress (a timer callback of it threw).
 */
export function createToolCalls(parts: ToolCallParts) {
  const { successAnswer, errorAnswer, successRecord } = parts.answers;
  const { capabilityApi } = parts;
  /** Rejects the call in progress; a timer callback that throws fails it. */
  let rejectCurrentCall: ((error: unknown) => void) | undefined;

  function invokeTool(tool: Tool, name: string, inputJson: string, callId: string, budget: SerializeBudget): GuestAnswer | Promise<GuestAnswer> {
    let value: unknown;
    try {
      let input: unknown;
      try {
        input = I.JSONParse(inputJson);
      } catch {
        return errorAnswer("invalid_input", "the input is not valid JSON");
      }
      const parsed = tool.input.safeParse(input);
      if (!parsed.success) {
        const issues = issuesOf(parsed.error);
        return errorAnswer("invalid_input", `the input does not match the tool's schema: ${summarise(issues)}`, { issues });
      }
      value = I.apply(tool.run, tool, [parsed.data, I.ObjectFreeze({ callId, tool: name, ...capabilityApi })]);
      // A promise of the engine's is settled without reading its `then` (the tool may have replaced it by now).
      if (!I.isPromiseShaped(value) && !isThenable(value)) return answer(tool, value, budget);
    } catch (thrown) {
      return failureAnswer(thrown);
    }
    return settle(tool, value, budget);
  }

  /** Reading `then` may run the tool's own getter: that is tool code, inside invoke's try. */
  function isThenable(value: unknown): boolean {
    return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
  }

  /**
   * Waits for the tool's thenable through a promise of the runtime's own, so
   * a replaced Promise.prototype.then or species cannot stall the answer. A
   * real promise (an async `run`'s) is followed with captured intrinsics
   * only (I.follow): built-ins the tool replaced after computing its
   * answer are never consulted. Any other thenable is tool code: resolving
   * with it runs its own `then`.
   */
  function settle(tool: Tool, pending: unknown, budget: SerializeBudget): Promise<GuestAnswer> {
    return I.ownPromise<GuestAnswer>((resolveAnswer) => {
      const waiting = I.ownPromise<unknown>((resolve, reject) => {
        // A timer callback of this call that throws fails it: `waiting` is not
        // resolved with the tool's thenable (that would lock it to it), it
        // follows a promise that is.
        rejectCurrentCall = reject;
        I.follow(pending, resolve, reject);
      });
      I.ownThen(
        waiting,
        (value) => {
          rejectCurrentCall = undefined;
          resolveAnswer(answer(tool, value, budget));
        },
        (thrown) => {
          rejectCurrentCall = undefined;
          resolveAnswer(failureAnswer(thrown));
        },
      );
    });
  }

  /** The answer of what `run` gave; a result past the budget becomes an error answer. */
  function answer(tool: Tool, value: unknown, budget: SerializeBudget): GuestAnswer {
    try {
      const record = successRecord(tool, value);
      if (isAnswer(record)) return record;
      return successAnswer(record, parts.plainOnly(tool) ? { maxBytes: budget.maxBytes, maxDepth: budget.maxDepth, plainOnly: true } : budget);
    } catch (thrown) {
      return failureAnswer(thrown);
    }
  }

  function isAnswer(value: Record<string, unknown> | GuestAnswer): value is GuestAnswer {
    return I.ObjectGetPrototypeOf(value) !== null;
  }

  /** Never throws: describing the thrown value is guarded, and errorAnswer clips. */
  function failureAnswer(thrown: unknown): GuestAnswer {
    try {
      if (isSignal(thrown) && thrown instanceof OutputTooLarge) {
        return errorAnswer("output_too_large", `${thrown.reason}: return less data, or page through it`);
      }
      if (isSignal(thrown) && thrown instanceof NotPlainData) return errorAnswer("tool_error", notPlainMessage(thrown));
      const { message, stack } = describeThrown(thrown);
      // The host's policy or gate refused a capability and the tool let it through.
      if (isBlocked(thrown)) return errorAnswer("blocked", message);
      const failed = errorAnswer("tool_error", message, stack === undefined ? undefined : { stack });
      if (isAllocationRefusal(thrown)) failed.refused = true;
      return failed;
    } catch {
      return errorAnswer("tool_error", "the tool threw a value that could not be described");
    }
  }

  return {
    invokeTool,
    failCurrentCall(error: unknown): void {
      rejectCurrentCall?.(error);
    },
  };
}

/**
 * "the script returned a function at result.list[2]: ...": where, from the
 * script's value (the envelope's `structured`), or from the envelope for a
 * toolResult's other channels.
 */
function notPlainMessage(thrown: NotPlainData): string {
  const { path } = thrown;
  const start = path[0] === "structured" ? 1 : 0;
  let where = "";
  for (let i = start; i < path.length; i++) {
    const part = path[i] as string | number;
    if (typeof part === "number") where = `${where}[${part}]`;
    else if (part !== "" && I.stringIndexOf(part, ".") < 0 && I.stringIndexOf(part, "[") < 0 && I.stringIndexOf(part, '"') < 0 && I.stringIndexOf(part, " ") < 0) where = `${where}.${part}`;
    else where = `${where}[${I.JSONStringify(part)}]`;
  }
  const at = start === path.length ? "" : ` at result${where}`;
  return `the script returned a ${thrown.type}${at}: return plain data (JSON)`;
}
