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
import { describeRequest, undeclaredMessage } from "./describe-request.js";
import { askModel, askUser, assertCanAsk, SamplingBudget, type ElicitQuestion, type SampleParams, type TalkBack } from "./talk-back.js";
import { callState, noticeUses, takeNotice, type CallState, type Notice, type OpenCall } from "./call-notices.js";

export { describeRequest, undeclaredMessage } from "./describe-request.js";
export type { Notice, OpenCall } from "./call-notices.js";


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

const GRANT_OPTION: Record<keyof SourceGrant, string> = { net: "capabilities.net", fs: "capabilities.fs", state: "capabilities.state", sampling: "capabilities.sampling" };

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
    const state = callState(call);
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
      call = callState({ callId: message.callId, source: tool.source, tool: tool.name, effects: [], timeoutMs: tool.limits.timeoutMs, gate: lane.gate, talkBack: lane.talkBack });
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
    if (request.kind === "progress" || request.kind === "log") return { answerJson: answer(takeNotice(call, request, { logger: this.#options.logger, announce: this.#options.announce })), pausedMs: 0 };
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

  #auditNotices(call: CallState): void {
    for (const use of noticeUses(call)) this.#audit(call, use);
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
      // Refused (no one to ask) or past its budget before the clock stops.
      assertCanAsk(call.talkBack, request.kind);
      if (request.kind === "sample") this.#sampling.charge(call.source, call, request.maxTokens, grant.sampling as NonNullable<SourceGrant["sampling"]>);
      hooks.paused();
      const { kind: _kind, ...params } = request;
      const value = request.kind === "elicit" ? await askUser(call.talkBack, params as ElicitQuestion, context) : await askModel(call.talkBack, params as SampleParams, context);
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
