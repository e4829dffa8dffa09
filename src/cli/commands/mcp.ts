/**
 * @module src/cli/commands/mcp
 * `corral mcp [file|dir ...]`: serves tools over MCP until stopped. stdio
 * by default (stdout carries only protocol messages: everything else,
 * logs included, goes to stderr); `--http` serves Streamable HTTP at
 * `/mcp` on 127.0.0.1, with a bearer token (`--token`, CORRAL_MCP_TOKEN, or
 * a random one printed on stderr).
 *
 * ```
 * paths (default: corral.json's tools, else the bundled plugins) ─▶ host.load / loadDirectory (failures named on stderr)
 *   ─▶ createMcpServer(host) ─▶ stdio: until stdin ends or a signal
 *                             └▶ --http: until SIGINT or SIGTERM
 * ```
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type OAuthOptions } from "../../adapters/mcp/index.js";
import { whenAborted } from "../closed-output.js";
import { EXIT, withCliHost, writeLines, type CliContext, type ExitCode } from "../context.js";
import { loadFailureLines } from "../format.js";
import { packageVersion } from "../plugins-dir.js";
import { loadTargets, toolTargets } from "../tool-targets.js";
import { MCP_TOKEN_ENV } from "./mcp-env.js";
import { holdSignalsWhileClosing, untilSignal } from "../until-signal.js";

export type McpOptions = {
  http: boolean;
  port?: number;
  host?: string;
  /** From --allowed-host: names the Host header may take besides the server's own address. */
  allowedHosts?: string[];
  /** From --allowed-origin: browser origins allowed besides the server's own. */
  allowedOrigins?: string[];
  /** From --token (false: --no-token), else CORRAL_MCP_TOKEN; a random one when neither (and no oauth). */
  token?: string | false;
  /** From --oauth-issuer and --oauth-audience, else corral.json's mcp.oauth: the issuer's tokens instead of a static one. */
  oauth?: OAuthOptions;
  workers: number;
};


export async function mcpCommand(paths: string[], options: McpOptions, context: CliContext): Promise<ExitCode> {
  const targets = toolTargets(paths, context).paths;
  return withCliHost(context, options.workers, async (host) => {
    const failures = (await loadTargets(host, targets, context)).filter((result) => !result.ok);
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
          ...(options.allowedOrigins !== undefined ? { allowedOrigins: options.allowedOrigins } : {}),
          ...(options.port !== undefined ? { port: options.port } : {}),
          ...(options.token !== undefined && options.oauth === undefined ? { token: options.token } : {}),
          ...(options.oauth !== undefined ? { oauth: options.oauth } : {}),
        });
        // Listening before the address is announced: whoever reads it may signal at once.
        const stopped = Promise.race([untilSignal(), whenAborted(context.closed)]);
        if (options.oauth !== undefined) context.io.stderr.write(`corral mcp: accepting the bearer tokens of ${options.oauth.issuer} (metadata at ${new URL(listening.url).origin}/.well-known/oauth-protected-resource/mcp)\n`);
        else if (options.token === false) context.io.stderr.write("corral mcp: serving without a token (--no-token): any process of this machine may call these tools\n");
        else if (options.token === undefined) context.io.stderr.write(`corral mcp: bearer token (set ${MCP_TOKEN_ENV} or --token to choose one): ${listening.token}\n`);
        // Last: a script waiting for this line has what it needs to connect (the token, above).
        context.io.stderr.write(`corral mcp: serving Streamable HTTP at ${listening.url}\n`);
        await stopped;
      } else {
        const transport = new StdioServerTransport();
        const ended = new Promise<void>((resolveEnded) => {
          process.stdin.once("end", () => resolveEnded());
          process.stdin.once("close", () => resolveEnded());
        });
        await server.connect(transport);
        // A client that goes away closes stdin, or leaves stdout broken (EPIPE) for the next message.
        await Promise.race([ended, untilSignal(), whenAborted(context.closed)]);
      }
    } finally {
      holdSignalsWhileClosing();
      await server.close();
    }
    return EXIT.ok;
  });
}
