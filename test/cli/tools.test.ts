/**
 * `corral tools` against the library a real host wrote into its ledger file:
 * the list, one tool's versions, a rollback and a retirement that a host on
 * the same file obeys, and misuse (an unknown tool, a version it lacks, a
 * bad version number, a ledger that does not exist).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHost, type ToolResult } from "../../src/index.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource } from "../helpers/host.js";
import { runCli } from "./cli-process.js";

const answering = (answer: string) => toolSource({ name: "cli_kept", run: `return ${JSON.stringify(answer)};` });
const output = (result: ToolResult) => (result.ok ? result.output : `${result.error.kind}: ${result.error.message}`);

describe("corral tools", { timeout: 120_000 }, () => {
  it("lists, shows versions, rolls back and retires what hosts on the ledger serve", async () => {
    const before = childPids();
    const dir = tempDir();
    const ledger = join(dir.path, "ledger.db");
    const host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: ledger } });
    try {
      assert.ok((await host.author({ agent: "cli-agent", code: answering("one") })).ok);
      assert.ok((await host.author({ agent: "cli-agent", code: answering("two") })).ok);
      const cli = (...args: string[]) => runCli(["--ledger", ledger, ...args], { cwd: dir.path });

      const list = await cli("tools");
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /TOOL\s+SOURCE\s+CURRENT\s+VERSIONS\s+STATE/);
      assert.match(list.stdout, /cli_kept\s+agent:cli-agent\s+v2\s+2\s+live/);
      const json = JSON.parse((await cli("tools", "--agent", "cli-agent", "--json")).stdout) as { name: string; current: number }[];
      assert.deepEqual(json.map((tool) => [tool.name, tool.current]), [["cli_kept", 2]]);
      assert.match((await cli("tools", "--agent", "nobody")).stdout, /agent:nobody has no tools/);

      const versions = await cli("tools", "versions", "cli_kept");
      assert.equal(versions.code, 0, versions.stderr);
      assert.match(versions.stdout, /\*\s+v2\s+\S+\s+program\s+[0-9a-f]{12}\s+test tool cli_kept/);
      assert.match(versions.stdout, /\n\s+v1\s/);

      const back = await cli("tools", "rollback", "cli_kept", "v1");
      assert.equal(back.code, 0, back.stderr);
      assert.match(back.stdout, /cli_kept is at v1 on every host of this ledger/);
      let answer: unknown;
      for (const end = Date.now() + 5_000; answer !== "one" && Date.now() < end; ) answer = output(await host.call("cli_kept", {}));
      assert.equal(answer, "one", "the host on the file follows the rollback");

      assert.equal((await cli("tools", "retire", "cli_kept")).code, 0);
      for (const end = Date.now() + 5_000; host.tools().some((tool) => tool.name === "cli_kept") && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.equal(host.tools().some((tool) => tool.name === "cli_kept"), false, "the host no longer offers a retired tool");
      assert.match((await cli("tools")).stdout, /cli_kept\s+agent:cli-agent\s+v1\s+2\s+retired/);

      const missing = await cli("tools", "rollback", "no_such_tool", "1");
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /the library has no tool named "no_such_tool"/);
      const noVersion = await cli("tools", "rollback", "cli_kept", "9");
      assert.equal(noVersion.code, 1);
      assert.match(noVersion.stderr, /"cli_kept" has no version 9 \(it has versions 1 to 2\)/);
      const badNumber = await cli("tools", "rollback", "cli_kept", "latest");
      assert.equal(badNumber.code, 2);
      assert.match(badNumber.stderr, /expected a version number/);
      const noLedger = await runCli(["--ledger", join(dir.path, "nowhere.db"), "tools"], { cwd: dir.path });
      assert.equal(noLedger.code, 1);
      assert.match(noLedger.stderr, /there is no ledger at/);
    } finally {
      await host.close();
      dir.remove();
      await assertNoWorkersLeft(before);
    }
  });
});
