/**
 * @module src/gate/approval
 * The words of an approval: the question put to a person about a call the
 * effect policy leaves to `ask`, and, when nobody can be asked, the refusal
 * naming the config key that would allow it (`effects.<kind>.<effect>` of
 * corral.json, the same key as createHost's `effects` option).
 *
 * A call whose every effect is one the host performs for it (a fetch, a
 * file, a state key: everything but `exec`) is not asked about as it starts:
 * each use is put to the person as it happens, with its target (the URL,
 * the path), which says more than the tool's name alone. So one call is
 * never asked about twice.
 */
import { EFFECTS } from "../../sandbox/shared/tool-vocabulary.js";

/** What a question or a refusal is about (the gate's GateCall, in part). */
export type ApprovalSubject = {
  tool: string;
  source: string;
  effects: readonly string[] | null;
  capability?: { effect: string; operation: string; target: string };
};

/** Effects a tool can use only through a host capability, each use of which the broker puts to the gate. */
const PERFORMED_BY_HOST: ReadonlySet<string> = new Set(EFFECTS.filter((effect) => effect !== "exec"));

/** Whether the question waits for each use: true only when every declared effect is performed by the host. */
export function deferredToUses(subject: ApprovalSubject): boolean {
  return subject.capability === undefined && subject.effects !== null && subject.effects.every((effect) => PERFORMED_BY_HOST.has(effect));
}

/** The question a person is asked: the tool, its source, the effect and the target when known. */
export function approvalQuestion(subject: ApprovalSubject): string {
  const use = subject.capability;
  if (use !== undefined) {
    return `Allow the tool "${subject.tool}" (source ${subject.source}) to use the "${use.effect}" effect: ${use.operation} ${use.target}?`;
  }
  const effects = subject.effects === null ? "undeclared effects (judged as every effect)" : `the effects ${subject.effects.join(", ")}`;
  return `Allow the tool "${subject.tool}" (source ${subject.source}) to run with ${effects}? What it will reach is not known before it runs.`;
}

function kindOf(source: string): string {
  const colon = source.indexOf(":");
  return colon === -1 ? source : source.slice(0, colon);
}

/**
 * Why a call the policy leaves to `ask` was refused (`why`: nobody could be
 * asked, or how they answered), and the config key that would let it run.
 */
export function policyAdvice(subject: ApprovalSubject, why: string): string {
  const kind = kindOf(subject.source);
  const effects = subject.capability !== undefined ? [subject.capability.effect] : subject.effects;
  const what = subject.capability !== undefined ? `${subject.capability.operation} ${subject.capability.target} by "${subject.tool}"` : `"${subject.tool}"`;
  if (effects === null) {
    return `${what} (${subject.source}) declares no effects list, so it is judged as if it declared every effect, whose policy is "ask", and ${why}; declare the tool's effects, then allow them in the effects key of corral.json (createHost's effects option)`;
  }
  const keys = effects.map((effect) => `effects.${kind}.${effect}`).join(", ");
  const example = `"effects": { "${kind}": { ${effects.map((effect) => `"${effect}": "allow"`).join(", ")} } }`;
  return `${what} (${subject.source}) needs ${effects.join(", ")}, whose policy is "ask", and ${why}; to allow it, set ${keys} to "allow" in corral.json (${example}; createHost's effects option), or give createHost a beforeToolCall that decides`;
}
