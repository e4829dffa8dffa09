/**
 * Four host processes on one PostgreSQL ledger run a hostile tool of one
 * source at once (test/helpers/fleet-host.ts): every strike is counted
 * exactly once, the source is quarantined once, and every host refuses it
 * from then on. Then the same through a host killed with SIGKILL mid-burst,
 * the hosts' connections terminated by the server (pg_terminate_backend),
 * and the server unreachable for a while (a proxy in front of it cut, then
 * back): the hosts keep answering, buffer their records, write them when it
 * is back, and still count each strike once.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Ledger } from "../../src/index.js";
import { SKIP_POSTGRES, postgresUrl, terminateConnections, testSchemas } from "../../src/ledger/testing/postgres.js";
import { TcpProxy, targetOf } from "../../src/ledger/testing/tcp-proxy.js";

const HOSTILE_SOURCE = "agent:fleet-hostile";
const FLEET_HOST = fileURLToPath(new URL("../helpers/fleet-host.js", import.meta.url));
const schemas = testSchemas("fleet");
after(() => schemas.dropAll());

type FleetHost = {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  results: { outcome: string; callId: string }[];
  send(line: string): void;
  /** Resolves once a line matching `pattern` has been written (counting lines already written). */
  until(pattern: RegExp, count?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

function startHost(url: string, strikes: number): FleetHost {
  const child = spawn(process.execPath, [FLEET_HOST, url, String(strikes)], { stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const results: FleetHost["results"] = [];
  const waiters = new Set<() => void>();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    const [kind, outcome, callId] = line.split(" ");
    if (kind === "result" && outcome !== undefined && callId !== undefined) results.push({ outcome, callId });
    for (const wake of waiters) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    lines,
    results,
    exited,
    send: (line) => void child.stdin.write(`${line}\n`),
    until: (pattern, count = 1) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (lines.filter((line) => pattern.test(line)).length >= count) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        void exited.then(({ code, signal }) => {
          if (waiters.has(check)) reject(new Error(`the host exited (${code ?? signal}) before writing ${pattern}; stderr: ${stderr.slice(-2_000)}`));
        });
        check();
      }),
  };
}

async function stopAll(hosts: FleetHost[]): Promise<void> {
  for (const host of hosts) if (host.child.exitCode === null && host.child.signalCode === null) host.send("exit");
  await Promise.all(hosts.map((host) => host.exited));
}

async function auditOf(url: string) {
  const ledger = new Ledger({ store: url });
  try {
    const report = await ledger.sourceReport(HOSTILE_SOURCE);
    assert.ok(report !== null, "the ledger knows the hostile source");
    return report;
  } finally {
    await ledger.close();
  }
}

const count = (results: FleetHost["results"], outcome: string) => results.filter((r) => r.outcome === outcome).length;

