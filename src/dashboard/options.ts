/**
 * @module src/dashboard/options
 * The dashboard's options: one strict zod schema and the defaults beside it.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { CorralError, describeIssues } from "../errors.js";

export const DASHBOARD_DEFAULTS = {
  /** 0: any free port, printed. @default 0 */
  port: 0,
  /** How often the page asks whether the ledger changed; the server reads one counter per ask. @default 2000 */
  pollMs: 2_000,
  /** Rows per page of sources. @default 25 */
  pageSize: 25,
};

/** A token is 16-256 URL-safe characters: it travels in a URL fragment and an Authorization header. */
export const DashboardToken = z.string().regex(/^[A-Za-z0-9._~-]{16,256}$/, "a token is 16-256 characters of A-Z a-z 0-9 . _ ~ -");

export const DashboardOptions = z.strictObject({
  /** The ledger hosts record their calls in: a SQLite file or a `postgres://` URL. Never created: it must be a ledger already. */
  ledger: z.string().min(1),
  /** @default 0 */
  port: z.number().int().min(0).max(65_535).optional(),
  /** The bearer token every API request must carry; default: a random one (read it from `dashboard.token`). */
  token: DashboardToken.optional(),
  /** Who the ledger's events name for a quarantine or release made on the page. */
  actor: z.string().min(1).max(256),
  /** @default 2000 */
  pollMs: z.number().int().min(250).max(60_000).optional(),
  /** @default 25 */
  pageSize: z.number().int().min(1).max(200).optional(),
  /** The clock, ms since the epoch; tests pass their own. @default Date.now */
  now: z.custom<() => number>((value) => typeof value === "function", "now must be a function").optional(),
});
export type DashboardOptions = z.input<typeof DashboardOptions>;
export type ResolvedDashboardOptions = Required<Omit<DashboardOptions, "token">> & { token: string };

export function resolveDashboardOptions(options: unknown): ResolvedDashboardOptions {
  const parsed = DashboardOptions.safeParse(options);
  if (!parsed.success) {
    const detail = describeIssues(parsed.error.issues);
    throw new CorralError("invalid_options", `dashboard options are invalid: ${detail}`, { issues: parsed.error.issues });
  }
  const given = parsed.data;
  return {
    ledger: given.ledger,
    port: given.port ?? DASHBOARD_DEFAULTS.port,
    token: given.token ?? randomBytes(24).toString("base64url"),
    actor: given.actor,
    pollMs: given.pollMs ?? DASHBOARD_DEFAULTS.pollMs,
    pageSize: given.pageSize ?? DASHBOARD_DEFAULTS.pageSize,
    now: given.now ?? Date.now,
  };
}
