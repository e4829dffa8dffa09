/**
 * @module test/surface/public-arguments.test
 * Every public function and every method of the Host and the Ledger, fed
 * arbitrary arguments (fast-check): each either answers or throws a
 * CorralError whose message says what was expected; never a TypeError (or
 * any other error) from inside, and the host stays alive. The obvious short
 * form is accepted: `host.load("./tool.ts")` loads that path.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import {
  CorralError,
  createHost,
  Ledger,
  MemoryLedgerStore,
  anthropicModel,
  outcomeOf,
  parseMessage,
  runConversation,
  toToolResultBlock,
  type Host,
  type Model,
} from "../../src/index.js";
import { anyValue } from "../helpers/any-value.js";
import { tempDir, toolSource, withHost } from "../helpers/host.js";

/** Values of every kind, plus near misses of the right shapes (right keys, wrong types). */
const arbitraryArgument: fc.Arbitrary<unknown> = fc.oneof(
  anyValue({ maxDepth: 2, maxKeys: 4 }),
  fc.record({ path: anyValue({ maxDepth: 1 }) }, { requiredKeys: [] }),
  fc.record({ source: anyValue({ maxDepth: 1 }), code: anyValue({ maxDepth: 1 }) }, { requiredKeys: [] }),
  fc.record({ agent: anyValue({ maxDepth: 1 }), code: fc.constantFrom("", "export default 1", 42) }, { requiredKeys: [] }),
  fc.record({ signal: anyValue({ maxDepth: 1 }), timeoutMs: anyValue({ maxDepth: 0 }), memoryMb: anyValue({ maxDepth: 0 }) }, { requiredKeys: [] }),
  fc.record({ reason: anyValue({ maxDepth: 0 }), until: anyValue({ maxDepth: 0 }), actor: anyValue({ maxDepth: 0 }) }, { requiredKeys: [] }),
  fc.constantFrom("agent:x", "plugin:nowhere", "host:h", "", null, undefined, [], {}),
);

/**
 * Strings that name a real place on this machine are not "arbitrary" for
 * load and loadDirectory (loading every folder under `/` is a real request):
 * the property runs in an empty working folder and keeps to relative names.
 */
function harmlessPath(value: unknown): boolean {
  if (typeof value === "string") return !value.startsWith("/") && !value.startsWith("~") && !value.includes("..");
  if (typeof value === "object" && value !== null && "path" in value) return harmlessPath((value as { path: unknown }).path);
  return true;
}

/** Runs `fn`; a throw must be a CorralError whose message ends with its code. */
async function answersOrRefuses(what: string, fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof CorralError, `${what} threw something other than a CorralError: ${String(error)}\n${(error as Error)?.stack ?? ""}`);
    assert.ok(error.message.endsWith(`[${error.code}]`), `${what}: the message does not end with its code: ${error.message}`);
    assert.ok(error.message.length > 20, `${what}: the message says nothing: ${error.message}`);
  }
}

const RUNS = 40;

