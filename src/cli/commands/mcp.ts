/**
 * @module src/cli/commands/mcp
 * `corral mcp [file|dir ...]`: serves tools over MCP until stopped. stdio
 * by default (stdout carries only protocol messages: everything else,
 * logs included, goes to stderr); `--http` serves Streamable HTTP at
 * `/mcp` on 127.0.0.1, with a bearer token (`--token`, CORRAL_MCP_TOKEN, or
 * a random one printed on stderr).
 *
 * ```
 * paths (default: the bundled plugins) ─▶ host.load / loadDirectory (failures named on stderr)
 *   ─▶ createMcpServer(host) ─▶ stdio: until stdin ends or a signal
 *                             └▶ --http: until SIGINT or SIGTERM
 * ```
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "../../adapters/mcp/index.js";
import type { Host, LoadResult } from "../../index.js";
import { EXIT, UsageError, withCliHost, writeLines, type CliContext, type ExitCode } from "../context.js";
import { loadFailureLines } from "../format.js";
import { BUNDLED_PLUGINS_DIR, packageVersion } from "../plugins-dir.js";
import { isFolderOfPlugins } from "./check.js";
import { MCP_TOKEN_ENV } from "./mcp-env.js";
import { holdSignalsWhileClosing, untilSignal } from "../until-signal.js";

export type McpOptions = {
  http: boolean;
  port?: number;
  host?: string;
  /** From --allowed-host: names the Host header may take besides the server's own address. */
  allowedHosts?: string[];
  /** From --token, else CORRAL_MCP_TOKEN; a random one when neither. */
  token?: string;
  workers: number;
};


export async function mcpCommand(paths: string[], options: McpOptions, context: CliContext): Promise<ExitCode> {
  const targets = paths.length > 0 ? paths.map((path) => resolve(path)) : [BUNDLED_PLUGINS_DIR];
  for (const [index, target] of targets.entries()) {
    if (!existsSync(target)) throw new UsageError(`${paths[index] ?? target} does not exist; give tool files, plugin folders or folders of plugins`);
  }
  return withCliHost(context, options.workers, async (host) => {
    const failures = (await loadAll(host, targets, context)).filter((result) => !result.ok);
    writeLines(context.io.stderr, failures.flatMap((failure) => (failure.ok ? [] : loadFailureLines(failure))));
    const names = host.declarations().map((declaration) => declaration.name);
    context.progress(`serving ${names.length} tool${names.length === 1 ? "" : "s"}: ${names.join(", ")}`);
    // Effects whose policy is "ask" go to the client's user (elicitation); refused naming the config key when it cannot be asked.
    const server = createMcpServer(host, { version: packageVersion(), elicitApprovals: true });
    try {
      if (options.http) {
        const listening = await server.listen({
          ...(options.host !== undefined ? { host: options.host } : {}),
          ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
          ...(options.port !== undefined ? { port: options.port } : {}),
          ...(options.token !== undefined ? { token: options.token } : {}),
        });
        context.io.stderr.write(`corral mcp: serving Streamable HTTP at ${listening.url}\n`);
        if (options.token === undefined) context.io.stderr.write(`corral mcp: bearer token (set ${MCP_TOKEN_ENV} or --token to choose one): ${listening.token}\n`);
        await untilSignal();
      } else {
        const transport = new StdioServerTransport();
        const ended = new Promise<void>((resolveEnded) => {
          process.stdin.once("end", () => resolveEnded());
          process.stdin.once("close", () => resolveEnded());
        });
        await server.connect(transport);
        await Promise.race([ended, untilSignal()]);
      }
    } finally {
      holdSignalsWhileClosing();
      await server.close();
    }
    return EXIT.ok;
  });
}

async function loadAll(host: Host, targets: string[], context: CliContext): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (const target of targets) {
    context.progress(`loading ${target}`);
    if (isFolderOfPlugins(target)) results.push(...(await host.loadDirectory(target)));
    else results.push(await host.load({ path: target }));
  }
  return results;
}

