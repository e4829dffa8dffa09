/**
 * @module src/host/call-checks
 * What a call meets before it may run, in order: the source's quarantine,
 * the effect policy, the gate. Each refusal is a ToolFailure with its
 * outcome kind. A warm call of a known source under the default gate waits
 * on nothing here (the answer is not a promise): the quarantine view knows
 * the source, and the default gate is answered in place (judgeGate).
 */
import { decideEffects, judgeGate, type EffectDecision, type GateCall, type GateContext, type GateDecision } from "../gate/index.js";
import type { CatalogEntry } from "../registry/index.js";
import { checkSourceId } from "../registry/source.js";
import type { SourceState } from "../ledger/index.js";
import type { ToolResult } from "../result.js";
import type { CallSpan } from "../telemetry/index.js";
import { failure, type CallInfo } from "./channels.js";
import type { CallDeps } from "./call-path.js";

type Refusal = ToolResult | undefined;

/** The failure that refuses the call, or undefined when it may run; a promise only when the ledger or a user gate must be asked. */
export function refusalOf(deps: CallDeps, entry: CatalogEntry, info: CallInfo, inputJson: string, gate: GateContext, span: CallSpan): Refusal | Promise<Refusal> {
  const known = deps.quarantine.known(entry.source);
  if (known !== undefined) return afterQuarantine(deps, entry, info, inputJson, gate, span, known);
  return deps.quarantine.check(entry.source).then((state) => afterQuarantine(deps, entry, info, inputJson, gate, span, state));
}

function afterQuarantine(deps: CallDeps, entry: CatalogEntry, info: CallInfo, inputJson: string, gate: GateContext, span: CallSpan, state: SourceState): Refusal | Promise<Refusal> {
  if (state.state === "quarantined") {
    const until = state.until === null ? "until an operator releases it" : `until ${new Date(state.until).toISOString()}`;
    return failure(
      info,
      "quarantined",
      `the source ${entry.source} is quarantined since ${new Date(state.since).toISOString()} ${until}: ${state.reason}; use another tool`,
    );
  }
  const decision = decideEffects(deps.effectPolicy, checkSourceId(entry.source), entry.manifest.effects);
  if (decision === "deny") {
    return failure(info, "blocked", `"${entry.manifest.name}" declares effects the host's policy denies for ${entry.source}; it cannot run here`);
  }
  const gateStarted = performance.now();
  const verdict = judgeGate(deps.gate, gateCall(info, entry, inputJson, decision), gate);
  if (!(verdict instanceof Promise)) return afterGate(info, gate.signal, verdict);
  return verdict.then((answered) => {
    span.gateWaitMs = performance.now() - gateStarted;
    return afterGate(info, gate.signal, answered);
  });
}

function afterGate(info: CallInfo, signal: AbortSignal | undefined, verdict: GateDecision): Refusal {
  if (verdict.action === "block") return failure(info, "blocked", `the call was blocked: ${verdict.reason}`);
  if (signal?.aborted) return failure(info, "cancelled", "the call was cancelled before it started");
  return undefined;
}

/**
 * What the gate sees. Its input is a copy made from the JSON the tool will
 * get, and made only when the gate reads it: the default gate never does,
 * and parsing a large input on every call would cost more than the call.
 */
function gateCall(info: CallInfo, entry: CatalogEntry, inputJson: string, policy: Exclude<EffectDecision, "deny">): GateCall {
  let input: { value: unknown } | undefined;
  return {
    callId: info.callId,
    tool: entry.manifest.name,
    source: entry.source,
    get input() {
      input ??= { value: JSON.parse(inputJson) };
      return input.value;
    },
    effects: entry.manifest.effects,
    policy,
  };
}
