/**
 * @module src/capabilities/broker
 * The host's judge of capability requests. For each request of a running
 * call, in this order:
 *
 * ```
 * request ─▶ parse (zod) ─────────────────────── invalid
 *         ─▶ a notice (progress, log)? ─────────── the caller's handlers and events; counted, audited once per call
 *         ─▶ effect declared by the tool? ─────── undeclared (names the effect)
 *         ─▶ granted to the source? ───────────── not_granted (names the option)
 *         ─▶ effect policy: deny ──────────────── blocked
 *                           ask ─▶ gate (clock paused) ─ blocked
 *         ─▶ perform (fetch / fs / state) ─────── ok | refused | too_large | failed | timeout
 *            or ask the caller (elicit / sample, clock paused; talk-back.ts)
 *         ─▶ audit: pino line + counter and latest use in the capability store
 * ```
 *
 * `exec` is never a capability. The broker knows a call only between
 * `open` and the close it returns (the call path brackets the pool's run).
 */
import type { Logger } from "pino";
import { CapabilityRequest, type CapabilityAnswer, type CapabilityErrorCode, type CapabilityRequestMessage, type PayloadCaps, type WirePayload } from "../../sandbox/shared/capability-messages.js";
import type { Effect } from "../../sandbox/shared/tool-vocabulary.js";
import { askGate, type BeforeToolCall, type GateContext, type ResolvedEffectPolicy } from "../gate/index.js";
import { checkSourceId } from "../registry/source.js";
import type { CapabilityStore, CapabilityOutcome } from "./capability-store.js";
import type { GrantResolver, SourceGrant } from "./options.js";
import { CapabilityError } from "./capability-error.js";
import { perform, type Incoming } from "./perform.js";
import { askModel, askUser, assertCanSample, SamplingBudget, type TalkBack, type ToolLog, type ToolProgress } from "./talk-back.js";
import { MAX_NOTICES_PER_CALL, type LogRequest, type ProgressRequest } from "../../sandbox/shared/talk-back.js";

export type OpenCall = {
  callId: string;
  source: string;
  tool: string;
  effects: readonly string[] | null;
  timeoutMs: number;
  /** The call's signal, caller and asker, as the gate is told them. */
  gate: GateContext;
  /** Where the call's progress, log messages, questions and samples go (its caller's handlers). */
  talkBack: TalkBack;
};

type CallState = OpenCall & {
  startedAt: number;
  pausedMs: number;
  requests: number;
  uses: number;
  /** Progress and log notices, each kind's count and bytes, for the one audit record a call's notices get. */
  notices: { progress: { count: number; bytes: number }; log: { count: number; bytes: number } };
  sampledTokens: number;
};

/** A tool's notice, for the host's events. */
export type Notice = { kind: "progress"; progress: ToolProgress } | { kind: "log"; log: ToolLog };

/**
 * Capability requests one call may make, of every kind: past it they are
 * refused, and only the first refusal is audited, so a tool that floods
 * requests costs the host a counter, not a write per request.
 */
export const MAX_USES_PER_CALL = 1000;

export type BrokerOptions = {
  grants: GrantResolver;
  /** Opened on first use: a host whose tools use no capability never opens it. */
  store: () => CapabilityStore;
  effectPolicy: ResolvedEffectPolicy;
  gate: BeforeToolCall;
  logger: Logger;
  /** A call's progress or log notice, for the host's events (tool_progress, tool_log). */
  announce?: (notice: Notice) => void;
};

const READ_STATE: readonly Effect[] = ["read", "state_write"];

/** The effects that admit a request (any one of them), what it does, and to what. */
export function describeRequest(request: CapabilityRequest): { effects: readonly Effect[]; operation: string; target: string; section: keyof SourceGrant | null } {
  switch (request.kind) {
    case "progress":
    case "log":
      return { effects: [], operation: request.kind, target: "", section: null };
    case "elicit":
      return { effects: ["ask_user"], operation: "elicit", target: request.message.slice(0, 200), section: null };
    case "sample":
      return { effects: ["sample_model"], operation: "sample", target: `${request.maxTokens} tokens`, section: "sampling" };
    case "fetch": {
      const method = request.method.toUpperCase();
      return { effects: [method === "GET" || method === "HEAD" ? "net_read" : "net_write"], operation: `fetch ${method}`, target: shownUrl(request.url), section: "net" };
    }
    case "fs":
      return { effects: [request.op === "readFile" || request.op === "readdir" || request.op === "stat" ? "read" : "fs_write"], operation: `fs.${request.op}`, target: request.path.slice(0, 500), section: "fs" };
    case "state":
      return {
        effects: request.op === "get" || request.op === "list" ? READ_STATE : ["state_write"],
        operation: `state.${request.op}`,
        target: (request.op === "list" ? (request.prefix ?? "") : (request.key ?? "")).slice(0, 500),
        section: "state",
      };
  }
}