describe("several hosts on one PostgreSQL ledger", { timeout: 240_000, skip: SKIP_POSTGRES }, () => {
  it("four hosts running a hostile source at once: every strike once, one quarantine, every host refuses it from then on", async (t) => {
    const url = `${postgresUrl()}${postgresUrl().includes("?") ? "&" : "?"}schema=${schemas.next()}`;
    const hosts = Array.from({ length: 4 }, () => startHost(url, 3));
    try {
      await Promise.all(hosts.map((host) => host.until(/^ready$/)));
      for (const host of hosts) host.send("burst 5");
      await Promise.all(hosts.map((host) => host.until(/^burst done$/)));
      for (const host of hosts) host.send("probe");
      await Promise.all(hosts.map((host) => host.until(/^probe /)));
      for (const host of hosts) assert.ok(host.lines.includes("probe quarantined"), `every host refuses the source: ${host.lines.filter((l) => l.startsWith("probe")).join()}`);
    } finally {
      await stopAll(hosts);
    }
    const all = hosts.flatMap((host) => host.results);
    const report = await auditOf(url);
    t.diagnostic(`${all.length} calls: ${count(all, "timeout")} strikes, ${count(all, "quarantined")} refused; the ledger: ${report.totals.calls} calls, ${report.totals.strikes} strikes`);
    assert.equal(report.totals.outcomes.timeout, count(all, "timeout"), "every strike exactly once");
    assert.ok(count(all, "timeout") >= 3);
    // Each probe was a refused call too.
    assert.equal(report.totals.outcomes.quarantined, count(all, "quarantined") + hosts.length, "every refusal counted once");
    assert.equal(report.totals.calls, all.length + hosts.length);
    assert.deepEqual(report.events.map((e) => e.kind), ["quarantine"], "one quarantine, decided by one host");
    assert.match(report.events[0]?.reason ?? "", /^3 strikes within 10 min/);
  });

  it("the same when a host is killed mid-burst, the server ends the hosts' connections, and then cannot be reached for a while", async (t) => {
    const direct = `${postgresUrl()}${postgresUrl().includes("?") ? "&" : "?"}schema=${schemas.next()}`;
    const proxy = new TcpProxy(targetOf(direct));
    await proxy.up();
    const url = proxy.rewrite(direct);
    // 12 strikes quarantine: enough that the quarantine falls after the outage.
    const hosts = Array.from({ length: 4 }, () => startHost(url, 12));
    const [victim, ...rest] = hosts as [FleetHost, ...FleetHost[]];
    try {
      await Promise.all(hosts.map((host) => host.until(/^ready$/)));
      // A burst, with one host killed once its first strike has returned.
      for (const host of hosts) host.send("burst 2");
      await victim.until(/^result /);
      victim.child.kill("SIGKILL");
      await Promise.all(rest.map((host) => host.until(/^burst done$/)));
      assert.equal((await victim.exited).signal, "SIGKILL");

      // The server ends every connection of the hosts (a failover, an operator): the next records reconnect.
      const ended = await terminateConnections("corral-ledger ");
      t.diagnostic(`pg_terminate_backend ended ${ended} connections of the hosts`);
      assert.ok(ended >= rest.length, "each live host had a connection to end");
      for (const host of rest) host.send("burst 1");
      await Promise.all(rest.map((host) => host.until(/^burst done$/, 2)));

      // The server cannot be reached: the hosts keep answering and keep the records.
      await proxy.down();
      for (const host of rest) host.send("burst 2");
      await Promise.all(rest.map((host) => host.until(/^burst done$/, 3)));
      for (const host of rest) assert.ok(host.lines.includes("store unavailable"), "each host reported the outage");
      assert.deepEqual(rest.map((host) => count(host.results, "timeout")), rest.map(() => 5), "the tool kept running: no call refused during the outage");
      await sleep(300);
      await proxy.up();
      // Each host's last outage is over (the ended connections may have made one before).
      await Promise.all(rest.map((host) => host.until(/^store restored$/, host.lines.filter((line) => line === "store unavailable").length)));
      for (const host of rest) host.send("probe");
      await Promise.all(rest.map((host) => host.until(/^probe /)));
      for (const host of rest) assert.ok(host.lines.includes("probe quarantined"), `every live host refuses the source once its records are written: ${host.lines.filter((l) => !l.startsWith("result")).join(", ")}`);
    } finally {
      await stopAll(hosts);
      await proxy.down();
    }
    const report = await auditOf(direct);
    const survivors = rest.flatMap((host) => host.results);
    const killed = victim.results;
    t.diagnostic(`the killed host reported ${killed.length} strikes; the others ${survivors.length}; the ledger holds ${report.totals.strikes}`);
    const reported = count(survivors, "timeout") + count(killed, "timeout");
    // The killed host's second call was in flight: its strike may or may not have committed.
    assert.ok(report.totals.strikes >= reported && report.totals.strikes <= reported + 1, `every returned strike once (${report.totals.strikes} for ${reported} reported)`);
    assert.equal(report.totals.outcomes.quarantined, rest.length, "the probes were refused and counted");
    assert.deepEqual(report.events.map((e) => e.kind), ["quarantine"], "one quarantine");
    assert.match(report.events[0]?.reason ?? "", /^12 strikes within 10 min/);
  });
});
