/**
 * @module src/adapters/mcp/elicit
 * An MCP client's user as the gate's asker: a call whose effects the policy
 * leaves to `ask` is put to them with `elicitation/create` (form mode: the
 * answer is the action, and one checkbox, "allow the rest of this call's
 * uses of this effect"), sent on the tools/call request's own stream, so
 * over Streamable HTTP it reaches the client that made the call. accept →
 * allow; decline, cancel, no answer in time, a client gone → block. One
 * asker serves one tools/call request (a Code Mode script's tool calls
 * included), so what the checkbox allowed ends with that request. A client that did not declare the `elicitation` capability is
 * never asked: the call is refused with the config key that would allow it.
 *
 * ```
 * host.call(..., { askUser }) ─▶ default gate: policy ask ─▶ askUser(call)
 *   ─▶ client has elicitation? ── no ─▶ block: effects.<kind>.<effect> in corral.json
 *   ─▶ elicitation/create { message: tool, source, effect, target } ─▶ accept ─▶ allow
 *                                                                   └▶ decline | cancel ─▶ block
 * ```
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { SendRequest } from "./talk-back.js";
import { approvalQuestion, policyAdvice, type AskUser } from "../../gate/index.js";

/** Whether the client can be asked in form mode (an empty `elicitation: {}` means form, as the specification keeps for older clients). */
export function canElicit(server: Server): boolean {
  const elicitation = server.getClientCapabilities()?.elicitation;
  if (elicitation === undefined) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The form's one field: whether the answer holds for the rest of the call's uses of the same effect. */
export const REST_OF_CALL = "allow_rest_of_call";

const FORM = {
  type: "object" as const,
  properties: {
    [REST_OF_CALL]: { type: "boolean" as const, title: "Allow the rest of this call's uses of this effect", default: false },
  },
};

export function askThroughClient(server: Server, send: SendRequest, timeoutMs: number): AskUser {
  /** `callId effect` pairs the user allowed for the rest of their call. */
  const allowedForCall = new Set<string>();
  return async (call, signal) => {
    if (!canElicit(server)) {
      return { action: "block", reason: policyAdvice(call, "this MCP client cannot be asked (it did not declare the elicitation capability)") };
    }
    const remembered = call.capability === undefined ? undefined : `${call.callId} ${call.capability.effect}`;
    if (remembered !== undefined && allowedForCall.has(remembered)) return { action: "allow" };
    const message = approvalQuestion(call);
    let action: string;
    try {
      const answer = await send(
        { method: "elicitation/create", params: { message, requestedSchema: FORM } },
        ElicitResultSchema,
        { timeout: timeoutMs, ...(signal !== undefined ? { signal } : {}) },
      );
      action = answer.action;
      if (action === "accept" && remembered !== undefined && answer.content?.[REST_OF_CALL] === true) allowedForCall.add(remembered);
    } catch (error) {
      const why = `the MCP client's user could not be asked (${error instanceof Error ? error.message.slice(0, 200) : "no answer"})`;
      return { action: "block", reason: policyAdvice(call, why) };
    }
    if (action === "accept") return { action: "allow" };
    return { action: "block", reason: `the MCP client's user ${action === "decline" ? "declined" : "dismissed"} the question: ${message}` };
  };
}
