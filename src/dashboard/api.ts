/**
 * @module src/dashboard/api
 * The dashboard's JSON API: what the page reads (aggregates and pages from
 * the ledger's DashboardReader) and the two things it may write (a
 * quarantine, a release), through the same Ledger the CLI uses. Every
 * request's parameters and body are parsed with zod; an unknown source is a
 * 404, never a row made up.
 *
 * ```
 * GET  /api/overview?window=&offset=&search=   totals, the timeline of all sources, a page of sources (each with its timeline)
 * GET  /api/source?id=&window=&tools=&strikes=&events=   one source: state, tools, strikes, events (pages), its timeline;
 *                                              for agent:<id>, its tools in the library with their latest versions
 * GET  /api/version                            a counter that changes when anyone commits to the ledger (the page polls it)
 * POST /api/quarantine {source, reason, untilMs?}    POST /api/release {source, reason}
 * ```
 */
import { z } from "zod";
import { CorralError } from "../errors.js";
import type { DashboardReader, Ledger } from "../ledger/index.js";
import { SourceId } from "../ledger/types.js";
import type { LibraryStore } from "../library/index.js";
import type { ResolvedDashboardOptions } from "./options.js";

/** The chart's windows: buckets small enough to see a burst, few enough to draw on a phone. */
export const WINDOWS = {
  hour: { bucketMs: 60_000, buckets: 60 },
  day: { bucketMs: 30 * 60_000, buckets: 48 },
  week: { bucketMs: 2 * 3_600_000, buckets: 84 },
} as const;

const Window = z.enum(["hour", "day", "week"]).default("hour");
const Offset = z.coerce.number().int().min(0).max(1_000_000_000).default(0);
const OverviewQuery = z.strictObject({ window: Window, offset: Offset, search: z.string().max(200).optional() });
const SourceQuery = z.strictObject({ id: SourceId, window: Window, tools: Offset, strikes: Offset, events: Offset });
const Reason = z.string().trim().min(1, "a reason is required").max(1_000);
const QuarantineBody = z.strictObject({ source: SourceId, reason: Reason, untilMs: z.number().int().positive().nullable().optional() });
const ReleaseBody = z.strictObject({ source: SourceId, reason: Reason });

/** Details per page of a source: enough for a screen, bounded for a source with a long history. */
const DETAIL_PAGE = 20;
/** An agent's library tools, and versions per tool, an agent's page shows. */
const LIBRARY_TOOLS = 100;
const LIBRARY_VERSIONS = 10;

