import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createCaller } from "../../src/index.js";
import { withHost } from "../helpers/host.js";
import { loadTrio } from "./fixture.js";

const COMBINED = `
const { sum } = await tools.add({ a: 2, b: 3 });
const loud: string = await tools.shout({ text: "hi" }) as string;
const secret = await tools.vault({ key: "pin" }) as { value: number };
console.log("sum", sum);
return { sum, loud, value: secret.value };
`;

describe("Code Mode: run_code", { timeout: 120_000 }, () => {
  it("runs a TypeScript script that calls three tools (one codemode-only) and answers the combined result, its logs and its calls", () =>
    withHost(
      async (host) => {
        await loadTrio(host);
        const caller = createCaller({ id: "conv-1" });
        const result = await host.call("run_code", { code: COMBINED }, { caller });
        assert.ok(result.ok, JSON.stringify(result));
        assert.deepEqual(result.structured, { sum: 5, loud: "HI", value: 1234 });
        assert.equal(result.source, "code:conv-1");
        assert.deepEqual(result.logs, ["[log] sum 5"]);
        const details = result.details as { calls: { tool: string; kind: string; ms: number }[]; callCount: number };
        assert.deepEqual(details.calls.map((call) => [call.tool, call.kind]), [["add", "ok"], ["shout", "ok"], ["vault", "ok"]]);
        assert.equal(details.callCount, 3);
        // Every nested call is a call of its tool in the ledger, and the script one of its own source.
        for (const [source, tool] of [["agent:math", "add"], ["agent:words", "shout"], ["agent:vault", "vault"], ["code:conv-1", "run_code"]] as const) {
          const report = await host.auditSource(source);
          assert.equal(report?.tools.find((row) => row.tool === tool)?.totals.calls, 1, `${source} ${tool}: ${JSON.stringify(report)}`);
        }
        // The codemode-only tool is not the model's: called directly by the model it does not exist.
        const direct = await host.call("vault", { key: "pin" }, { caller });
        assert.equal(direct.ok ? "ok" : direct.error.kind, "unknown_tool");
      },
      { codeMode: {} },
    ));

  it("rejects a tool's error outcome with an Error whose kind the script reads", () =>
    withHost(
      async (host) => {
        await loadTrio(host);
        const code = `
          const seen = [];
          try { await tools.vault({ key: "nope" }); } catch (e) { seen.push([e.kind, /no such key/.test(e.message), e instanceof Error]); }
          try { await tools.add({ a: "x" }); } catch (e) { seen.push([e.kind]); }
          try { await tools.run_code({ code: "return 1" }); } catch (e) { seen.push(["no run_code", typeof tools.run_code]); }
          return seen;`;
        const result = await host.call("run_code", { code });
        assert.ok(result.ok, JSON.stringify(result));
        assert.deepEqual(result.structured, [["tool_error", true, true], ["invalid_input"], ["no run_code", "undefined"]]);
        assert.equal(result.source, "code:program");
      },
      { codeMode: {} },
    ));

  it("declares run_code with the tools' TypeScript declarations, the same text as host.codeModeDeclarations()", () =>
    withHost(
      async (host) => {
        await loadTrio(host);
        const declared = host.declarations().find((d) => d.name === "run_code");
        const text = host.codeModeDeclarations();
        assert.ok(declared !== undefined && declared.description.endsWith(text));
        assert.match(text, /add\(input: \{\n\s+a: number;\n\s+b: number;\n\s+\}\): Promise<\{\n\s+sum: number;\n\s+\}>;/);
        assert.match(text, /vault\(input: /);
        assert.doesNotMatch(text, /run_code\(/);
      },
      { codeMode: {} },
    ));

  it("is off unless asked for", () =>
    withHost(async (host) => {
      assert.equal(host.declarations().some((d) => d.name === "run_code"), false);
      assert.throws(() => host.codeModeDeclarations(), (error: Error & { code?: string }) => error.code === "code_mode_off");
    }));
});
