/**
 * Two hosts on one PostgreSQL ledger, in one process: a quarantine or a
 * release made on one is obeyed by the other from its next call, within a
 * delay measured here; and a host whose database becomes unreachable keeps
 * answering (a quarantine it knew of still refuses), says so in events and
 * logs, and writes its records when the database is back.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Writable } from "node:stream";
import pino from "pino";
import { outcomeOf, type HostEvent } from "../../src/index.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";
import { TcpProxy, targetOf } from "../../src/ledger/testing/tcp-proxy.js";
import { toolSource, withHost } from "../helpers/host.js";

const schemas = testSchemas("hosts");
after(() => schemas.dropAll());
const withSchema = (url: string, schema: string) => `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`;
const echo = (name: string) => toolSource({ name, run: "return 'hi';" });

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(0.2);
  }
  return performance.now() - started;
}

describe("hosts on one PostgreSQL ledger", { timeout: 180_000, skip: SKIP_POSTGRES }, () => {
  it("a quarantine or release on one host is obeyed by the other from its next call, within milliseconds", async (t) => {
    const url = withSchema(postgresUrl(), schemas.next());
    await withHost(async (a) => {
      await withHost(async (b) => {
        for (const host of [a, b]) assert.ok((await host.load({ source: "agent:shared", code: echo("shared_echo") })).ok);
        assert.equal(outcomeOf(await b.call("shared_echo", {})), "ok");
        const delays: number[] = [];
        for (let round = 0; round < 3; round++) {
          await a.quarantine("agent:shared", { reason: `round ${round}`, actor: "ops" });
          delays.push(await until(async () => (await b.sourceState("agent:shared")).state === "quarantined", "b to see the quarantine"));
          assert.equal(outcomeOf(await b.call("shared_echo", {})), "quarantined");
          await b.release("agent:shared", { actor: "ops" });
          delays.push(await until(async () => (await a.sourceState("agent:shared")).state === "active", "a to see the release"));
          assert.equal(outcomeOf(await a.call("shared_echo", {})), "ok");
        }
        t.diagnostic(`the other host saw each change after ${delays.map((d) => d.toFixed(2)).join(", ")} ms`);
        const report = await a.auditSource("agent:shared");
        assert.deepEqual(report?.events.map((e) => e.kind), ["release", "manual_quarantine", "release", "manual_quarantine", "release", "manual_quarantine"]);
      }, { ledger: { store: url } });
    }, { ledger: { store: url } });
  });

  it("keeps answering while the database is unreachable, with events and logs, and writes the records when it is back", async () => {
    const direct = withSchema(postgresUrl(), schemas.next());
    const proxy = new TcpProxy(targetOf(direct));
    await proxy.up();
    const events: HostEvent[] = [];
    const logLines: { event?: string; status?: string; msg?: string }[] = [];
    const logger = pino({ level: "info" }, new Writable({ write: (chunk: Buffer, _enc, done) => void (logLines.push(JSON.parse(chunk.toString())), done()) }));
    try {
      await withHost(async (host) => {
        assert.ok((await host.load({ source: "agent:calm", code: echo("calm_echo") })).ok);
        assert.ok((await host.load({ source: "agent:held", code: echo("held_echo") })).ok);
        await host.quarantine("agent:held", { reason: "held", actor: "ops" });
        assert.equal(outcomeOf(await host.call("calm_echo", {})), "ok");
        await proxy.down();
        for (let i = 0; i < 5; i++) {
          assert.equal(outcomeOf(await host.call("calm_echo", {})), "ok", "a source that was not quarantined runs");
          assert.equal(outcomeOf(await host.call("held_echo", {})), "quarantined", "a quarantine the host knew of still refuses");
        }
        assert.ok(events.some((e) => e.type === "ledger_store" && e.status.type === "unavailable"));
        await assert.rejects(host.audit(), /unreachable/);
        await proxy.up();
        await until(async () => events.some((e) => e.type === "ledger_store" && e.status.type === "restored"), "restored");
        const row = (await host.audit()).find((r) => r.source === "agent:calm");
        assert.equal(row?.totals.calls, 6, "the calls made during the outage are counted");
        assert.equal((await host.auditSource("agent:held"))?.totals.outcomes.quarantined, 5);
      }, { ledger: { store: proxy.rewrite(direct) }, onEvent: (event) => events.push(event), logger });
    } finally {
      await proxy.down();
    }
    const storeLines = logLines.filter((line) => line.event === "ledger_store").map((line) => line.status);
    assert.deepEqual(storeLines, ["unavailable", "restored"], "the outage and the return are logged");
  });
});
