/**
 * `corral init` through the real bin: it writes a commented corral.json and
 * a sample tool that the other commands then take as they are (list, run,
 * check), prints the desktop client's stdio entry with absolute paths and
 * the HTTP one, and never overwrites a file.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { tempDir } from "../helpers/host.js";
import { BIN, runCli } from "./cli-process.js";

describe("corral init", { timeout: 120_000 }, () => {
  const dir = tempDir("corral-cli-init-");
  after(() => dir.remove());

  it("writes a config and a sample tool that every command takes, and prints both MCP snippets", async () => {
    const project = join(dir.path, "fresh");
    mkdirSync(project);
    const init = await runCli(["init"], { cwd: project });
    assert.equal(init.code, 0, init.stderr);
    const config = readFileSync(join(project, "corral.json"), "utf8");
    assert.match(config, /^ {2}\/\/ /m, "the config is commented");
    assert.match(config, /"\$schema": "file:\/\/.*\/corral\.schema\.json"/, "no local install here: the package's own schema file");
    assert.match(readFileSync(join(project, "tools", "hello.ts"), "utf8"), /import \{ defineTool \} from "corral\/sdk";/);

    const stdio = JSON.parse(/^\{\n[\s\S]*?\n\}$/m.exec(init.stdout)?.[0] ?? "null") as { mcpServers: { corral: { command: string; args: string[] } } };
    const entry = stdio.mcpServers.corral;
    assert.equal(entry.command, process.execPath);
    assert.deepEqual(entry.args, [BIN, "mcp", "--config", join(project, "corral.json")]);
    assert.ok(entry.args.every((arg) => !arg.includes("/") || isAbsolute(arg)));
    assert.match(init.stdout, /"url": "http:\/\/127\.0\.0\.1:\d+\/mcp"/);
    assert.match(init.stdout, /"Authorization": "Bearer <the token in CORRAL_MCP_TOKEN>"/);

    const run = await runCli(["run", "hello", "--input", '{"name":"world"}'], { cwd: project });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Hello, world!\n");
    const check = await runCli(["check"], { cwd: project });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /^ok {3}plugin:tools\/hello\.ts /m);
  });

  it("never overwrites: with either file there, it writes nothing, names it and exits 1", async () => {
    const project = join(dir.path, "taken");
    mkdirSync(project);
    writeFileSync(join(project, "corral.json"), "{ /* mine */ }");
    const init = await runCli(["init"], { cwd: project });
    assert.equal(init.code, 1);
    assert.match(init.stderr, /corral\.json already exists; corral init never overwrites a file/);
    assert.equal(readFileSync(join(project, "corral.json"), "utf8"), "{ /* mine */ }");
    assert.throws(() => readFileSync(join(project, "tools", "hello.ts")), /ENOENT/, "not even the tool file");
  });

  it("points $schema at the project's own installed corral when there is one", async () => {
    const project = join(dir.path, "installed");
    mkdirSync(join(project, "node_modules", "corral"), { recursive: true });
    writeFileSync(join(project, "node_modules", "corral", "corral.schema.json"), "{}");
    const init = await runCli(["init"], { cwd: project });
    assert.equal(init.code, 0, init.stderr);
    assert.match(readFileSync(join(project, "corral.json"), "utf8"), /"\$schema": "\.\/node_modules\/corral\/corral\.schema\.json"/);
  });

  it("writes into the folder given, whatever config is above it", async () => {
    writeFileSync(join(dir.path, "corral.json"), "{ broken");
    const init = await runCli(["init", "sub"], { cwd: dir.path });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, new RegExp(`wrote ${join(dir.path, "sub", "corral.json")}`));
  });
});
