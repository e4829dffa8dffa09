/**
 * @module src/config/schema
 * The schema of `corral.json`: the data of `createHost`'s options under the
 * same names, taken from the HostOptions schema itself (so the two cannot
 * drift), plus what only the command line needs: `tools`, one section per
 * command that has settings of its own (`mcp`, `dashboard`), and `$schema`.
 *
 * What is left out of HostOptions, and why: `beforeToolCall`, `onEvent` and
 * `logger` are functions or objects; `telemetry` holds OpenTelemetry
 * providers, objects an SDK builds (register one with the SDK's own setup,
 * corral then uses the API's global providers); `sourceRoot` is the config's
 * own folder; of the ledger, the clock and the callbacks, and a store given
 * as an object; of capabilities, a store given as an object.
 */
import { z } from "zod";
import { HostOptions } from "../options.js";
import { OAuthOptions } from "../adapters/mcp/oauth-options.js";

/** The environment variables and flags the secrets come from; a file is read by anyone who can read the project. */
const MCP_TOKEN_ADVICE = "a token is never read from corral.json: set CORRAL_MCP_TOKEN or pass --token";
const DASHBOARD_TOKEN_ADVICE = "a token is never read from corral.json: set CORRAL_DASHBOARD_TOKEN or pass --token";

const Port = z.number().int().min(0).max(65_535);

const HostData = HostOptions.omit({ beforeToolCall: true, onEvent: true, logger: true, telemetry: true, sourceRoot: true });

/** The ledger as data: its store as a SQLite file (relative to the config's folder), a postgres:// URL, ":memory:" or false. */
const LedgerData = HostOptions.shape.ledger
  .unwrap()
  .omit({ now: true })
  .extend({ store: z.union([z.string().min(1), z.literal(false)]).optional().describe('a SQLite file (relative to this file), a postgres:// URL, ":memory:" or false; default .corral/ledger.db beside this file') })
  .describe("the ledger: its store, quarantine policy and report sizes");

const CapabilitiesData = HostOptions.shape.capabilities
  .unwrap()
  .omit({ store: true })
  .describe("what tools may reach beyond computing (fetch, ctx.fs, ctx.state), host-wide and per source kind or id; fs roots relative to this file; nothing by default");

export const McpSection = z
  .strictObject({
    transport: z.enum(["stdio", "http"]).optional().describe('"stdio" (the default) or "http" (Streamable HTTP at /mcp); --http overrides'),
    port: Port.optional().describe("the HTTP port; 0 or absent: any free one, printed"),
    host: z.string().min(1).optional().describe("the HTTP address to bind; default 127.0.0.1"),
    allowedHosts: z.array(z.string().min(1)).optional().describe("names clients reach the server by besides its own address (DNS rebinding protection)"),
    allowedOrigins: z.array(z.string().url()).optional().describe("browser origins allowed to call the HTTP server besides its own (a web client such as the MCP Inspector); --allowed-origin overrides"),
    token: z.never({ error: MCP_TOKEN_ADVICE }).optional().describe(MCP_TOKEN_ADVICE),
    oauth: OAuthOptions.optional().describe("accept the bearer JWTs of an OAuth 2.1 authorization server (issuer, jwksUrl?, resource?, audience?, scopes?) instead of a static token; --oauth-issuer overrides"),
  })
  .describe("`corral mcp`'s own settings");

export const DashboardSection = z
  .strictObject({
    port: Port.optional().describe("the port; 0 or absent: any free one, printed"),
    token: z.never({ error: DASHBOARD_TOKEN_ADVICE }).optional().describe(DASHBOARD_TOKEN_ADVICE),
  })
  .describe("`corral dashboard`'s own settings");

export const CorralConfig = HostData.extend({
  $schema: z.string().optional().describe("the JSON Schema editors check this file against: ./node_modules/corral/corral.schema.json"),
  ledger: LedgerData.optional(),
  capabilities: CapabilitiesData.optional(),
  tools: z
    .array(z.string().min(1))
    .optional()
    .describe("tool files, plugin folders or folders of plugins, relative to this file's folder; default: corral's bundled plugins"),
  mcp: McpSection.optional(),
  dashboard: DashboardSection.optional(),
});
export type CorralConfig = z.infer<typeof CorralConfig>;

/** The host's part of a config, as createHost takes it. */
export type ConfigHostOptions = Omit<CorralConfig, "$schema" | "tools" | "mcp" | "dashboard"> & { sourceRoot?: string };

export const CONFIG_FILE_NAME = "corral.json";

/** The JSON Schema editors and other tools check corral.json with (draft-07, what editors know best). */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(CorralConfig, { target: "draft-7", io: "input" }),
    title: "corral.json",
    description: "corral's config: createHost's options as data, the tools to load, and each command's own section. See docs/config.md.",
  };
}
