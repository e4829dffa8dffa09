import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/cli/main.js";
import { tempDir } from "../helpers/host.js";
import { runCli, toolModule, writeTool, type CliRun } from "./cli-process.js";

describe("corral usage, exit codes and logs", { timeout: 120_000 }, () => {
  const dir = tempDir("corral-cli-usage-");
  const cacheDir = join(dir.path, "cache");
  const corral = (...args: string[]): Promise<CliRun> => runCli(args, { cwd: dir.path, cacheDir });
  after(() => dir.remove());

  it("--help lists every command on stdout and exits 0", async () => {
    const run = await corral("--help");
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: corral /m);
    for (const command of ["run", "check", "list", "demo"]) assert.match(run.stdout, new RegExp(`^  ${command} `, "m"));
    assert.match(run.stdout, /--cache-dir <dir>/);
  });

  it("each command has its own --help", async () => {
    const run = await corral("run", "--help");
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: corral run \[options\] <file\|name>/m);
    for (const flag of ["--input <json>", "--tool <name>", "--json", "--timeout <ms>", "--memory <mb>"]) assert.ok(run.stdout.includes(flag), flag);
  });

  it("--version prints the package's version", async () => {
    const run = await corral("--version");
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^\d+\.\d+\.\d+/);
  });

  it("an unknown command is a usage error (exit 2)", async () => {
    const run = await corral("frobnicate");
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown command 'frobnicate'/);
    assert.equal(run.stdout, "");
  });

  it("no command, an unknown flag and a missing argument are usage errors", async () => {
    const none = await corral();
    assert.equal(none.code, 2);
    const flag = await corral("list", "--frobnicate");
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown option '--frobnicate'/);
    const missing = await corral("run");
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing required argument/);
  });

  it("a CORRAL_LOG that is not a level is a usage error", async () => {
    const run = await runCli(["list", dir.path], { cwd: dir.path, cacheDir, env: { CORRAL_LOG: "loud" } });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /CORRAL_LOG="loud" is not a log level/);
  });

  it("a CorralError from the host (here: invalid options) is a usage error with its code", async () => {
    const run = await runCli(["list", dir.path], { cwd: dir.path, cacheDir: "" });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^corral: createHost options are invalid: cacheDir: .*\[invalid_options\]$/m);
  });

  it("is quiet by default; --verbose and CORRAL_LOG write pino JSON lines to stderr", async () => {
    writeTool(dir.path, "hello.ts", toolModule({ name: "hello", run: 'return "hi";' }));
    const quiet = await corral("run", "hello.ts");
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, "");

    for (const run of [await corral("--verbose", "run", "hello.ts"), await runCli(["run", "hello.ts"], { cwd: dir.path, cacheDir, env: { CORRAL_LOG: "info" } })]) {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "hi\n", "logs never reach stdout");
      const events = run.stderr.trim().split("\n").map((line) => JSON.parse(line) as { event?: string; tool?: string; outcome?: string });
      assert.ok(events.some((e) => e.event === "call" && e.tool === "hello" && e.outcome === "ok"), run.stderr);
    }
  });

  it("global options work after the command too", async () => {
    const otherCache = join(dir.path, "other-cache");
    const run = await runCli(["run", "hello.ts", "--cache-dir", otherCache], { cwd: dir.path });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(otherCache), "the bundle was cached in --cache-dir");
  });

  it("caches in .corral/cache under the working directory by default", async () => {
    const run = await runCli(["run", "hello.ts"], { cwd: dir.path });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(join(dir.path, ".corral", "cache")));
  });

  it("main() returns exit codes in-process instead of exiting", async () => {
    const out: string[] = [];
    const io = { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => out.push(text) } };
    assert.equal(await main(["--help"], io), 0);
    assert.match(out.join(""), /Usage: corral/);
    assert.equal(await main(["frobnicate"], io), 2);
    assert.equal(await main(["run", "x.ts", "--input", "{"], io), 2);
    // Still here: none of these called process.exit.
    assert.equal(process.exitCode ?? 0, 0);
  });
});
