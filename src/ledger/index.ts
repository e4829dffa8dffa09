/**
 * @module src/ledger
 * What the rest of corral may use of the ledger: the Ledger, its options
 * and results, the policy, the stores and the data they report.
 */

// The ledger
export { Ledger, QuarantineRequest, ReleaseRequest, type RecordResult, type StateChange } from "./ledger.js";
export { LEDGER_DEFAULTS, LedgerOptions } from "./options.js";
export { InvalidCallRecordError, LedgerClosedError, LedgerUnavailableError, NotALedgerError } from "./errors.js";

// What the dashboard reads: aggregates and pages computed by the store
export {
  DashboardEvent,
  DashboardSourceDetail,
  DashboardSourceRow,
  DashboardToolRow,
  DashboardTotals,
  type DashboardReader,
  type Page,
  type PageRequest,
  type TimelineRequest,
} from "./dashboard-reader.js";
export { SqliteDashboardReader, checkLedgerFile } from "./sqlite/index.js";
export { PostgresDashboardReader } from "./postgres/index.js";

// Policy
export { DEFAULT_POLICY, QuarantinePolicy, UNTIL_RELEASED_POLICY, decideQuarantine, type QuarantineDecision } from "./policy.js";

// Stores
export type { Applied, Decide, DecideAfterCall, LedgerStore, RecordOptions, StoreStatus, StoreWatcher, StoredSource, StoredSourceDetail, StoredTool } from "./store.js";
export type { Transition } from "./transitions.js";
export { MemoryLedgerStore } from "./memory/index.js";
export { SQLITE_STORE_DEFAULTS, SqliteLedgerStore, SqliteStoreOptions } from "./sqlite/index.js";
export { POSTGRES_STORE_DEFAULTS, PostgresLedgerStore, PostgresStoreOptions } from "./postgres/index.js";

// What Code Mode scripts called
export {
  SCRIPT_REPORT_ROWS,
  ScriptCallCount,
  ScriptCallerRow,
  ScriptCallersReport,
  ScriptToolRow,
  ScriptToolsReport,
  type StoredScriptCallers,
  type StoredScriptTools,
} from "./script-calls.js";

// Data
export {
  ActiveState,
  CallInput,
  CallRecord,
  ERRORS_KEPT_PER_TOOL,
  EVENT_KINDS,
  EventKind,
  LedgerEvent,
  LoadInput,
  LoadRecord,
  MAX_MESSAGE_CHARS,
  OutcomeCounts,
  POLICY_ACTOR,
  QuarantinedState,
  ScriptSourceId,
  SourceReport,
  SourceRow,
  SourceState,
  StrikeEntry,
  ToolErrorEntry,
  ToolRow,
  ToolVersionCounts,
  Totals,
  isStrike,
} from "./types.js";