/** A URL as the audit shows it: origin and path, never credentials, query or fragment. */
function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`.slice(0, 500);
  } catch {
    return text.slice(0, 100);
  }
}

/** Why a request is refused `undeclared`: the effect it needs, which `who` did not declare. */
export function undeclaredMessage(request: CapabilityRequest, who: string): string {
  const { effects, operation } = describeRequest(request);
  return `${operation} needs the "${effects.join('" or "')}" effect, which ${who} did not declare; add it to the tool's effects`;
}

const GRANT_OPTION: Record<keyof SourceGrant, string> = { net: "capabilities.net", fs: "capabilities.fs", state: "capabilities.state", sampling: "capabilities.sampling" };

const noNotices = (): CallState["notices"] => ({ progress: { count: 0, bytes: 0 }, log: { count: 0, bytes: 0 } });

export class CapabilityBroker {
  readonly #options: BrokerOptions;
  readonly #calls = new Map<string, CallState>();
  readonly #payloadCaps = new Map<string, PayloadCaps | undefined>();
  readonly #lanes = new Map<string, { gate: GateContext; talkBack: TalkBack; tools: Map<string, { name: string; source: string; limits: { timeoutMs: number } }>; calls: Map<string, CallState> }>();
  readonly #sampling = new SamplingBudget();

  constructor(options: BrokerOptions) {
    this.#options = options;
  }

  /** Registers a call that may make requests; the returned function forgets it. */
  open(call: OpenCall): () => void {
    const state: CallState = { ...call, startedAt: performance.now(), pausedMs: 0, requests: 0, uses: 0, notices: noNotices(), sampledTokens: 0 };
    this.#calls.set(call.callId, state);
    return () => {
      this.#calls.delete(call.callId);
      this.#auditNotices(state);
    };
  }

  /** The payload caps a call of `source` runs under (its grant's), for its task: the worker holds payloads to them. */
  payloadCaps(source: string): PayloadCaps | undefined {
    // Grants are fixed when the host is made: a source's caps are worked out once, not on every call.
    if (this.#payloadCaps.has(source)) return this.#payloadCaps.get(source);
    const caps = this.#capsOf(source);
    this.#payloadCaps.set(source, caps);
    return caps;
  }

  #capsOf(source: string): PayloadCaps | undefined {
    const grant = this.#options.grants(source);
    const caps: PayloadCaps = {};
    if (grant.net !== undefined) caps.requestBytes = grant.net.maxRequestBytes;
    if (grant.fs !== undefined) caps.fileBytes = grant.fs.maxFileBytes;
    if (grant.state !== undefined) caps.stateBytes = grant.state.quotaBytes;
    return grant.net === undefined && grant.fs === undefined && grant.state === undefined ? undefined : caps;
  }

  /**
   * Registers a Code Mode script's fast lane (its tools, each with no
   * effects: fastToolOf admits no other): a lane call runs in the script's
   * worker under an id `<script call id>/<n>` the host never opened, and
   * its capability requests are judged as its tool's, by the same rules
   * (so they answer `undeclared`, as the same tool called directly would).
   * The returned function forgets the lane.
   */
  openLane(script: { callId: string; gate: GateContext; talkBack: TalkBack }, tools: readonly { name: string; source: string; limits: { timeoutMs: number } }[]): () => void {
    const calls = new Map<string, CallState>();
    this.#lanes.set(script.callId, { gate: script.gate, talkBack: script.talkBack, tools: new Map(tools.map((tool) => [tool.name, tool])), calls });
    return () => {
      this.#lanes.delete(script.callId);
      for (const call of calls.values()) this.#auditNotices(call);
    };
  }

