/**
 * The dashboard's HTTP surface, without a browser: who is refused (no token,
 * a wrong one, a forged Origin or Host, a cross-site fetch, a form post), the
 * page's security headers, bad input, and a file that is no ledger.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDashboard, type Dashboard } from "../../src/dashboard/index.js";
import { tempDir } from "../helpers/host.js";
import { seedLedger } from "../helpers/ledger-seed.js";

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A raw request: fetch() would not let a test set Host or Origin. */
function send(port: number, path: string, headers: Record<string, string>, method = "GET", body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("dashboard server", { timeout: 60_000 }, () => {
  const dir = tempDir("corral-dashboard-");
  const ledger = join(dir.path, "ledger.db");
  let dashboard: Dashboard;
  let host: string;
  let auth: Record<string, string>;

  before(async () => {
    await seedLedger(ledger, [
      { source: "agent:one", tool: "run", outcome: "timeout", at: Date.now() - 1_000, message: "slow" },
      { source: "agent:two", tool: "run", outcome: "ok", at: Date.now() },
    ]);
    dashboard = await createDashboard({ ledger, actor: "dashboard:test", token: "t".repeat(32) });
    host = `127.0.0.1:${dashboard.port}`;
    auth = { Host: host, Authorization: `Bearer ${dashboard.token}` };
  });
  after(async () => {
    await dashboard.close();
    dir.remove();
  });

  it("serves the page's files with a strict CSP, and the API with the token only", async () => {
    const page = await send(dashboard.port, "/", { Host: host });
    assert.equal(page.status, 200);
    assert.match(String(page.headers["content-security-policy"]), /default-src 'none'; script-src 'self'/);
    assert.doesNotMatch(String(page.headers["content-security-policy"]), /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers["x-content-type-options"], "nosniff");
    assert.equal(page.headers["x-frame-options"], "DENY");
    assert.doesNotMatch(page.body, /<script>|\son[a-z]+=/i, "no inline script or handler in the page");
    assert.equal((await send(dashboard.port, "/api/overview", { Host: host })).status, 401);
    const wrong = await send(dashboard.port, "/api/overview", { Host: host, Authorization: `Bearer ${"x".repeat(32)}` });
    assert.equal(wrong.status, 401);
    assert.match(JSON.parse(wrong.body).error, /token is wrong/);
    const right = await send(dashboard.port, "/api/overview", auth);
    assert.equal(right.status, 200);
    assert.equal(JSON.parse(right.body).page.total, 2);
    assert.equal((await send(dashboard.port, "/../../etc/passwd", { Host: host })).status, 404);
  });

  it("refuses a forged Origin, a forged Host and a cross-site fetch, even with the token", async () => {
    const origin = await send(dashboard.port, "/api/overview", { ...auth, Origin: "http://evil.example" });
    assert.equal(origin.status, 403);
    const lookalike = await send(dashboard.port, "/api/overview", { ...auth, Origin: `http://127.0.0.1:${dashboard.port + 1}` });
    assert.equal(lookalike.status, 403);
    // DNS rebinding: the name resolves to 127.0.0.1, but the Host header says whose page it is.
    const rebound = await send(dashboard.port, "/", { Host: `evil.example:${dashboard.port}` });
    assert.equal(rebound.status, 421);
    assert.equal((await send(dashboard.port, "/api/overview", { ...auth, Host: `evil.example:${dashboard.port}` })).status, 421);
    assert.equal((await send(dashboard.port, "/api/overview", { ...auth, "Sec-Fetch-Site": "cross-site" })).status, 403);
    const same = await send(dashboard.port, "/api/overview", { ...auth, Origin: `http://localhost:${dashboard.port}`, Host: `localhost:${dashboard.port}` });
    assert.equal(same.status, 200);
  });

  it("writes only JSON bodies that parse, and answers a quarantine with the ledger's change", async () => {
    const form = await send(dashboard.port, "/api/quarantine", { ...auth, "Content-Type": "application/x-www-form-urlencoded" }, "POST", "source=agent:one&reason=x");
    assert.equal(form.status, 415);
    const noReason = await send(dashboard.port, "/api/quarantine", { ...auth, "Content-Type": "application/json" }, "POST", JSON.stringify({ source: "agent:one", reason: "  " }));
    assert.equal(noReason.status, 400);
    assert.match(JSON.parse(noReason.body).error, /reason is required/);
    const badSource = await send(dashboard.port, "/api/quarantine", { ...auth, "Content-Type": "application/json" }, "POST", JSON.stringify({ source: "nobody", reason: "x" }));
    assert.equal(badSource.status, 400);
    const big = await send(dashboard.port, "/api/quarantine", { ...auth, "Content-Type": "application/json" }, "POST", JSON.stringify({ source: "agent:one", reason: "x".repeat(20_000) }));
    assert.equal(big.status, 413);
    const done = await send(dashboard.port, "/api/quarantine", { ...auth, "Content-Type": "application/json" }, "POST", JSON.stringify({ source: "agent:one", reason: "seen on the page" }));
    assert.equal(done.status, 200);
    const change = JSON.parse(done.body);
    assert.equal(change.state.state, "quarantined");
    assert.equal(change.state.actor, "dashboard:test");
    const detail = JSON.parse((await send(dashboard.port, `/api/source?id=${encodeURIComponent("agent:one")}`, auth)).body);
    assert.equal(detail.detail.events.rows[0].reason, "seen on the page");
    assert.equal((await send(dashboard.port, "/api/source?id=agent%3Anobody", auth)).status, 404);
    assert.equal((await send(dashboard.port, "/api/overview?window=year", auth)).status, 400);
  });

  it("refuses a file that is not a ledger, and leaves it as it was", async () => {
    const notes = join(dir.path, "notes.txt");
    writeFileSync(notes, "not a ledger\n");
    await assert.rejects(createDashboard({ ledger: notes, actor: "dashboard:test" }), (error: Error & { code?: string }) => error.code === "not_a_ledger" && /is not a corral ledger/.test(error.message));
    assert.equal(readFileSync(notes, "utf8"), "not a ledger\n");
    await assert.rejects(createDashboard({ ledger: join(dir.path, "missing.db"), actor: "dashboard:test" }), /no such file/);
    await assert.rejects(createDashboard({ ledger, actor: "dashboard:test", token: "short" }), /invalid_options/);
  });
});
