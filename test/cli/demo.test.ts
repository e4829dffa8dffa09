import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers/host.js";
import { runCli } from "./cli-process.js";

describe("corral demo (npm start)", { timeout: 120_000 }, () => {
  const dir = tempDir("corral-cli-demo-");
  after(() => dir.remove());

  it("runs a Code Mode script, stops a runaway loop and a memory hog, answers again, and exits 0", async () => {
    const run = await runCli(["demo"], { cwd: dir.path, cacheDir: join(dir.path, "cache") });
    assert.equal(run.signal, null, "the demo exited on its own");
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^load {2}agent:demo-loop +ok +spin_forever/m);
    assert.match(run.stdout, /^call {2}spin_forever +timeout +\d+ ms/m);
    assert.match(run.stdout, /^call {2}hoard_memory +memory +[\d.]+ ms/m);
    // Code Mode: one script, two nested calls, only the answer it chose.
    assert.match(run.stdout, /^call {2}run_code +ok +[\d.]+ m?s {2}\{"words":9,"miles":5\.59\}$/m);
    assert.match(run.stdout, /its nested calls: text_stats ok, unit_convert ok/);
    assert.match(run.stdout, /the host is still alive and answering after \d+ calls/);
    assert.match(run.stdout, /\d+ sandbox worker/);
    // Progress goes to stderr, so stdout is the report alone.
    assert.match(run.stderr, /^corral: loading the bundled plugins/m);
    assert.doesNotMatch(run.stdout, /^corral: /m);
  });
});
