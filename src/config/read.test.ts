/**
 * @module src/config/read.test
 * Reading corral.json: comments and trailing commas parse; every kind of
 * mistake (syntax, duplicate key, unknown key, wrong type, a token, a path
 * that does not exist, an origin the host cannot read, conflicting limits)
 * is refused with the file, line:column and key path; paths come back
 * absolute, relative to the config's folder; the nearest file is found
 * from a folder below it.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/helpers/host.js";
import { CorralError } from "../errors.js";
import { checkConfigText, findConfigFile, keyPath, readConfig } from "./read.js";

describe("corral.json", () => {
  const dir = tempDir("corral-config-");
  const file = join(dir.path, "corral.json");
  mkdirSync(join(dir.path, "tools"));
  mkdirSync(join(dir.path, "work"));
  after(() => dir.remove());

  /** The message of the invalid_config the text is refused with. */
  function refusal(text: string): string {
    try {
      checkConfigText(text, file);
    } catch (error) {
      assert.ok(error instanceof CorralError && error.code === "invalid_config", String(error));
      return error.message;
    }
    assert.fail(`accepted: ${text}`);
  }

  it("takes comments and trailing commas, and resolves paths against its own folder", () => {
    const loaded = checkConfigText(
      `{
        // the tools
        "tools": ["./tools",],
        /* limits */ "defaultTimeoutMs": 1000,
        "cacheDir": "cache",
        "ledger": { "store": "state/ledger.db" },
        "capabilities": { "sources": { "plugin": { "fs": { "root": "work" } } } },
        "createTool": { "agent": "desktop" },
      }`,
      file,
    );
    assert.deepEqual(loaded.config.tools, [join(dir.path, "tools")]);
    assert.equal(loaded.host.cacheDir, join(dir.path, "cache"));
    assert.equal(loaded.host.ledger?.store, join(dir.path, "state/ledger.db"));
    assert.equal(loaded.host.capabilities?.sources?.plugin?.fs?.root, join(dir.path, "work"));
    assert.equal(loaded.host.sourceRoot, dir.path, "source ids are relative to the config's folder");
    assert.equal(loaded.host.createTool?.exposure, "direct", "a config that turns create_tool on offers it");
    assert.equal(loaded.host.defaultTimeoutMs, 1000);
    assert.equal("tools" in loaded.host, false, "tools is the CLI's, not createHost's");
  });

  it("keeps a postgres:// URL, :memory: and false as they are", () => {
    for (const store of ["postgres://u@127.0.0.1/db", ":memory:", false]) {
      assert.equal(checkConfigText(JSON.stringify({ ledger: { store } }), file).host.ledger?.store, store);
    }
  });

  it("names the line, column and key of an unknown key, a wrong type and a token", () => {
    const message = refusal(`{
  "workers": "two",
  "mcp": { "transprt": "http", "token": "s3cret" },
  "cacheDir": 5
}`);
    assert.match(message, /corral\.json:2:14 {2}workers: expected number, received string/);
    assert.match(message, /corral\.json:3:12 {2}mcp\.transprt: unknown key "transprt"/);
    assert.match(message, /corral\.json:3:41 {2}mcp\.token: a token is never read from corral\.json: set CORRAL_MCP_TOKEN or pass --token/);
    assert.match(message, /corral\.json:4:15 {2}cacheDir: expected string or false/);
    assert.match(message, /--no-config \[invalid_config\]$/);
    assert.doesNotMatch(message, /s3cret/, "the secret is not repeated");
  });

  it("refuses JSON that does not parse, an empty file and a key written twice", () => {
    assert.match(refusal('{\n  "workers": 2\n  "tools": []\n}'), /corral\.json:3:3 {2}\(the file\): the file is not JSON with comments: a comma expected/);
    assert.match(refusal(""), /the file is empty/);
    assert.match(refusal('{ "workers": 1,\n "workers": 2 }'), /corral\.json:2:2 {2}workers: this key is written twice/);
    assert.match(refusal("[]"), /\(the file\): expected object, received array/);
  });

  it("refuses paths that do not exist, origins the host cannot read, and limits that conflict", () => {
    const message = refusal(`{
  "tools": ["./tools", "./nowhere"],
  "capabilities": { "fs": { "root": "./missing" }, "net": { "allow": ["ftp://files.example.com"] } },
  "defaultTimeoutMs": 9000, "maxTimeoutMs": 100
}`);
    assert.match(message, new RegExp(`corral\\.json:2:24 {2}tools\\[1\\]: nothing is at ${join(dir.path, "nowhere")}`));
    assert.match(message, /corral\.json:3:37 {2}capabilities\.fs\.root: no folder is at /);
    assert.match(message, /corral\.json:3:71 {2}capabilities\.net\.allow\[0\]: "ftp:\/\/files\.example\.com" /);
    assert.match(message, /corral\.json:4:23 {2}defaultTimeoutMs: options\.defaultTimeoutMs and options\.maxTimeoutMs conflict/);
  });

  it("refuses what only code can be (a gate, a logger, telemetry providers)", () => {
    for (const key of ["beforeToolCall", "onEvent", "logger", "telemetry", "sourceRoot"]) assert.match(refusal(`{ "${key}": {} }`), new RegExp(`unknown key "${key}"`));
    assert.match(refusal('{ "ledger": { "now": 1 } }'), /ledger\.now: unknown key/);
  });

  it("is found in the folder given or a folder above it; a missing --config file is refused", () => {
    writeFileSync(file, '{ "workers": 1 }');
    const below = join(dir.path, "tools", "deeper");
    mkdirSync(below);
    assert.equal(findConfigFile(below), file);
    assert.equal(readConfig(file).host.workers, 1);
    assert.throws(() => readConfig(join(dir.path, "absent.json")), /cannot read the config .*absent\.json: there is no such file; .*--no-config to use none \[invalid_config\]/);
  });

  it("writes key paths as a person reads them", () => {
    assert.equal(keyPath(["capabilities", "sources", "plugin:x", "fs", "root"]), 'capabilities.sources["plugin:x"].fs.root');
    assert.equal(keyPath(["tools", 0]), "tools[0]");
    assert.equal(keyPath([]), "(the file)");
  });
});
