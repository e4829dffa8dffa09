/**
 * @module src/config/paths
 * What the schema cannot check about a config that parsed: the paths in it,
 * resolved against the config's folder (tools and capability roots must
 * exist; the cache and a SQLite ledger are created where they point), the
 * network grants' origins, and the options that must not conflict.
 * Answers the config with every path absolute, and what is wrong with it.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseAllowEntry } from "../capabilities/net-allow.js";
import { CorralError } from "../errors.js";
import { POSTGRES_URL } from "../ledger/postgres/index.js";
import { resolveHostOptions } from "../options.js";
import type { KeyPath } from "./locate.js";
import type { ConfigHostOptions, CorralConfig } from "./schema.js";

export type PathIssue = { path: KeyPath; message: string };

type Grant = NonNullable<CorralConfig["capabilities"]>;
type SourceGrant = NonNullable<Grant["sources"]>[string];

export function resolveConfigPaths(config: CorralConfig, dir: string): { config: CorralConfig; issues: PathIssue[] } {
  const issues: PathIssue[] = [];
  const out: CorralConfig = { ...config };
  if (config.tools !== undefined) {
    out.tools = config.tools.map((tool, index) => {
      const absolute = resolve(dir, tool);
      if (statSync(absolute, { throwIfNoEntry: false }) === undefined) issues.push({ path: ["tools", index], message: `nothing is at ${absolute}; give a tool file, a plugin folder or a folder of plugins` });
      return absolute;
    });
  }
  if (typeof config.cacheDir === "string") out.cacheDir = resolve(dir, config.cacheDir);
  const store = config.ledger?.store;
  if (typeof store === "string" && store !== ":memory:" && !POSTGRES_URL.test(store)) out.ledger = { ...config.ledger, store: resolve(dir, store) };
  if (config.capabilities !== undefined) {
    const { sources, ...hostWide } = config.capabilities;
    const capabilities: Grant = resolveGrant(hostWide, dir, ["capabilities"], issues);
    if (sources !== undefined) {
      capabilities.sources = Object.fromEntries(Object.entries(sources).map(([key, grant]) => [key, resolveGrant(grant, dir, ["capabilities", "sources", key], issues)]));
    }
    out.capabilities = capabilities;
  }
  return { config: out, issues: [...issues, ...conflictIssues(hostOptionsOf(out, dir))] };
}

/** A grant with its fs root absolute; a root that is no folder and an origin the host cannot read are issues. */
function resolveGrant<G extends SourceGrant>(grant: G, dir: string, at: KeyPath, issues: PathIssue[]): G {
  const out: G = { ...grant };
  if (grant.fs !== undefined) {
    const root = resolve(dir, grant.fs.root);
    if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) issues.push({ path: [...at, "fs", "root"], message: `no folder is at ${root}; ctx.fs needs an existing folder as its root` });
    out.fs = { ...grant.fs, root };
  }
  grant.net?.allow.forEach((entry, index) => {
    const parsed = parseAllowEntry(entry);
    if (typeof parsed === "string") issues.push({ path: [...at, "net", "allow", index], message: `"${entry}" ${parsed}` });
  });
  return out;
}

/** The host's part of a config whose paths are resolved: what each command hands createHost. */
export function hostOptionsOf(config: CorralConfig, dir: string): ConfigHostOptions {
  const { $schema: _schema, tools: _tools, mcp: _mcp, dashboard: _dashboard, ...host } = config;
  // createHost hides create_tool unless told (the embedding program may call it itself); the CLI's
  // only callers are models, so a config that turns it on offers it to them unless it says otherwise.
  if (host.createTool !== undefined) host.createTool = { ...host.createTool, exposure: host.createTool.exposure ?? "direct" };
  return { ...host, sourceRoot: dir };
}

/** Options that conflict (a default above its maximum), as createHost would refuse them, named at the first option. */
function conflictIssues(options: ConfigHostOptions): PathIssue[] {
  try {
    resolveHostOptions(options);
    return [];
  } catch (error) {
    if (!(error instanceof CorralError)) throw error;
    const named = /options\.(\w+)/.exec(error.message);
    return [{ path: named?.[1] === undefined ? [] : [named[1]], message: error.message.replace(/ \[invalid_options\]$/, "") }];
  }
}