  /** The call a lane call's request stands for (its tool, named by the worker that runs it), if its script's lane has that tool. */
  #laneCall(message: CapabilityRequestMessage): CallState | undefined {
    const cut = message.callId.lastIndexOf("/");
    const lane = cut < 0 || message.tool === undefined ? undefined : this.#lanes.get(message.callId.slice(0, cut));
    const tool = lane?.tools.get(message.tool ?? "");
    if (lane === undefined || tool === undefined) return undefined;
    // Kept until the lane closes: a lane call's uses and notices are counted, and its notices audited, as a direct call's.
    let call = lane.calls.get(message.callId);
    if (call === undefined) {
      call = { callId: message.callId, source: tool.source, tool: tool.name, effects: [], timeoutMs: tool.limits.timeoutMs, gate: lane.gate, talkBack: lane.talkBack, startedAt: performance.now(), pausedMs: 0, requests: 0, uses: 0, notices: noNotices(), sampledTokens: 0 };
      lane.calls.set(message.callId, call);
    }
    return call;
  }

  /** `paused` is called as the gate starts to wait: the caller stops the call's clocks. */
  readonly handle = async (message: CapabilityRequestMessage, hooks: { paused(): void } = { paused: () => undefined }): Promise<{ answerJson: string; pausedMs: number; payload?: WirePayload }> => {
    const call = this.#calls.get(message.callId) ?? this.#laneCall(message);
    if (call === undefined) return { answerJson: answer({ ok: false, code: "failed", message: "the call is over" }), pausedMs: 0 };
    let request: CapabilityRequest;
    try {
      request = CapabilityRequest.parse(JSON.parse(message.requestJson));
    } catch {
      return { answerJson: answer({ ok: false, code: "invalid", message: "the capability request is malformed" }), pausedMs: 0 };
    }
    if (request.kind === "progress" || request.kind === "log") return { answerJson: answer(this.#notice(call, request)), pausedMs: 0 };
    if (++call.uses > MAX_USES_PER_CALL) {
      const message = `this call has made more than ${MAX_USES_PER_CALL} capability requests`;
      if (call.uses === MAX_USES_PER_CALL + 1) this.#audit(call, { effect: "-", operation: "any", target: "", outcome: "refused", bytes: 0, message });
      return { answerJson: answer({ ok: false, code: "refused", message }), pausedMs: 0 };
    }
    const pausedBefore = call.pausedMs;
    const { result, payload } = await this.#judgeAndPerform(call, request, { payload: message.payload, payloadBytes: message.payloadBytes }, hooks);
    const out = { answerJson: answer(result), pausedMs: call.pausedMs - pausedBefore };
    return payload === undefined ? out : { ...out, payload };
  };

  /**
   * A progress or log notice: to the caller's handler and the host's events,
   * within the call's count. It needs no effect (it reaches only the caller
   * who made the call, with what the tool could have put in its answer) and
   * is always answered `ok`, so a tool's notice never fails it.
   */
  #notice(call: CallState, request: ProgressRequest | LogRequest): { ok: true; value: null } {
    const counted = call.notices[request.kind];
    const total = call.notices.progress.count + call.notices.log.count;
    if (total >= MAX_NOTICES_PER_CALL) {
      if (total === MAX_NOTICES_PER_CALL) this.#options.logger.warn({ callId: call.callId, tool: call.tool, source: call.source }, `a call sent ${MAX_NOTICES_PER_CALL} progress and log notices; later ones are dropped`);
      call.notices[request.kind].count++;
      return { ok: true, value: null };
    }
    counted.count++;
    const from = { callId: call.callId, tool: call.tool, source: call.source };
    if (request.kind === "progress") {
      const progress: ToolProgress = { ...from, progress: request.progress };
      if (request.total !== undefined) progress.total = request.total;
      if (request.message !== undefined) progress.message = request.message;
      counted.bytes += request.message?.length ?? 0;
      this.#deliver(() => call.talkBack.onProgress?.(progress), () => this.#options.announce?.({ kind: "progress", progress }));
    } else {
      const log: ToolLog = { ...from, level: request.level, data: JSON.parse(request.dataJson) };
      if (request.logger !== undefined) log.logger = request.logger;
      counted.bytes += request.dataJson.length;
      this.#deliver(() => call.talkBack.onLog?.(log), () => this.#options.announce?.({ kind: "log", log }));
    }
    return { ok: true, value: null };
  }

  /** Runs the caller's handler and the host's announcement; a handler that throws is logged, never the tool's problem. */
  #deliver(...steps: (() => void)[]): void {
    for (const step of steps) {
      try {
        step();
      } catch (error) {
        this.#options.logger.error({ err: error }, "a progress or log handler threw; the notice was dropped for it");
      }
    }
  }

  /** One record per call and kind of notice, when it sent any: a use per notice would cost a write each. */
  #auditNotices(call: CallState): void {
    for (const kind of ["progress", "log"] as const) {
      const { count, bytes } = call.notices[kind];
      if (count === 0) continue;
      const dropped = Math.max(0, call.notices.progress.count + call.notices.log.count - MAX_NOTICES_PER_CALL);
      const note = dropped > 0 ? { message: `${dropped} notices past the call's ${MAX_NOTICES_PER_CALL} were dropped` } : {};
      this.#audit(call, { effect: "-", operation: kind, target: `${count} ${count === 1 ? "notice" : "notices"}`, outcome: "ok", bytes, ...note });
    }
  }

  async #judgeAndPerform(call: CallState, request: CapabilityRequest, incoming: Incoming, hooks: { paused(): void }): Promise<{ result: CapabilityAnswer; payload?: WirePayload }> {
    const { effects, operation, target, section } = describeRequest(request);
    const declared = call.effects ?? [];
    const effect = effects.find((candidate) => declared.includes(candidate)) ?? (effects[0] as Effect);
    const audit = (outcome: CapabilityOutcome, bytes: number, message?: string) => this.#audit(call, { effect, operation, target, outcome, bytes, message });
    const refuse = (code: CapabilityErrorCode, message: string): { result: CapabilityAnswer } => {
      audit(code, 0, message);
      return { result: { ok: false, code, message } };
    };
    if (!effects.some((candidate) => declared.includes(candidate))) return refuse("undeclared", undeclaredMessage(request, `"${call.tool}"`));
    const grant = this.#options.grants(call.source);
    if (section !== null && grant[section] === undefined) {
      return refuse("not_granted", `this host grants ${call.source} no ${section} capability (${GRANT_OPTION[section]}), so ${operation} is refused`);
    }
    const kind = checkSourceId(call.source);
    const decision = this.#options.effectPolicy[kind][effect];
    if (decision === "deny") return refuse("blocked", `the host's policy denies "${effect}" to ${call.source}`);
    if (decision === "ask") {
      const waited = performance.now();
      hooks.paused();
      const verdict = await askGate(
        this.#options.gate,
        { callId: call.callId, tool: call.tool, source: call.source, input: undefined, effects: call.effects === null ? null : [...call.effects], policy: "ask", capability: { effect, operation, target } },
        call.gate,
      );
      call.pausedMs += performance.now() - waited;
      if (verdict.action === "block") return refuse("blocked", `${operation} ${target} was blocked by the gate: ${verdict.reason}`);
    }
    if (request.kind === "elicit" || request.kind === "sample") return this.#askCaller(call, request, grant, hooks, audit);
    try {
      const deadline = call.startedAt + call.timeoutMs + call.pausedMs;
      const net = grant.net;
      const performed = await perform(request, grant, {
        source: call.source,
        store: this.#options.store(),
        incoming,
        fetchLimits: {
          deadline,
          takeRequest: () => {
            if (net !== undefined && ++call.requests > net.maxRequests) throw new CapabilityError("refused", `this call has made its ${net.maxRequests} requests (capabilities.net.maxRequests)`);
          },
        },
      });
      audit("ok", performed.bytes);
      const result: CapabilityAnswer = { ok: true, value: performed.value };
      return performed.payload === undefined ? { result } : { result, payload: performed.payload };
    } catch (error) {
      const failure = error instanceof CapabilityError ? error : new CapabilityError("failed", (error as Error).message);
      audit(failure.code, 0, failure.message);
      return { result: { ok: false, code: failure.code, message: failure.message } };
    }
  }

  /** A question to the caller's user, or a sample of its model: the call's clock stops while the caller answers. */
  async #askCaller(
    call: CallState,
    request: Extract<CapabilityRequest, { kind: "elicit" | "sample" }>,
    grant: SourceGrant,
    hooks: { paused(): void },
    audit: (outcome: CapabilityOutcome, bytes: number, message?: string) => void,
  ): Promise<{ result: CapabilityAnswer }> {
    const context = { callId: call.callId, tool: call.tool, source: call.source, signal: call.gate.signal };
    const waited = performance.now();
    try {
      let value: unknown;
      if (request.kind === "elicit") {
        hooks.paused();
        value = await askUser(call.talkBack, { message: request.message, requestedSchema: request.requestedSchema }, context);
      } else {
        const { kind: _kind, ...params } = request;
        assertCanSample(call.talkBack);
        this.#sampling.charge(call.source, call, request.maxTokens, grant.sampling as NonNullable<SourceGrant["sampling"]>);
        hooks.paused();
        value = await askModel(call.talkBack, params, context);
      }
      audit("ok", JSON.stringify(value).length);
      return { result: { ok: true, value } };
    } catch (error) {
      const failure = error instanceof CapabilityError ? error : new CapabilityError("failed", (error as Error).message);
      audit(failure.code, 0, failure.message);
      return { result: { ok: false, code: failure.code, message: failure.message } };
    } finally {
      call.pausedMs += performance.now() - waited;
    }
  }

  #audit(call: CallState, use: { effect: string; operation: string; target: string; outcome: CapabilityOutcome; bytes: number; message?: string | undefined }): void {
    const record = { source: call.source, tool: call.tool, callId: call.callId, ...use, at: Date.now() };
    if (record.message === undefined) delete record.message;
    this.#options.logger.info({ capability: record }, "capability use");
    this.#options.store().recordUse(record as Parameters<CapabilityStore["recordUse"]>[0]).catch((error: unknown) =>
      this.#options.logger.error({ err: error, callId: call.callId }, "the capability store could not record a use"),
    );
  }
}

function answer(value: CapabilityAnswer): string {
  return JSON.stringify(value);
}
