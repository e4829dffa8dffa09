/**
 * @module src/capabilities/talk-back
 * The host's side of a tool's talk-back (sandbox/shared/talk-back.ts):
 * whom a call's progress, log messages, questions and samples go to. The
 * caller gives the handlers with the call (CallOptions): the MCP session
 * passes its client's (progress and log notifications, elicitation,
 * sampling), the conversation loop its events, a program its own. A call
 * whose caller gave no handler drops its notices and has its questions and
 * samples refused, naming why. The broker (broker.ts) judges each request
 * first; here they are performed, and a sampling budget is kept.
 */
import { z } from "zod";
import { ElicitAnswer, SampleAnswer, type ElicitRequest, type LogLevel, type SampleRequest } from "../../sandbox/shared/talk-back.js";
import { CapabilityError } from "./capability-error.js";
import type { SamplingPolicy } from "./options.js";

/** Who a talk-back is from: the call, its tool and source. */
export type TalkBackCall = { callId: string; tool: string; source: string };

export type ToolProgress = TalkBackCall & { progress: number; total?: number; message?: string };
export type ToolLog = TalkBackCall & { level: LogLevel; data: unknown; logger?: string };

/** What a tool asks its caller's user: the question (the tool's words) and the form. */
export type ElicitQuestion = Omit<ElicitRequest, "kind">;
/** What a tool asks its caller's model for (MCP's sampling/createMessage params). */
export type SampleParams = Omit<SampleRequest, "kind">;

/** The handlers a caller gives with a call (CallOptions); each is optional. */
export type TalkBack = {
  /** The tool reported progress (ctx.progress). */
  onProgress?: (progress: ToolProgress) => void;
  /** The tool sent a log message (ctx.log). */
  onLog?: (log: ToolLog) => void;
  /** Puts a tool's question to the caller's user; the call's clock stops while they answer. */
  elicitUser?: (question: ElicitQuestion, context: TalkBackCall & { signal: AbortSignal | undefined }) => Promise<ElicitAnswer>;
  /** Asks the caller's model; the call's clock stops meanwhile. */
  sampleModel?: (request: SampleParams, context: TalkBackCall & { signal: AbortSignal | undefined }) => Promise<SampleAnswer>;
};

const handler = <K extends keyof TalkBack>(what: string) => z.custom<NonNullable<TalkBack[K]>>((value) => typeof value === "function", `${what} is a function`).optional();
/** The talk-back fields of CallOptions, as host.call checks them. */
export const TalkBackOptions = {
  onProgress: handler<"onProgress">("onProgress(progress)"),
  onLog: handler<"onLog">("onLog(log)"),
  elicitUser: handler<"elicitUser">("elicitUser(question, context) => Promise<{ action, content? }>"),
  sampleModel: handler<"sampleModel">("sampleModel(request, context) => Promise<{ role, content, model }>"),
};

const NO_TALK_BACK: TalkBack = Object.freeze({});

/** The handlers among `options`, for the call's capability requests (one shared empty object when there are none). */
export function talkBackOf(options: TalkBack): TalkBack {
  if (options.onProgress === undefined && options.onLog === undefined && options.elicitUser === undefined && options.sampleModel === undefined) return NO_TALK_BACK;
  const out: TalkBack = {};
  if (options.onProgress !== undefined) out.onProgress = options.onProgress;
  if (options.onLog !== undefined) out.onLog = options.onLog;
  if (options.elicitUser !== undefined) out.elicitUser = options.elicitUser;
  if (options.sampleModel !== undefined) out.sampleModel = options.sampleModel;
  return out;
}

/** Waits for a handler's answer, or the call's end (its signal), whichever first. */
async function untilAnswered<T>(answer: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return answer;
  if (signal.aborted) throw new CapabilityError("failed", "the call was cancelled");
  let stop: () => void = () => {};
  const cancelled = new Promise<never>((_, reject) => {
    const onAbort = () => reject(new CapabilityError("failed", "the call was cancelled while its caller was asked"));
    signal.addEventListener("abort", onAbort, { once: true });
    stop = () => signal.removeEventListener("abort", onAbort);
  });
  try {
    return await Promise.race([answer, cancelled]);
  } finally {
    stop();
  }
}

