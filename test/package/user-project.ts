/**
 * @module test/package/user-project
 * corral as a user gets it: the package packed from this checkout's build,
 * installed into a fresh project outside the repository.
 *
 * Packing: the files a pack takes are copied to a staging folder, whose
 * package.json scripts/pack-manifest.mjs makes the published one there, and
 * `npm pack --ignore-scripts` packs it: the same manifest and the same
 * `files` as `npm pack` in the checkout, without rebuilding the dist/ other
 * tests are running from, and without touching the checkout's package.json.
 *
 * Installing: from the npm cache this checkout's `npm ci` filled
 * (`--prefer-offline`). Install scripts are skipped on the first install and
 * then run for isolated-vm alone (`npm rebuild isolated-vm`), whose output
 * the test reads: on Node 22 and later it must compile nothing. On Node 20
 * the one line there is compiled, so the checkout's build of the same
 * version is copied instead. better-sqlite3's build is copied from the
 * checkout too (the same version and Node): compiling it would take minutes
 * and prove nothing about corral.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const CHECKOUT = fileURLToPath(new URL("../../../", import.meta.url));
export const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
const NPM_CLI = join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");

/** Runs npm with this Node (the npm beside it when there is one, else the one on PATH). */
export function npm(args: string[], cwd: string): string {
  const [command, commandArgs] = existsSync(NPM_CLI) ? [process.execPath, [NPM_CLI, ...args]] : ["npm", args];
  const run = spawnSync(command, commandArgs, { cwd, encoding: "utf8", timeout: 300_000, env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" } });
  if (run.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${run.status ?? run.signal}):\n${run.stdout}\n${run.stderr}`);
  return `${run.stdout}\n${run.stderr}`;
}

type Manifest = { files: string[]; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };

/** The checkout's version of a package it depends on, for the user's own installs (zod, the SDKs, typescript). */
export function checkoutVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(join(CHECKOUT, "package.json"), "utf8")) as Manifest;
  const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
  if (version === undefined) throw new Error(`the checkout does not depend on ${name}`);
  return version;
}

/** Packs the checkout's build; answers the tarball's path. */
export function packCheckout(into: string): string {
  const stage = join(into, "stage");
  mkdirSync(join(stage, "scripts"), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(CHECKOUT, "package.json"), "utf8")) as Manifest;
  const roots = new Set(manifest.files.filter((entry) => !entry.startsWith("!")).map((entry) => entry.split("/")[0] as string));
  for (const root of [...roots, "package.json", "sandbox/isolated-vm-lines"]) cpSync(join(CHECKOUT, root), join(stage, root), { recursive: true });
  cpSync(join(CHECKOUT, "scripts/pack-manifest.mjs"), join(stage, "scripts/pack-manifest.mjs"));
  execFileSync(process.execPath, [join(stage, "scripts/pack-manifest.mjs"), "write"], { cwd: stage });
  npm(["pack", "--ignore-scripts", "--silent", "--pack-destination", into], stage);
  const tarball = readdirSync(into).find((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error("npm pack wrote no tarball");
  return join(into, tarball);
}

export type UserProject = { dir: string; isolatedVmVersion: string; rebuildOutput: string };

/** A fresh ESM project with the tarball and `extra` packages installed. */
export function installInFreshProject(tarball: string, extra: string[]): UserProject {
  const dir = mkdtempSync(join(tmpdir(), "corral-user-"));
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "a-user-project", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
  npm(["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball, ...extra], dir);
  const modules = join(dir, "node_modules");
  const isolatedVmVersion = (JSON.parse(readFileSync(join(modules, "isolated-vm", "package.json"), "utf8")) as { version: string }).version;
  cpSync(join(CHECKOUT, "node_modules", "better-sqlite3", "build"), join(modules, "better-sqlite3", "build"), { recursive: true });
  let rebuildOutput = "";
  if (NODE_MAJOR >= 22) rebuildOutput = npm(["rebuild", "isolated-vm", "--foreground-scripts"], dir);
  else cpSync(join(CHECKOUT, "node_modules", "isolated-vm-node20", "out"), join(modules, "isolated-vm", "out"), { recursive: true });
  return { dir, isolatedVmVersion, rebuildOutput };
}
