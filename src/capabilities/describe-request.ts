/**
 * @module src/capabilities/describe-request
 * What a capability request is, in the words the broker, the gate and the
 * audit use: the effects that admit it (any one of them), what it does, to
 * what, and the grant section it needs (none for a question to the user or
 * a notice).
 */
import type { CapabilityRequest } from "../../sandbox/shared/capability-messages.js";
import type { Effect } from "../../sandbox/shared/tool-vocabulary.js";
import type { SourceGrant } from "./options.js";

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
