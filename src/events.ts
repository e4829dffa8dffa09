/**
 * @module src/events
 * Typed events of the host, for screens and logs: `host.on(listener)` or the
 * `onEvent` option. Listeners run synchronously after the fact; one that
 * throws is logged and ignored, so a faulty screen never breaks a call.
 */
import type { Logger } from "pino";
import type { StoreStatus } from "./ledger/store.js";
import type { SourceState } from "./ledger/types.js";
import type { ToolResult } from "./result.js";
import type { LogLevel } from "../sandbox/shared/talk-back.js";

export type HostEvent =
  | { type: "tool_execution_start"; callId: string; tool: string; source?: string; at: number }
  /** The gate allowed the call and it took a slot: its clock starts now. */
  | { type: "tool_running"; callId: string; tool: string; source: string; at: number }
  /** A running tool reported progress (ctx.progress), whether or not its caller asked for it. */
  | { type: "tool_progress"; callId: string; tool: string; source: string; progress: number; total?: number; message?: string; at: number }
  /** A running tool sent a log message (ctx.log); `data` is the tool's JSON, as it wrote it. */
  | { type: "tool_log"; callId: string; tool: string; source: string; level: LogLevel; data: unknown; logger?: string; at: number }
  /** With the whole result, `details` included (never sent to a model). */
  | { type: "tool_execution_end"; callId: string; tool: string; source?: string; result: ToolResult; at: number }
  | { type: "quarantine"; source: string; reason: string; since: number; until: number | null; at: number }
  | { type: "release"; source: string; actor: string; at: number }
  /**
   * Another process (a host sharing the ledger, the CLI, the dashboard)
   * quarantined or released a source, as this host learnt from the ledger:
   * at a call of that source, or at its refresh (every 5 s, when the store
   * says someone else committed). `quarantine` and `release` are this host's own.
   */
  | { type: "state_changed_elsewhere"; source: string; state: SourceState; at: number }
  | { type: "worker_crash"; message: string; at: number }
  /** The ledger's store on a server became unreachable, came back, or refused or lost records (PostgreSQL). */
  | { type: "ledger_store"; status: StoreStatus; at: number }
  /** A source's tools were registered or replaced (a load, create_tool): what tools() answers changed. */
  | { type: "tools_changed"; source: string; tools: string[]; at: number };

export type HostEventListener = (event: HostEvent) => void;

export class EventHub {
  readonly #listeners = new Set<HostEventListener>();
  readonly #logger: Logger;

  constructor(logger: Logger, initial?: HostEventListener) {
    this.#logger = logger;
    if (initial !== undefined) this.#listeners.add(initial);
  }

  /** Adds a listener; the returned function removes it. */
  on(listener: HostEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether anyone listens: a caller on the hot path builds an event only then. */
  get listened(): boolean {
    return this.#listeners.size > 0;
  }

  emit(event: HostEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn({ err: error, event: event.type }, "an event listener threw; ignored");
      }
    }
  }
}
