/**
 * The default gate with and without a person to ask: what is asked, when
 * the question waits for each use, and the refusal naming the config key.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { deferredToUses, policyAdvice } from "./approval.js";
import { defaultGate, judgeGate, type AskUser, type GateCall } from "./gate.js";

const call = (effects: string[] | null, capability?: GateCall["capability"]): GateCall => ({
  callId: "c1",
  tool: "fetch_page",
  source: "plugin:fetch-page",
  input: {},
  effects,
  policy: "ask",
  ...(capability !== undefined ? { capability } : {}),
});

describe("approvals", () => {
  it("waits for each use only when every effect is one the host performs", () => {
    assert.equal(deferredToUses(call(["net_read", "read"])), true);
    assert.equal(deferredToUses(call(["net_read", "exec"])), false);
    assert.equal(deferredToUses(call(null)), false, "undeclared effects are judged as all, exec with them");
    assert.equal(deferredToUses(call(["net_read"], { effect: "net_read", operation: "fetch GET", target: "https://a.example/" })), false, "a use is asked about");
  });

  it("names the config key of each effect, or says to declare them", () => {
    assert.match(policyAdvice(call(["net_read", "fs_write"]), "nobody can be asked"), /set effects\.plugin\.net_read, effects\.plugin\.fs_write to "allow" in corral\.json \("effects": \{ "plugin": \{ "net_read": "allow", "fs_write": "allow" \} \}/);
    assert.match(policyAdvice(call(null), "nobody can be asked"), /declare the tool's effects/);
    const use = policyAdvice(call(["net_read"], { effect: "net_read", operation: "fetch GET", target: "https://a.example/x" }), "nobody can be asked");
    assert.match(use, /^fetch GET https:\/\/a\.example\/x by "fetch_page" \(plugin:fetch-page\).*effects\.plugin\.net_read/);
  });

  it("answers in place without an asker, and asks the person with one", async () => {
    const refused = judgeGate(defaultGate, call(["exec"]), { signal: undefined });
    assert.ok(!(refused instanceof Promise));
    assert.equal(refused.action, "block");
    const asked: GateCall[] = [];
    const askUser: AskUser = async (question) => {
      asked.push(question);
      return { action: "allow" };
    };
    assert.deepEqual(await judgeGate(defaultGate, call(["exec"]), { signal: undefined, askUser }), { action: "allow" });
    assert.deepEqual(await judgeGate(defaultGate, call(["net_read"]), { signal: undefined, askUser }), { action: "allow" });
    assert.deepEqual(asked.map((each) => each.effects), [["exec"]], "net_read alone is asked per use, not as the call starts");
    const allowed = judgeGate(defaultGate, { ...call(["exec"]), policy: "allow" }, { signal: undefined, askUser });
    assert.deepEqual(allowed, { action: "allow" }, "what the policy allows is never asked, and answered in place");
  });
});
