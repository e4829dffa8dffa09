/**
 * @module test/cli/dashboard.test
 * `corral dashboard` as a user runs it: it prints the address with its token
 * and serves the ledger until SIGTERM, then exits 0; the token can come from
 * --token or CORRAL_DASHBOARD_TOKEN; a ledger file that is no ledger (or
 * none at all) is a clear error and exit 1; a PostgreSQL ledger is served,
 * and its URL's password never printed.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/host.js";
import { seedLedger } from "../helpers/ledger-seed.js";
import { BIN, runCli } from "./cli-process.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";

const schemas = testSchemas("cli_dash");
after(() => schemas.dropAll());

/** Starts `corral dashboard`, reads the address it prints, asks the API, then stops it with SIGTERM. */
async function serveOnce(args: string[], env: Record<string, string>, cwd: string): Promise<{ stdout: string; status: number; total: number }> {
  const child = spawn(process.execPath, [BIN, "dashboard", ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address printed: ${stdout}`)), 30_000);
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        const match = /open (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(stdout);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(new URL(match[1]));
        }
      });
    });
    const token = new URLSearchParams(url.hash.slice(1)).get("token") ?? env.CORRAL_DASHBOARD_TOKEN ?? "";
    const response = await fetch(new URL("/api/overview", url), { headers: { Authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { page?: { total: number } };
    return { stdout, status: response.status, total: body.page?.total ?? -1 };
  } finally {
    child.kill("SIGTERM");
    const code = await exited;
    assert.equal(code, 0, "SIGTERM stops the dashboard cleanly");
  }
}

describe("corral dashboard", { timeout: 90_000 }, () => {
  const dir = tempDir("corral-cli-dashboard-");
  after(() => dir.remove());
  const ledger = join(dir.path, "ledger.db");

  it("prints an address carrying a random token and serves the ledger until SIGTERM", async () => {
    await seedLedger(ledger, [{ source: "agent:cli", tool: "t", outcome: "ok", at: Date.now() }]);
    const served = await serveOnce(["--ledger", ledger], {}, dir.path);
    assert.match(served.stdout, /#token=[A-Za-z0-9_-]{32}/);
    assert.equal(served.status, 200);
    assert.equal(served.total, 1);
  });

  it("takes the token from CORRAL_DASHBOARD_TOKEN without printing it", async () => {
    const token = "env-token-0123456789abcdef";
    const served = await serveOnce(["--ledger", ledger], { CORRAL_DASHBOARD_TOKEN: token }, dir.path);
    assert.equal(served.status, 200);
    assert.doesNotMatch(served.stdout, new RegExp(token));
    assert.match(served.stdout, /token from CORRAL_DASHBOARD_TOKEN/);
  });

  it("refuses a file that is not a ledger, and a missing one, with exit 1", async () => {
    const notes = join(dir.path, "notes.txt");
    writeFileSync(notes, "hello\n");
    const wrong = await runCli(["dashboard", "--ledger", notes], { cwd: dir.path });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /notes\.txt is not a corral ledger \(not a SQLite database\)/);
    const missing = await runCli(["dashboard", "--ledger", join(dir.path, "nope.db")], { cwd: dir.path });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /is not a corral ledger \(no such file\)/);
    const badPort = await runCli(["dashboard", "--port", "70000", "--ledger", ledger], { cwd: dir.path });
    assert.equal(badPort.code, 2);
    // A PostgreSQL server that is not there: exit 1, and the URL's password is never echoed.
    const postgres = await runCli(["dashboard", "--ledger", "postgres://ops:hunter2@127.0.0.1:1/ledger"], { cwd: dir.path });
    assert.equal(postgres.code, 1);
    assert.match(postgres.stderr, /postgres:\/\/ops@127\.0\.0\.1:1\/ledger could not open the ledger/);
    assert.doesNotMatch(postgres.stderr + postgres.stdout, /hunter2/);
  });

  it("serves a PostgreSQL ledger, printing its URL without the password", { skip: SKIP_POSTGRES }, async () => {
    const schema = schemas.next();
    const base = new URL(postgresUrl());
    base.password = "hunter2";
    base.searchParams.set("schema", schema);
    const url = base.toString();
    // An empty schema is no ledger: refused, and left empty.
    const empty = await runCli(["dashboard", "--ledger", url], { cwd: dir.path });
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /there is no corral ledger in the schema/);
    assert.doesNotMatch(empty.stderr + empty.stdout, /hunter2/);
    await seedLedger(url, [{ source: "agent:fleet", tool: "t", outcome: "timeout", at: Date.now() }]);
    const served = await serveOnce(["--ledger", url], {}, dir.path);
    assert.match(served.stdout, /corral dashboard of postgres:\/\/postgres@127\.0\.0\.1:5432\/test/);
    assert.doesNotMatch(served.stdout, /hunter2/);
    assert.equal(served.status, 200);
    assert.equal(served.total, 1);
  });
});
