/**
 * The library through real hosts on one SQLite file: what an agent writes
 * is served by a host started afterwards (loaded on its first call, not at
 * start), versioned, rolled back and retired on every host of the file, and
 * a row changed outside corral is refused with a message in the ledger.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createHost, type Host, type HostOptions, type ToolResult } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource } from "../helpers/host.js";

const answering = (name: string, answer: string, extra = "") => toolSource({ name, run: `return ${JSON.stringify(answer)};`, extra });

function okOutput(result: ToolResult): unknown {
  assert.ok(result.ok, result.ok ? "" : `${result.error.kind}: ${result.error.message}`);
  return result.output;
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    assert.ok(Date.now() < end, `not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Hosts on one ledger file and one cache folder; all closed after `fn`. */
async function withHosts(fn: (start: (options?: HostOptions) => Host, file: string) => Promise<void>): Promise<void> {
  const before = childPids();
  const dir = tempDir();
  const file = join(dir.path, "ledger.db");
  const hosts: Host[] = [];
  try {
    await fn((options = {}) => {
      const host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: file }, ...options });
      hosts.push(host);
      return host;
    }, file);
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
    dir.remove();
    await assertNoWorkersLeft(before);
  }
}

describe("the library of agent-written tools", { timeout: 120_000 }, () => {
  it("serves what an agent wrote to a host started later, loading it on its first call", async () => {
    await withHosts(async (start) => {
      const first = start();
      const authored = await first.author({ agent: "writer", code: answering("kept_tool", "v1") });
      assert.ok(authored.ok, JSON.stringify(authored));
      assert.deepEqual(authored.versions, [{ name: "kept_tool", version: 1, unchanged: false }]);
      await first.close();

      const second = start();
      await second.library.ready();
      const info = second.tools().find((tool) => tool.name === "kept_tool");
      assert.equal(info?.source, "agent:writer", "listed before any call");
      assert.ok(second.declarations().some((declaration) => declaration.name === "kept_tool"), "declared as its exposure (direct) says");
      assert.equal(okOutput(await second.call("kept_tool", {})), "v1");
      const report = await second.auditSource("agent:writer");
      assert.equal(report?.tools.find((tool) => tool.tool === "kept_tool")?.totals.calls, 1, "the call is recorded against the agent");
    });
  });

  it("lets a Code Mode script of a restarted host call a stored tool it has not loaded yet", async () => {
    await withHosts(async (start) => {
      const first = start();
      assert.ok((await first.author({ agent: "writer", code: toolSource({ name: "double", input: "z.object({ n: z.number() })", run: "return input.n * 2;" }) })).ok);
      await first.close();
      const second = start({ codeMode: {} });
      await second.library.ready();
      const { createCaller } = await import("../../src/index.js");
      const script = await second.call("run_code", { code: "const a = await tools.double({ n: 4 }); const b = await tools.double({ n: a }); return a + b;" }, { caller: createCaller({ id: "script-caller" }) });
      assert.equal(script.ok && script.structured, 24, JSON.stringify(script));
    });
  });

  it("versions a name, rolls it back and retires it on every host of the store", async () => {
    await withHosts(async (start) => {
      const one = start();
      const two = start();
      await Promise.all([one.library.ready(), two.library.ready()]);
      assert.ok((await one.author({ agent: "writer", code: answering("versioned", "first") })).ok);
      const second = await one.author({ agent: "writer", code: answering("versioned", "second") });
      assert.deepEqual(second.ok && second.versions, [{ name: "versioned", version: 2, unchanged: false }]);
      assert.equal(okOutput(await one.call("versioned", {})), "second");
      assert.deepEqual((await one.library.versions("versioned")).map((v) => v.version), [2, 1]);

      await until(() => two.tools().some((tool) => tool.name === "versioned"), 10_000, "the other host sees the new tool");
      // It may have synced between the two versions and serve the first for a moment: the second reaches it soon after.
      let served: unknown;
      for (const end = Date.now() + 10_000; served !== "second" && Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 25))) {
        served = okOutput(await two.call("versioned", {}));
      }
      assert.equal(served, "second");

      const back = await two.library.rollback("versioned", 1);
      assert.equal(back.current, 1);
      assert.equal(okOutput(await two.call("versioned", {})), "first", "rolled back where it was asked");
      let answer: unknown;
      for (const end = Date.now() + 10_000; answer !== "first" && Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 25))) {
        const result = await one.call("versioned", {});
        answer = result.ok ? result.output : `${result.error.kind}: ${result.error.message}`;
      }
      assert.equal(answer, "first", "the rollback reaches the other host");

      await one.library.retire("versioned");
      const refused = await one.call("versioned", {});
      assert.equal(!refused.ok && refused.error.kind, "unknown_tool", "a retired tool is not callable");
      await until(() => !two.tools().some((tool) => tool.name === "versioned"), 10_000, "the retirement reaches the other host");
      const listed = await two.library.tools({ agent: "writer" });
      assert.ok(listed.find((tool) => tool.name === "versioned")?.retiredAt !== null, "its record is kept");
      await assert.rejects(() => one.library.rollback("versioned", 7), /no version 7/);
      await assert.rejects(() => one.library.retire("nothing_here"), (error: Error & { code?: string }) => error.code === "not_in_library");
    });
  });

  it("refuses a row whose source no longer matches its hash, or whose manifest was changed, naming it in the ledger", async () => {
    await withHosts(async (start, file) => {
      const first = start();
      assert.ok((await first.author({ agent: "writer", code: answering("tampered", "honest") })).ok);
      assert.ok((await first.author({ agent: "writer", code: answering("relabelled", "honest", 'exposure: "direct",') })).ok);
      assert.ok((await first.author({ agent: "writer", code: answering("fine", "still fine") })).ok);
      await first.close();
      const db = new Database(file);
      db.prepare("UPDATE library_modules SET code = replace(code, 'honest', 'evil') WHERE code LIKE '%\"tampered\"%'").run();
      db.prepare("UPDATE library_versions SET manifest = replace(manifest, '\"effects\":[]', '\"effects\":[\"net_read\"]') WHERE name = 'relabelled'").run();
      db.prepare("INSERT INTO library_tools (name, agent, current, retired_at, updated_at) VALUES ('garbled', 'writer', 1, NULL, 1)").run();
      db.prepare("INSERT INTO library_versions (name, version, hash, manifest, caller, created_at) VALUES ('garbled', 1, ?, '{not json', NULL, 1)").run("0".repeat(64));
      db.prepare("INSERT INTO library_tools (name, agent, current, retired_at, updated_at) VALUES ('bad agent row', 'not an agent id!', 1, NULL, 1)").run();
      db.prepare("INSERT INTO library_versions (name, version, hash, manifest, caller, created_at) VALUES ('bad agent row', 1, 'xyz', '{}', NULL, 1)").run();
      db.close();

      const second = start();
      await second.library.ready();
      const tampered = await second.call("tampered", {});
      assert.equal(!tampered.ok && tampered.error.kind, "compile_error");
      assert.match(!tampered.ok ? tampered.error.message : "", /"tampered" \(agent:writer, version 1\) is refused: its source does not match its content hash/);
      const relabelled = await second.call("relabelled", {});
      assert.match(!relabelled.ok ? relabelled.error.message : "", /stored manifest does not match/);
      assert.equal(okOutput(await second.call("fine", {})), "still fine", "every other tool keeps working");
      assert.equal(second.tools().some((tool) => tool.name === "garbled"), false, "a row whose manifest corral cannot use is not served");
      const report = await second.auditSource("agent:writer");
      assert.equal(report?.tools.find((tool) => tool.tool === "tampered")?.totals.outcomes.compile_error, 1, "the refusal is in the ledger");
    });
  });

  it("refuses another agent's name, a plugin's name, and an agent past its limit", async () => {
    await withHosts(async (start) => {
      const host = start({ maxToolsPerAgent: 2 });
      assert.ok((await host.author({ agent: "a", code: answering("shared_name", "a's") })).ok);
      const taken = await host.author({ agent: "b", code: answering("shared_name", "b's") });
      assert.match(!taken.ok ? taken.error.message : "", /"shared_name" \(owned by agent:a\)|taken by agent:a/);
      assert.ok((await host.load({ source: "plugin:local", code: answering("plugin_tool", "p") })).ok);
      const plugin = await host.author({ agent: "a", code: answering("plugin_tool", "mine") });
      assert.match(!plugin.ok ? plugin.error.message : "", /owned by plugin:local/);
      assert.ok((await host.author({ agent: "a", code: answering("second_tool", "2") })).ok);
      const over = await host.author({ agent: "a", code: answering("third_tool", "3") });
      assert.match(!over.ok ? over.error.message : "", /at most 2 tools and this would make 3; retire some first/);
      await host.library.retire("second_tool", { agent: "a" });
      assert.ok((await host.author({ agent: "a", code: answering("third_tool", "3") })).ok, "a retired tool frees its slot");
      await assert.rejects(() => host.library.retire("shared_name", { agent: "b" }), /agent:b has no tool named "shared_name"/);
    });
  });
});

