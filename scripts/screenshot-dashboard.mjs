// Writes docs/dashboard.png (a laptop screen) and docs/dashboard-phone.png
// for the README: the real dashboard on a real ledger file seeded through the
// Ledger, opened in Debian's Chromium by playwright-core (which downloads no
// browser). Run after `npm run build`: node scripts/screenshot-dashboard.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
const { seedLedger, realisticCalls } = await import(dist("test/helpers/ledger-seed.js"));
const { createDashboard } = await import(dist("src/dashboard/index.js"));
const { Ledger } = await import(dist("src/index.js"));

const CHROMIUM = process.env.CORRAL_CHROMIUM ?? "/usr/bin/chromium";
const dir = mkdtempSync(join(tmpdir(), "corral-screenshot-"));
const ledgerPath = join(dir, "ledger.db");
const now = Date.now();
await seedLedger(ledgerPath, realisticCalls(now));
const ledger = new Ledger({ store: ledgerPath });
await ledger.quarantine("agent:research-7f3a", { reason: "5 crashes in 30 minutes: SIGSEGV in summarize_csv", actor: "dashboard:ops", until: null });
await ledger.close();

const dashboard = await createDashboard({ ledger: ledgerPath, actor: "dashboard:screenshot" });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  for (const [file, viewport, scale] of [["dashboard.png", { width: 1280, height: 800 }, 1], ["dashboard-phone.png", { width: 390, height: 844 }, 2]]) {
    const page = await browser.newPage({ viewport, deviceScaleFactor: scale, colorScheme: "light" });
    await page.goto(dashboard.openUrl);
    await page.click("[data-window=day]");
    await page.locator("#sources tbody tr[data-source]").first().waitFor();
    await page.locator("#sources tbody tr[data-source='agent:research-7f3a']").click();
    await page.locator("#detail .tools tbody tr").first().waitFor();
    await page.waitForTimeout(800);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(root, "docs", file), fullPage: file === "dashboard.png" });
    console.log(`wrote docs/${file}`);
    await page.close();
  }
} finally {
  await browser.close();
  await dashboard.close();
  rmSync(dir, { recursive: true, force: true });
}
