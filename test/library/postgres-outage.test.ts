/**
 * The library when its PostgreSQL server goes away (a TCP proxy in front of
 * the real server is cut): a create is refused `busy`, naming why, and
 * writes nothing; creates cut while in flight are each either kept whole or
 * refused; the host keeps serving what it has, and creates again once the
 * server is back.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHost } from "../../src/index.js";
import { PostgresLibraryStore } from "../../src/library/index.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";
import { TcpProxy, targetOf } from "../../src/ledger/testing/tcp-proxy.js";
import { assertNoWorkersLeft, childPids, tempDir, toolSource } from "../helpers/host.js";

const tool = (name: string) => toolSource({ name, run: `return ${JSON.stringify(name)};` });

describe("the library through a PostgreSQL outage", { timeout: 120_000, skip: SKIP_POSTGRES }, () => {
  const schemas = SKIP_POSTGRES === false ? testSchemas("liboutage") : undefined;
  after(() => schemas?.dropAll());

  it("refuses creates while the server is away, keeps whole what it took, and serves on", async () => {
    const before = childPids();
    const dir = tempDir();
    const proxy = new TcpProxy(targetOf(postgresUrl()));
    await proxy.up();
    const direct = new URL(postgresUrl());
    direct.searchParams.set("schema", schemas?.next() ?? "");
    const url = proxy.rewrite(direct.toString());
    const host = createHost({ workers: 1, cacheDir: join(dir.path, "cache"), ledger: { store: url } });
    try {
      await host.library.ready();
      assert.ok((await host.author({ agent: "out", code: tool("before_outage") })).ok);
      await proxy.down();
      const refused = await host.author({ agent: "out", code: tool("during_outage") });
      assert.equal(!refused.ok && refused.error.kind, "busy");
      assert.match(!refused.ok ? refused.error.message : "", /the tool library cannot be written .*nothing was registered: try again later/);
      const served = await host.call("before_outage", {});
      assert.equal(served.ok && served.output, "before_outage", "what the host has keeps answering");
      assert.equal(host.tools().some((info) => info.name === "during_outage"), false);

      await proxy.up();
      const inFlight = Array.from({ length: 6 }, (_, i) => host.author({ agent: "out", code: tool(`cut_${i}`) }));
      setTimeout(() => void proxy.down().then(() => setTimeout(() => void proxy.up(), 300)), 30);
      const outcomes = await Promise.all(inFlight);
      for (const outcome of outcomes) assert.ok(outcome.ok || outcome.error.kind === "busy", JSON.stringify(outcome));
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.ok((await host.author({ agent: "out", code: tool("after_outage") })).ok, "creates work again once the server is back");

      const store = new PostgresLibraryStore(direct.toString());
      try {
        const kept = (await store.current()).map((row) => row.name).sort();
        const accepted = outcomes.flatMap((outcome, i) => (outcome.ok ? [`cut_${i}`] : []));
        for (const name of accepted) assert.ok(kept.includes(name), `${name} was accepted, so it is kept`);
        assert.ok(kept.includes("before_outage") && kept.includes("after_outage") && !kept.includes("during_outage"), kept.join(", "));
        for (const row of await store.current()) assert.equal((await store.versions(row.name)).length, 1, `${row.name} has one whole version`);
      } finally {
        await store.close();
      }
    } finally {
      await host.close();
      await proxy.down();
      dir.remove();
      await assertNoWorkersLeft(before);
    }
  });
});
