/**
 * @module test/helpers/chromium
 * Debian's Chromium driven by playwright-core, which downloads no browser:
 * `.ci/run` installs the `chromium` package. A machine without it fails the
 * browser tests with a message saying so, rather than skipping them.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = process.env.CORRAL_CHROMIUM ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install -y chromium) or set CORRAL_CHROMIUM`);
  // --no-sandbox: CI runs as root, where Chromium's own sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox"] });
}