function failed(what: string, error: unknown): CapabilityError {
  if (error instanceof CapabilityError) return error;
  return new CapabilityError("failed", `${what} failed: ${error instanceof Error ? error.message.slice(0, 300) : "no answer"}`);
}

type AskContext = TalkBackCall & { signal: AbortSignal | undefined };

/** The handler's answer, checked against `schema`; its failure, or an answer of another shape, is a `failed` use. */
async function answerOf<T>(asking: () => Promise<unknown>, signal: AbortSignal | undefined, what: string, schema: z.ZodType<T>, expected: string): Promise<T> {
  let answer: unknown;
  try {
    answer = await untilAnswered(asking(), signal);
  } catch (error) {
    throw failed(what, error);
  }
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new CapabilityError("failed", `the answer to ${what} was not ${expected}`);
  return parsed.data;
}

const NOBODY = {
  elicit: "nobody can be asked here: this call's caller gave no way to reach its user (an MCP client without elicitation, or host.call without elicitUser)",
  sample: "no model can be asked here: this call's caller gave none (an MCP client without sampling, or host.call without sampleModel)",
} as const;

/** Throws the refusal a question or a sample gets when the call's caller gave no handler for it (checked before any budget is charged). */
export function assertCanAsk(talkBack: TalkBack, kind: keyof typeof NOBODY): void {
  if ((kind === "elicit" ? talkBack.elicitUser : talkBack.sampleModel) === undefined) throw new CapabilityError("refused", NOBODY[kind]);
}

export async function askUser(talkBack: TalkBack, question: ElicitQuestion, context: AskContext): Promise<ElicitAnswer> {
  assertCanAsk(talkBack, "elicit");
  const elicitUser = talkBack.elicitUser as NonNullable<TalkBack["elicitUser"]>;
  return answerOf(() => elicitUser(question, context), context.signal, "asking the user", ElicitAnswer, "{ action: accept | decline | cancel, content? } with flat values");
}

export async function askModel(talkBack: TalkBack, request: SampleParams, context: AskContext): Promise<SampleAnswer> {
  assertCanAsk(talkBack, "sample");
  const sampleModel = talkBack.sampleModel as NonNullable<TalkBack["sampleModel"]>;
  return answerOf(() => sampleModel(request, context), context.signal, "asking the model", SampleAnswer, "{ role: assistant, content, model }");
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Tokens sampled per source, in this host, per hour (a window that starts
 * with the source's first sample after the last one ended). A request is
 * charged its `maxTokens` before it is sent: no protocol says what a client
 * spent, so the budget holds what a tool may ask for, not what it got.
 */
export class SamplingBudget {
  readonly #windows = new Map<string, { startedAt: number; used: number }>();

  /** Charges `tokens` to the call's and the source's budgets, or throws `too_large` naming the one it would pass. */
  charge(source: string, call: { sampledTokens: number }, tokens: number, policy: SamplingPolicy): void {
    if (call.sampledTokens + tokens > policy.maxTokensPerCall) {
      throw new CapabilityError("too_large", `this sample's ${tokens} tokens would bring the call to ${call.sampledTokens + tokens}, past its budget of ${policy.maxTokensPerCall} (capabilities.sampling.maxTokensPerCall)`);
    }
    const now = Date.now();
    let window = this.#windows.get(source);
    if (window === undefined || now - window.startedAt >= HOUR_MS) {
      window = { startedAt: now, used: 0 };
      this.#windows.set(source, window);
    }
    if (window.used + tokens > policy.maxTokensPerHour) {
      const minutes = Math.ceil((window.startedAt + HOUR_MS - now) / 60_000);
      throw new CapabilityError("too_large", `${source} has asked for ${window.used} tokens this hour; ${tokens} more would pass its budget of ${policy.maxTokensPerHour} (capabilities.sampling.maxTokensPerHour); it renews in ${minutes} min`);
    }
    window.used += tokens;
    call.sampledTokens += tokens;
  }
}
