/**
 * @module test/helpers/library-host
 * One host of the library's fleet tests, in a process of its own: a real
 * host (one sandbox worker) on the ledger argv[2] names (a PostgreSQL URL or
 * a SQLite file), with `maxToolsPerAgent` argv[3] (default 20). It answers
 * lines on stdin, one line each on stdout:
 *
 * - `author <agent> <tool> <answer>` ─▶ `authored <tool> ok <version>` or `authored <tool> <kind> <message>`
 * - `call <tool>` ─▶ `called <tool> ok <output>` or `called <tool> <kind> <message>`
 * - `rollback <tool> <version>`, `retire <tool>` ─▶ `done <tool> <current>`
 * - `quarantine <source>` ─▶ `done <source> quarantined`
 * - `exit` ─▶ closes the host and exits
 *
 * It writes `ready` once the library is read.
 */
import { createInterface } from "node:readline";
import { join } from "node:path";
import { createHost } from "../../src/index.js";
import { tempDir, toolSource } from "./host.js";

const url = process.argv[2];
if (url === undefined) throw new Error("usage: library-host.js <postgres url | ledger file> [maxToolsPerAgent]");
const cache = tempDir("corral-library-host-");
const host = createHost({ workers: 1, cacheDir: join(cache.path, "cache"), ledger: { store: url }, maxToolsPerAgent: Number(process.argv[3] ?? 20) });
await host.library.ready();
process.stdout.write("ready\n");

const oneLine = (text: string) => text.replace(/\s+/g, " ").slice(0, 300);

async function answer(line: string): Promise<string | undefined> {
  const [command, first = "", second = ""] = line.split(" ");
  switch (command) {
    case "author": {
      const tool = second;
      const code = toolSource({ name: tool, run: `return ${JSON.stringify(line.split(" ").slice(3).join(" "))};` });
      const loaded = await host.author({ agent: first, code });
      return loaded.ok ? `authored ${tool} ok ${loaded.versions?.find((v) => v.name === tool)?.version}` : `authored ${tool} ${loaded.error.kind} ${oneLine(loaded.error.message)}`;
    }
    case "call": {
      const result = await host.call(first, {});
      return result.ok ? `called ${first} ok ${String(result.output)}` : `called ${first} ${result.error.kind} ${oneLine(result.error.message)}`;
    }
    case "rollback":
      return `done ${first} ${(await host.library.rollback(first, Number(second))).current}`;
    case "retire":
      return `done ${first} ${(await host.library.retire(first)).current}`;
    case "quarantine":
      await host.quarantine(first, { reason: "fleet test" });
      return `done ${first} quarantined`;
    default:
      return undefined;
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line === "exit") break;
  try {
    const reply = await answer(line);
    if (reply !== undefined) process.stdout.write(`${reply}\n`);
  } catch (error) {
    process.stdout.write(`error ${oneLine((error as Error).message)}\n`);
  }
}
// An open stdin pipe would keep this process alive after the loop.
process.stdin.destroy();
await host.close();
cache.remove();
