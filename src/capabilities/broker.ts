/**
 * @module src/capabilities/broker
 * The host's judge of capability requests. For each request of a running
 * call, in this order:
 *
 * ```
 * request ─▶ parse (zod) ─────────────────────── invalid
 *         ─▶ effect declared by the tool? ─────── undeclared (names the effect)
 *         ─▶ granted to the source? ───────────── not_granted (names the option)
 *         ─▶ effect policy: deny ──────────────── blocked
 *                           ask ─▶ gate (clock paused) ─ blocked
 *         ─▶ perform (fetch / fs / state) ─────── ok | refused | too_large | failed | timeout
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

export type OpenCall = {
  callId: string;
  source: string;
  tool: string;
  effects: readonly string[] | null;
  timeoutMs: number;
  /** The call's signal, caller and asker, as the gate is told them. */
  gate: GateContext;
};

type CallState = OpenCall & { startedAt: number; pausedMs: number; requests: number; uses: number };

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
};

const READ_STATE: readonly Effect[] = ["read", "state_write"];

/** The effects that admit a request (any one of them), what it does, and to what. */
export function describeRequest(request: CapabilityRequest): { effects: readonly Effect[]; operation: string; target: string; section: keyof SourceGrant } {
  switch (request.kind) {
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

const GRANT_OPTION: Record<keyof SourceGrant, string> = { net: "capabilities.net", fs: "capabilities.fs", state: "capabilities.state" };

export class CapabilityBroker {
  readonly #options: BrokerOptions;
  readonly #calls = new Map<string, CallState>();
  readonly #payloadCaps = new Map<string, PayloadCaps | undefined>();
  readonly #lanes = new Map<string, { gate: GateContext; tools: Map<string, { name: string; source: string; limits: { timeoutMs: number } }> }>();

  constructor(options: BrokerOptions) {
    this.#options = options;
  }

  /** Registers a call that may make requests; the returned function forgets it. */
  open(call: OpenCall): () => void {
    this.#calls.set(call.callId, { ...call, startedAt: performance.now(), pausedMs: 0, requests: 0, uses: 0 });
    return () => this.#calls.delete(call.callId);
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
  openLane(script: { callId: string; gate: GateContext }, tools: readonly { name: string; source: string; limits: { timeoutMs: number } }[]): () => void {
    this.#lanes.set(script.callId, { gate: script.gate, tools: new Map(tools.map((tool) => [tool.name, tool])) });
    return () => this.#lanes.delete(script.callId);
  }

  /** The call a lane call's request stands for (its tool, named by the worker that runs it), if its script's lane has that tool. */
  #laneCall(message: CapabilityRequestMessage): CallState | undefined {
    const cut = message.callId.lastIndexOf("/");
    const lane = cut < 0 || message.tool === undefined ? undefined : this.#lanes.get(message.callId.slice(0, cut));
    const tool = lane?.tools.get(message.tool ?? "");
    if (lane === undefined || tool === undefined) return undefined;
    return { callId: message.callId, source: tool.source, tool: tool.name, effects: [], timeoutMs: tool.limits.timeoutMs, gate: lane.gate, startedAt: performance.now(), pausedMs: 0, requests: 0, uses: 0 };
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
    if (grant[section] === undefined) {
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
