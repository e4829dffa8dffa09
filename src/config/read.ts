/**
 * @module src/config/read
 * Finding and reading `corral.json`: the nearest one from the working
 * folder up, or the file named; parsed as JSON with comments and trailing
 * commas (jsonc-parser), checked by the one schema (schema.ts), its paths
 * resolved against its folder (paths.ts). Anything wrong throws one
 * CorralError `invalid_config` that lists every issue as
 * `file:line:column  key.path: what was expected`, before anything starts.
 *
 * ```
 * --config FILE ─┐
 * nearest corral.json from cwd up ─▶ read ─▶ parseTree (syntax errors)
 *   ─▶ duplicate keys ─▶ CorralConfig.safeParse (zod issues) ─▶ paths, origins, conflicts
 *   ─▶ LoadedConfig { file, dir, config (paths absolute), host (createHost's options) }
 * ```
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { getNodeValue, parseTree, type ParseError } from "jsonc-parser";
import type { z } from "zod";
import { CorralError } from "../errors.js";
import { duplicateKeyIssues, issueAt, syntaxIssue, type ConfigIssue, type KeyPath } from "./locate.js";
import { hostOptionsOf, resolveConfigPaths } from "./paths.js";
import { CONFIG_FILE_NAME, CorralConfig, type ConfigHostOptions } from "./schema.js";

export type LoadedConfig = {
  /** The file's absolute path. */
  file: string;
  /** Its folder: what paths in it and plugin source ids are relative to. */
  dir: string;
  /** The config as checked, every path in it absolute. */
  config: CorralConfig;
  /** createHost's part of it (sourceRoot: the config's folder). */
  host: ConfigHostOptions;
};

/** The nearest corral.json in `from` or a folder above it; undefined when there is none. */
export function findConfigFile(from: string = process.cwd()): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, CONFIG_FILE_NAME);
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile() === true) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Reads and checks one config file; throws `invalid_config` with every issue it finds. */
export function readConfig(path: string): LoadedConfig {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "there is no such file" : (error as Error).message;
    throw new CorralError("invalid_config", `cannot read the config ${shown(file)}: ${why}; give an existing file to --config, or --no-config to use none`, { file });
  }
  return checkConfigText(text, file);
}

/** Checks a config's text as if it were the file `file` (tests and `corral init` check text they hold). */
export function checkConfigText(text: string, file: string): LoadedConfig {
  const dir = dirname(file);
  if (text.trim() === "") fail(file, [issueAt(text, undefined, [], "the file is empty; write an object: {}")]);
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length > 0 || tree === undefined) fail(file, errors.length > 0 ? errors.map((error) => syntaxIssue(text, error)) : [issueAt(text, tree, [], "the file holds no value; write an object: {}")]);
  const duplicates = duplicateKeyIssues(text, tree);
  if (duplicates.length > 0) fail(file, duplicates);
  const parsed = CorralConfig.safeParse(getNodeValue(tree));
  if (!parsed.success) fail(file, parsed.error.issues.flatMap((issue) => zodIssues(text, tree, issue)));
  const resolved = resolveConfigPaths(parsed.data, dir);
  if (resolved.issues.length > 0) fail(file, resolved.issues.map((issue) => issueAt(text, tree, issue.path, issue.message)));
  return { file, dir, config: resolved.config, host: hostOptionsOf(resolved.config, dir) };
}

function zodIssues(text: string, tree: Parameters<typeof issueAt>[1], issue: z.core.$ZodIssue): ConfigIssue[] {
  const path = issue.path.map((part) => (typeof part === "number" ? part : String(part)));
  if (issue.code === "unrecognized_keys") return issue.keys.map((key) => issueAt(text, tree, path, `unknown key "${key}"; see docs/config.md for the keys corral.json takes`, key));
  return [issueAt(text, tree, path, expectedOf(issue))];
}

/** What the schema wanted, in words: zod's own for most issues, each branch's for a union ("expected string or false"). */
function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_union" && issue.errors.length > 0 && issue.errors.every((branch) => branch.length === 1)) {
    const wanted = issue.errors.flatMap((branch) => branch.map(wantedOf));
    return `expected ${[...new Set(wanted)].join(" or ")}`;
  }
  // zod says "Invalid input: expected number, received string"; the line already says where.
  return issue.message.replace(/^Invalid input: /, "");
}

function wantedOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return issue.expected;
  if (issue.code === "invalid_value") return issue.values.map((value) => JSON.stringify(value)).join(" or ");
  return issue.message.replace(/^Invalid input: /, "");
}

function fail(file: string, unordered: ConfigIssue[]): never {
  const issues = [...unordered].sort((a, b) => a.line - b.line || a.column - b.column);
  const lines = issues.map((issue) => `  ${shown(file)}:${issue.line}:${issue.column}  ${keyPath(issue.path)}: ${issue.message}`);
  throw new CorralError(
    "invalid_config",
    `${shown(file)} is not a valid config:\n${lines.join("\n")}\nFix it (every key: docs/config.md), or run without it: --no-config`,
    { file, issues },
  );
}

/** `mcp.port`, `tools[0]`, `capabilities.sources["plugin:x"].fs.root`; `(the file)` for the top. */
export function keyPath(path: KeyPath): string {
  if (path.length === 0) return "(the file)";
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? (index === 0 ? part : `.${part}`) : `[${JSON.stringify(part)}]`))
    .join("");
}

/** A path as a person reads it: relative to the working folder when inside it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}