describe("public arguments", { timeout: 170_000 }, () => {
  const folder = tempDir("corral-args-");
  const cwd = process.cwd();
  before(() => process.chdir(folder.path));
  after(() => {
    process.chdir(cwd);
    folder.remove();
  });

  it("host.load takes a bare path; a wrong request says what it expects", async () => {
    await withHost(async (host) => {
      const file = join(folder.path, "tool.ts");
      writeFileSync(file, toolSource({ name: "bare_path", run: "return 1;" }));
      const loaded = await host.load("./tool.ts");
      assert.ok(loaded.ok, JSON.stringify(loaded));
      assert.deepEqual(loaded.tools.map((t) => t.name), ["bare_path"]);
      await assert.rejects(host.load(42 as never), (error: unknown) => {
        assert.ok(error instanceof CorralError);
        assert.equal(error.code, "invalid_argument");
        assert.match(error.message, /host\.load\(request\) expects request to be a path, \{ path, source\? \} or \{ source, code \}; it was given a number/);
        return true;
      });
      await assert.rejects(host.loadDirectory("no-such-folder"), /a folder that exists.*\[invalid_argument\]/);
      await assert.rejects(host.call("bare_path", {}, { timeoutMs: "soon" } as never), /host\.call\(name, input, options\) expects options/);
    });
  });

  it("every Host method, fed arbitrary arguments, answers or throws a CorralError", async () => {
    await withHost(async (host) => {
      const methods: Array<[string, (h: Host, a: unknown, b: unknown, c: unknown) => unknown]> = [
        ["load", (h, a) => h.load(a as never)],
        ["loadDirectory", (h, a) => h.loadDirectory(a as never)],
        ["author", (h, a) => h.author(a as never)],
        ["call", (h, a, b, c) => h.call(a as never, b, c as never)],
        ["tools", (h) => h.tools()],
        ["declarations", (h, a) => h.declarations(a as never)],
        ["on", (h, a) => h.on(a as never)],
        ["sourceState", (h, a) => h.sourceState(a as never)],
        ["quarantine", (h, a, b) => h.quarantine(a as never, b as never)],
        ["release", (h, a, b) => h.release(a as never, b as never)],
        ["audit", (h) => h.audit()],
        ["auditSource", (h, a) => h.auditSource(a as never)],
        ["library.tools", (h, a) => h.library.tools(a as never)],
        ["library.versions", (h, a) => h.library.versions(a as never)],
        ["library.rollback", (h, a, b, c) => h.library.rollback(a as never, b as never, c as never)],
        ["library.retire", (h, a, b) => h.library.retire(a as never, b as never)],
      ];
      for (const [name, invoke] of methods) {
        await fc.assert(
          fc.asyncProperty(arbitraryArgument.filter(harmlessPath), arbitraryArgument, arbitraryArgument, async (a, b, c) => {
            await answersOrRefuses(`host.${name}`, () => invoke(host, a, b, c));
            assert.equal(host.alive, true);
          }),
          { numRuns: RUNS, seed: 16 },
        );
      }
      // And the host still serves an ordinary call.
      const loaded = await host.author({ agent: "after", code: toolSource({ name: "after_fuzz", run: "return 7;" }) });
      assert.ok(loaded.ok, JSON.stringify(loaded));
      assert.equal(outcomeOf(await host.call("after_fuzz", {})), "ok");
    });
  });

  it("createHost and the Ledger, fed arbitrary arguments, answer or throw a CorralError", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryArgument, async (options) => {
        let host: Host | undefined;
        await answersOrRefuses("createHost", () => {
          host = createHost({ ...(options as object), workers: 1, ledger: { store: false } } as never);
        });
        await host?.close();
        await answersOrRefuses("createHost", () => {
          host = createHost(options as never);
          void host.close();
        });
        await host?.close();
        await answersOrRefuses("new Ledger", () => new Ledger(options as never).close());
      }),
      { numRuns: RUNS, seed: 16 },
    );
    const ledger = new Ledger({ store: new MemoryLedgerStore() });
    const methods: Array<[string, (a: unknown, b: unknown) => unknown]> = [
      ["record", (a, b) => ledger.record(a as never, b as never)],
      ["check", (a) => ledger.check(a as never)],
      ["quarantine", (a, b) => ledger.quarantine(a as never, b as never)],
      ["release", (a, b) => ledger.release(a as never, b as never)],
      ["summary", () => ledger.summary()],
      ["sourceReport", (a, b) => ledger.sourceReport(a as never, b as never)],
    ];
    for (const [name, invoke] of methods) {
      await fc.assert(
        fc.asyncProperty(arbitraryArgument, arbitraryArgument, async (a, b) => answersOrRefuses(`ledger.${name}`, () => invoke(a, b))),
        { numRuns: RUNS * 3, seed: 16 },
      );
    }
    await ledger.close();
  });

  it("the loop's functions, fed arbitrary arguments, answer or throw a CorralError", async () => {
    const endTurn = { id: "m", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "done" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
    const model: Model = { createMessage: async () => parseMessage(endTurn) };
    const loopHost = { declarations: () => [], call: async () => ({ ok: true as const, output: "", warm: true, durationMs: 0 }) };
    const request = { model: "m", max_tokens: 10, messages: [{ role: "user" as const, content: "hi" }] };
    await fc.assert(
      fc.asyncProperty(arbitraryArgument, arbitraryArgument, arbitraryArgument, async (a, b, c) => {
        await answersOrRefuses("runConversation", () => runConversation(a as never, b as never, c as never));
        await answersOrRefuses("runConversation(request)", () => runConversation(model, a as never, { host: loopHost as never }));
        await answersOrRefuses("runConversation(options)", () => runConversation(model, request, a as never));
        await answersOrRefuses("anthropicModel", () => anthropicModel(a as never));
        await answersOrRefuses("toToolResultBlock", () => toToolResultBlock(a as never, b as never));
        await answersOrRefuses("toToolResultBlock(result)", () => toToolResultBlock("id", a as never));
        await answersOrRefuses("outcomeOf", () => outcomeOf(a as never));
        await answersOrRefuses("parseMessage", () => parseMessage(a));
      }),
      { numRuns: RUNS * 5, seed: 16 },
    );
  });
});
