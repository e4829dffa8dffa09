/**
 * A reader that goes away (`corral --help | true`, `corral list | head -1`,
 * a desktop client that stops reading): the real bin, its stdout's read end
 * closed before it writes. Each command ends on its own (its host and
 * workers closed as usual), with its own exit code and no stack trace.
 */
import { spawn } from "node:child_process";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers/host.js";
import { BIN } from "./cli-process.js";

type Ended = { code: number | null; signal: NodeJS.Signals | null; stderr: string };

/** Runs the bin with its stdout closed at once; `stdin` is written (and kept open) when given. */
function runWithClosedStdout(args: string[], cwd: string, stdin?: string): Promise<Ended> {
  const { CORRAL_LOG: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [BIN, "--no-config", ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdout.destroy();
  if (stdin !== undefined) child.stdin.write(stdin);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const deadline = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      clearTimeout(deadline);
      child.stdin.destroy();
      resolve({ code, signal, stderr });
    });
  });
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "gone", version: "1" } },
})}\n`;

describe("a closed stdout or stderr", { timeout: 120_000 }, () => {
  const dir = tempDir("corral-cli-epipe-");
  after(() => dir.remove());
  const quiet = (ended: Ended) => assert.doesNotMatch(ended.stderr, /EPIPE|Error|    at /, ended.stderr);

  it("--help ends with 0 and no stack trace", async () => {
    const ended = await runWithClosedStdout(["--help"], dir.path);
    assert.equal(ended.code, 0, ended.stderr);
    assert.equal(ended.stderr, "");
  });

  it("list ends with its own code, its workers closed", async () => {
    const ended = await runWithClosedStdout(["--cache-dir", join(dir.path, "cache"), "list"], dir.path);
    assert.equal(ended.signal, null);
    assert.equal(ended.code, 0, ended.stderr);
    quiet(ended);
  });

  it("mcp over stdio ends cleanly when its client stops reading", async () => {
    const ended = await runWithClosedStdout(["--cache-dir", join(dir.path, "cache"), "--ledger", join(dir.path, "ledger.db"), "mcp"], dir.path, INITIALIZE);
    assert.equal(ended.signal, null);
    assert.equal(ended.code, 0, ended.stderr);
    quiet(ended);
  });

  it("mcp over stdio serves on when only its stderr is closed (logs nobody reads)", async () => {
    const { CORRAL_LOG: _ignored, ...env } = process.env;
    const args = [BIN, "--no-config", "--cache-dir", join(dir.path, "cache"), "--ledger", join(dir.path, "ledger.db"), "mcp"];
    const child = spawn(process.execPath, args, { cwd: dir.path, env, stdio: ["pipe", "pipe", "pipe"] });
    child.stderr.destroy();
    let stdout = "";
    const answered = new Promise<void>((resolve) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('"id":1')) resolve();
      });
    });
    const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    // Asked only once it has loaded (and so written its progress lines to the closed stderr).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    child.stdin.write(INITIALIZE);
    await Promise.race([answered, closed.then((code) => assert.fail(`exited ${code} instead of answering`))]);
    assert.match(stdout, /"serverInfo"/);
    child.stdin.end();
    assert.equal(await closed, 0);
  });
});