export type ApiAnswer = { status: number; body: unknown };

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export class DashboardApi {
  readonly #reader: DashboardReader;
  readonly #ledger: Ledger;
  readonly #options: ResolvedDashboardOptions;
  readonly #library: LibraryStore | undefined;

  constructor(reader: DashboardReader, ledger: Ledger, options: ResolvedDashboardOptions, library?: LibraryStore) {
    this.#reader = reader;
    this.#ledger = ledger;
    this.#options = options;
    this.#library = library;
  }

  async handle(method: string, path: string, query: URLSearchParams, body: () => Promise<unknown>): Promise<ApiAnswer> {
    const route = `${method} ${path}`;
    switch (route) {
      case "GET /api/version":
        return { status: 200, body: { version: await this.#reader.version(), pollMs: this.#options.pollMs } };
      case "GET /api/overview":
        return { status: 200, body: await this.#overview(parse(OverviewQuery, Object.fromEntries(query))) };
      case "GET /api/source":
        return this.#source(parse(SourceQuery, Object.fromEntries(query)));
      case "POST /api/quarantine":
        return this.#quarantine(parse(QuarantineBody, await body()));
      case "POST /api/release":
        return this.#release(parse(ReleaseBody, await body()));
      default:
        throw new ApiError(404, `no such API: ${method} ${path}`);
    }
  }

  async #overview(query: z.infer<typeof OverviewQuery>) {
    const now = this.#options.now();
    const window = timelineWindow(query.window, now);
    const version = await this.#reader.version();
    const totals = await this.#reader.totals(now);
    const page = await this.#reader.sourcesPage({ offset: query.offset, limit: this.#options.pageSize, now, ...(query.search ? { search: query.search } : {}) });
    const sources = page.rows.map((row) => row.source);
    const series = await this.#reader.timelines({ ...window, sources });
    const all = await this.#reader.timelines({ ...window, sources: null });
    return {
      now,
      version,
      window: { name: query.window, ...window },
      totals,
      timeline: all.get(null) ?? [],
      page: { total: page.total, offset: page.offset, limit: this.#options.pageSize, rows: page.rows.map((row) => ({ ...row, timeline: series.get(row.source) ?? [] })) },
    };
  }

  async #source(query: z.infer<typeof SourceQuery>): Promise<ApiAnswer> {
    const now = this.#options.now();
    const window = timelineWindow(query.window, now);
    const at = (offset: number) => ({ offset, limit: DETAIL_PAGE });
    const detail = await this.#reader.sourceDetail(query.id, { now, tools: at(query.tools), strikes: at(query.strikes), events: at(query.events) });
    if (detail === null) throw new ApiError(404, "the ledger has no such source");
    const series = await this.#reader.timelines({ ...window, sources: [query.id] });
    const library = query.id.startsWith("agent:") ? await this.#libraryOf(query.id.slice("agent:".length)) : undefined;
    return { status: 200, body: { now, window: { name: query.window, ...window }, pageSize: DETAIL_PAGE, detail, timeline: series.get(query.id) ?? [], ...(library === undefined ? {} : { library }) } };
  }

  /** An agent's tools in the library, each with its latest versions (their manifests' descriptions, never their source). */
  async #libraryOf(agent: string) {
    if (this.#library === undefined) return undefined;
    const tools = await this.#library.tools(agent);
    const shown = await Promise.all(
      tools.slice(0, LIBRARY_TOOLS).map(async (tool) => ({
        ...tool,
        latest: (await this.#library?.versions(tool.name) ?? []).slice(0, LIBRARY_VERSIONS).map((version) => ({
          version: version.version,
          createdAt: version.createdAt,
          caller: version.caller,
          hash: version.hash,
          description: descriptionOf(version.manifestJson),
        })),
      })),
    );
    return { total: tools.length, tools: shown };
  }

  async #quarantine(body: z.infer<typeof QuarantineBody>): Promise<ApiAnswer> {
    const change = await this.#ledger.quarantine(body.source, { reason: body.reason, until: body.untilMs ?? null, actor: this.#options.actor });
    return { status: 200, body: change };
  }

  async #release(body: z.infer<typeof ReleaseBody>): Promise<ApiAnswer> {
    const change = await this.#ledger.release(body.source, { reason: body.reason, actor: this.#options.actor });
    return { status: 200, body: change };
  }
}

function descriptionOf(manifestJson: string): string {
  try {
    const description = (JSON.parse(manifestJson) as { description?: unknown }).description;
    return typeof description === "string" ? description.slice(0, 300) : "";
  } catch {
    return "(a manifest corral cannot read)";
  }
}

/** Buckets end at the next bucket boundary after now, so a chart polled twice keeps its bars in place. */
function timelineWindow(name: keyof typeof WINDOWS, now: number): { to: number; bucketMs: number; buckets: number } {
  const { bucketMs, buckets } = WINDOWS[name];
  return { to: (Math.floor(now / bucketMs) + 1) * bucketMs, bucketMs, buckets };
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ApiError(400, parsed.error.issues.map((issue) => `${issue.path.join(".") || "(request)"}: ${issue.message}`).join("; "));
}

/** What a refusal of the ledger's own (a bad until, say) answers: the message, never a stack. */
export function apiErrorOf(error: unknown): { status: number; message: string } {
  if (error instanceof ApiError) return { status: error.status, message: error.message };
  if (error instanceof CorralError) return { status: error.code === "invalid_options" || error.code === "invalid_source" ? 400 : 503, message: error.message };
  return { status: 500, message: "the dashboard failed to answer; see its log" };
}