describe("tool_search over the library", { timeout: 120_000 }, () => {
  it("finds an agent's deferred tools by what they do, and never a quarantined or retired one", async () => {
    await withHosts(async (start) => {
      const host = start({ createTool: { agent: "finder", exposure: "direct" } });
      const deferred = (name: string, description: string) =>
        `import { defineTool } from "corral"; import { z } from "zod";
export default defineTool({ name: ${JSON.stringify(name)}, description: ${JSON.stringify(description)}, input: z.object({ text: z.string() }), effects: [], exposure: "deferred", run: () => ${JSON.stringify(name)} });`;
      assert.ok((await host.author({ agent: "finder", code: deferred("csv_to_json", "Converts CSV text into JSON records") })).ok);
      assert.ok((await host.author({ agent: "finder", code: deferred("invoice_total", "Adds up the lines of an invoice") })).ok);
      assert.ok((await host.author({ agent: "other", code: deferred("csv_counter", "Counts rows of CSV text") })).ok);
      const caller = (await import("../../src/index.js")).createCaller({ origin: "model" });
      assert.ok(!host.declarations({ caller }).some((d) => d.name === "csv_to_json"), "a deferred tool is not declared by default");
      const found = await host.call("tool_search", { query: "convert csv into json" }, { caller });
      const tools = (found.ok ? (found.structured as { tools: { name: string }[] }).tools : []).map((t) => t.name);
      assert.equal(tools[0], "csv_to_json", JSON.stringify(tools));
      assert.ok(host.declarations({ caller }).some((d) => d.name === "csv_to_json"), "found, it is declared to that caller");
      assert.equal(okOutput(await host.call("csv_to_json", { text: "a,b" }, { caller })), "csv_to_json");

      await host.quarantine("agent:other", { reason: "test" });
      await host.library.retire("invoice_total");
      const after = await host.call("tool_search", { query: "csv invoice rows" }, { caller });
      const offered = (after.ok ? (after.structured as { tools: { name: string }[] }).tools : []).map((t) => t.name);
      assert.ok(!offered.includes("csv_counter") && !offered.includes("invoice_total"), `offered: ${offered.join(", ")}`);
    });
  });
});
