/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core)
 * on a real ledger, a SQLite file and then a PostgreSQL schema (the server
 * of CORRAL_TEST_POSTGRES_URL): the table and the chart; strikes and a quarantine
 * written by other processes appearing without a reload; a quarantine made
 * on the page that a host sharing the ledger then obeys; a tool's error rate,
 * calls per version and latest errors, on the source's own address
 * (#source=<id>) that back and forward follow; hostile source ids, tool
 * names and messages shown as text; a wrong token refused.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { createDashboard, type Dashboard } from "../../src/dashboard/index.js";
import { launchChromium } from "../helpers/chromium.js";
import { tempDir, toolSource, withHost } from "../helpers/host.js";
import { seedLedger } from "../helpers/ledger-seed.js";
import { SKIP_POSTGRES, postgresUrl, testSchemas } from "../../src/ledger/testing/postgres.js";

const run = promisify(execFile);
const CLI = fileURLToPath(new URL("../../../bin/corral.js", import.meta.url));
const SEED_CHILD = fileURLToPath(new URL("../helpers/ledger-seed-child.js", import.meta.url));

const HOSTILE_SOURCE = `plugin:/tmp/<img src=x onerror="window.__pwned='source'">`;
const HOSTILE_TOOL = `<script>window.__pwned='tool'</script>`;
const HOSTILE_MESSAGE = `<img src=x onerror="window.__pwned='message'"> & <b>bold</b>`;

const schemas = testSchemas("browser");
after(() => schemas.dropAll());

browserSuite("a SQLite ledger file", (dir) => join(dir, "ledger.db"));
if (SKIP_POSTGRES !== false) it("dashboard in Chromium on a PostgreSQL ledger", { skip: SKIP_POSTGRES }, () => undefined);
else browserSuite("a PostgreSQL ledger", () => `${postgresUrl()}${postgresUrl().includes("?") ? "&" : "?"}schema=${schemas.next()}`);

/** The same page, the same checks, on each kind of ledger: `ledgerIn` gives a fresh one for the suite. */
function browserSuite(kind: string, ledgerIn: (dir: string) => string): void {
  describe(`dashboard in Chromium on ${kind}`, { timeout: 150_000 }, () => {
    const dir = tempDir("corral-browser-");
    const ledger = ledgerIn(dir.path);
    const cache = join(dir.path, "cache");
    let browser: Browser;
    let dashboard: Dashboard;

    before(async () => {
      const now = Date.now();
      await seedLedger(ledger, [
        { source: "agent:steady", tool: "echo", outcome: "ok", at: now - 120_000 },
        { source: "agent:shaky", tool: "parse", outcome: "timeout", at: now - 90_000, message: "ran past 50 ms" },
        { source: "agent:shaky", tool: "parse", outcome: "ok", at: now - 80_000 },
        { source: HOSTILE_SOURCE, tool: HOSTILE_TOOL, outcome: "crash", at: now - 60_000, message: HOSTILE_MESSAGE },
        // 4 of 12 calls a tool_error: no strike, but not healthy either.
        ...Array.from({ length: 12 }, (_, i) => ({ source: "agent:flaky", tool: "parse", at: now - 50_000 + i, ...(i % 3 === 2 ? { outcome: "tool_error", message: `bad row ${i}` } : { outcome: "ok" }) })),
      ]);
      dashboard = await createDashboard({ ledger, actor: "dashboard:browser-test", pollMs: 250 });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await dashboard?.close();
      dir.remove();
    });

    async function open(): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on("dialog", (dialog) => void dialog.dismiss());
      await page.goto(dashboard.openUrl);
      await page.locator("#sources tbody tr[data-source]").first().waitFor();
      return page;
    }

    const chartTotal = (page: Page) => page.locator("#chart svg").getAttribute("data-total").then(Number);
    /**
     * Asks until `read` answers `expected` (20 s at most). Polled from here, not
     * with waitForFunction: the page's CSP forbids the eval that would need.
     */
    async function until<T>(read: () => Promise<T>, expected: T, what: string): Promise<void> {
      const deadline = Date.now() + 20_000;
      let last: T | undefined;
      while (Date.now() < deadline) {
        last = await read();
        if (last === expected) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.fail(`${what}: still ${String(last)}, not ${String(expected)}`);
    }
    /** Waits until the table shows `source` in `state`, as the page's polling brings it. */
    const untilState = (page: Page, source: string, state: string) =>
      until(() => page.locator(`#sources tbody tr[data-source="${source}"] .badge`).textContent({ timeout: 20_000 }), state, `${source}'s state`);

    it("shows the sources by trouble and a chart of their strikes, and takes the token out of the address bar", async () => {
      const page = await open();
      try {
        const sources = await page.locator("#sources tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-source")));
        // One strike each: the higher error rate first (1 of 1, then 1 of 2); then no strikes, by error rate (4 of 12, then none).
        assert.deepEqual(sources, [HOSTILE_SOURCE, "agent:shaky", "agent:flaky", "agent:steady"]);
        assert.equal(await page.locator('#sources tbody tr[data-source="agent:flaky"] td.errors').textContent(), "33%");
        assert.equal(await page.locator('#sources tbody tr[data-source="agent:steady"] td.errors').textContent(), "0%");
        assert.equal(await chartTotal(page), 2);
        assert.equal(await page.locator("#chart svg rect[data-count]").count(), 60, "the last hour, a bar a minute");
        assert.equal(await page.locator('[data-card="calls"] .value').textContent(), "16");
        assert.equal(await page.locator('[data-card="errors"] .value').textContent(), "6");
        assert.equal(new URL(page.url()).hash, "", "the token left the address bar");
        await page.click("[data-window=week]");
        await until(() => page.locator("#chart svg rect[data-count]").count(), 84, "bars of the week");
        assert.equal(await chartTotal(page), 2);
      } finally {
        await page.close();
      }
    });

    it("draws new strikes and another process's quarantine without a reload", async () => {
      const page = await open();
      try {
        await page.evaluate("window.marker = 1");
        const before = await chartTotal(page);
        // Another process records two strikes, and the CLI (a third) quarantines a source.
        await run(process.execPath, [SEED_CHILD, ledger, "agent:late", "timeout", "2"]);
        await until(() => chartTotal(page), before + 2, "strikes on the chart");
        assert.equal(await page.locator('#sources tbody tr[data-source="agent:late"] .spark').getAttribute("data-total"), "2");
        await run(process.execPath, [CLI, "quarantine", "agent:steady", "--reason", "from the terminal", "--ledger", ledger]);
        await untilState(page, "agent:steady", "quarantined");
        assert.equal(await page.evaluate("window.marker"), 1, "the same page, not a reload");
        await run(process.execPath, [CLI, "release", "agent:steady", "--reason", "done", "--ledger", ledger]);
        await untilState(page, "agent:steady", "active");
      } finally {
        await page.close();
      }
    });

    it("quarantines a source from the page, asking for a reason; a host sharing the ledger then refuses its tools", async () => {
      await withHost(
        async (host) => {
          assert.ok((await host.author({ agent: "victim", code: toolSource({ name: "victim_tool", run: "return 'first';" }) })).ok);
          assert.ok((await host.author({ agent: "victim", code: toolSource({ name: "victim_tool", run: "return 'ran';" }) })).ok);
          assert.equal((await host.call("victim_tool", {})).ok, true);
          const page = await open();
          try {
            await page.locator('#sources tbody tr[data-source="agent:victim"]').click();
            // The agent's page lists its tools in the library and their versions.
            assert.match((await page.locator('#detail tr[data-library-tool="victim_tool"]').textContent()) ?? "", /victim_tool\s*v2\s*2\s*live/);
            assert.equal(await page.locator('#detail tr[data-library-version^="victim_tool@"]').count(), 2);
            assert.match((await page.locator('#detail tr[data-library-version="victim_tool@2"]').textContent()) ?? "", /▸ v2[0-9a-f]{12}program/);
            await page.locator('#detail [data-action="quarantine"]').click();
            await page.locator("#ask-ok").click();
            assert.equal(await page.locator("#ask-error").textContent(), "A reason is required.");
            await page.fill("#ask-reason", "it printed secrets");
            await page.locator("#ask-ok").click();
            await untilState(page, "agent:victim", "quarantined");
            assert.match((await page.locator("#detail .events").textContent()) ?? "", /manual quarantine by dashboard:browser-test.*it printed secrets/s);
          } finally {
            await page.close();
          }
          const refused = await host.call("victim_tool", {});
          assert.equal(refused.ok ? "ok" : refused.error.kind, "quarantined");
          assert.match(refused.ok ? "" : refused.error.message, /it printed secrets/);
        },
        { ledger: { store: ledger }, cacheDir: cache },
      );
    });

    it("opens a source at its own address: its tool's 33 % error rate, calls per version and latest errors; back and forward follow", async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      try {
        await page.goto(`${dashboard.openUrl}&source=${encodeURIComponent("agent:flaky")}`);
        await page.locator('#detail tr[data-tool="parse"]').waitFor();
        assert.equal(await page.locator("#detail h2").textContent(), "agent:flaky");
        assert.equal(new URL(page.url()).hash, "#source=agent%3Aflaky", "the token left the address bar, the source stayed");
        const parse = page.locator('#detail tr[data-tool="parse"]');
        assert.equal(await parse.locator("td.errors").textContent(), "4 · 33%");
        assert.match((await parse.textContent()) ?? "", /tool_error 4/);
        // seedLedger's calls alternate two versions: one call in seven at the other.
        const versions = await page.locator('#detail tr[data-tool-version^="parse@"]').evaluateAll((rows) => rows.map((row) => row.textContent));
        assert.equal(versions.length, 2, JSON.stringify(versions));
        const messages = await page.locator('#detail .errors li[data-tool-error="parse"] .message').evaluateAll((items) => items.map((item) => item.textContent));
        assert.deepEqual(messages, ["bad row 11", "bad row 8", "bad row 5", "bad row 2"]);
        // The list links to each source's address; following one, then going back, shows each in turn.
        assert.equal(await page.locator('#sources tbody tr[data-source="agent:shaky"] a.source-link').getAttribute("href"), "#source=agent%3Ashaky");
        await page.locator('#sources tbody tr[data-source="agent:shaky"] a.source-link').click();
        await until(() => page.locator("#detail h2").textContent(), "agent:shaky", "the linked source");
        assert.equal(new URL(page.url()).hash, "#source=agent%3Ashaky");
        await page.goBack();
        await until(() => page.locator("#detail h2").textContent(), "agent:flaky", "the source before, after going back");
        await page.locator('#detail [data-action="close"]').click();
        assert.equal(await page.locator("#detail").isHidden(), true);
        assert.equal(new URL(page.url()).hash, "");
        await page.goBack();
        await until(() => page.locator("#detail").isVisible(), true, "the source again, after going back past the close");
      } finally {
        await page.close();
      }
    });

    it("shows a source id, tool name and message that hold HTML as text, and runs none of it", async () => {
      const page = await open();
      try {
        const row = page.locator("#sources tbody tr").filter({ hasText: "onerror" });
        assert.equal(await row.locator(".source-id").textContent(), HOSTILE_SOURCE);
        await row.click();
        await page.locator("#detail .tools tbody tr").first().waitFor();
        assert.equal(await page.locator("#detail .tool-name").textContent(), HOSTILE_TOOL);
        assert.equal(await page.locator("#detail .strikes .message").textContent(), HOSTILE_MESSAGE);
        assert.equal(await page.locator("#detail h2").textContent(), HOSTILE_SOURCE);
        assert.equal(await page.locator("main img, main script, #detail b").count(), 0, "no element made from ledger text");
        assert.equal(await page.evaluate("typeof window.__pwned"), "undefined");
      } finally {
        await page.close();
      }
    });

    it("fits a phone: the page never scrolls sideways, the table and a source's detail included", async () => {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      try {
        await page.goto(dashboard.openUrl);
        await page.locator("#sources tbody tr[data-source]").first().waitFor();
        assert.ok(Number(await page.evaluate("document.documentElement.scrollWidth")) <= 390, "the overview fits");
        await page.locator("#sources tbody tr").filter({ hasText: "onerror" }).click();
        await page.locator("#detail .tools tbody tr").first().waitFor();
        assert.ok(Number(await page.evaluate("document.documentElement.scrollWidth")) <= 390, "a source's detail fits");
      } finally {
        await page.close();
      }
    });

    it("refuses a page opened with a wrong token, and says how to get in", async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${dashboard.url}#token=${"w".repeat(32)}`);
        await page.locator("#notice:not([hidden])").waitFor();
        assert.match((await page.locator("#notice").textContent()) ?? "", /Refused: the token is wrong/);
        assert.equal(await page.locator("#sources tbody tr[data-source]").count(), 0);
      } finally {
        await page.close();
      }
    });
  });
}
