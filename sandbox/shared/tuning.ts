/**
 * @module sandbox/shared/tuning
 * Every constant that tunes corral's speed, in one place: host and worker
 * both import it (sandbox/shared), so a value both sides must agree on is
 * written once. Limits (what a tool may use), formats and vocabularies are
 * not here; nor are the host's options, whose defaults stay in
 * HOST_DEFAULTS (src/options.ts), which takes its tuned ones from here.
 *
 * Each value says what it trades and which row of `npm run bench`
 * (docs/benchmarks.md: table › row) shows it earns its place. "No bench row
 * measures this yet" means just that: the value is a judgement, and a bench
 * row that varies it is owed before anyone tunes it further. An
 * optimisation whose row no longer shows a win is removed, not kept "just
 * in case".
 *
 * Not here yet (sandbox/worker/isolate-meter.ts, owned elsewhere for now):
 * HEAP_READ_EVERY_CALLS, QUIET_SAMPLE_MS, QUIET_CPU_SHARE.
 */

// ── The pool: how far ahead tasks are sent, and where ────────────────────

/**
 * A call that took at most this long (the worker's wall clock) is quick:
 * the host sends quick calls deeper (src/pool/affinity.ts), and the worker
 * holds replies back only behind them (sandbox/worker/entry.ts). Higher
 * batches more calls, at the risk of a call that is not quick waiting
 * behind ones thought to be. Shown by: Throughput, 64 in flight › "corral,
 * default options" against "corral, `quickPipelineDepth: 2`" (the deep
 * pipelines this threshold admits); no row varies the threshold itself.
 */
export const QUICK_CALL_MS = 1;

/**
 * Quick calls in a row before a key counts as quick (one slow call starts
 * the count again). Lower reaches deep pipelines sooner; higher makes it
 * rarer that a sometimes-slow tool has many calls queued behind a slow one.
 * Shown by: the same Throughput rows as QUICK_CALL_MS (the mechanism); no
 * row varies the streak.
 */
export const QUICK_STREAK = 8;

/**
 * The default `pipelineDepth`: tasks sent ahead to one worker, so the next
 * starts as the previous ends instead of after a round trip. Deeper hides
 * more of the round trip; every task behind a slow one waits for it. No
 * bench row measures this yet (every corral row runs it at 2).
 */
export const PIPELINE_DEPTH = 2;

/**
 * The default `quickPipelineDepth`: tasks sent ahead while all are known-
 * quick calls; they share IPC messages, which is where a warm call's time
 * goes (Where the time goes › host `writeUtf8String`, worker
 * `writeChannelMessage`). Shown by: Throughput, 64 in flight › "corral,
 * default options" (16 deep) against "corral, `quickPipelineDepth: 2`":
 * about twice the calls per second at half the CPU per call.
 */
export const QUICK_PIPELINE_DEPTH = 16;

/**
 * A worker whose running task has run this long since it last answered is
 * stalled: nothing more is sent ahead to it, and what was sent ahead is
 * taken back and may run elsewhere. About what a cold isolate costs on a
 * slow machine: lower spills warm keys to cold workers (a cold isolate,
 * ~20-30 ms, Cold tools › "raw: fresh isolate"); higher leaves calls waiting
 * behind a slow one. No bench row measures this yet (Recovery › "a 40 ms
 * call ends normally" stays under it).
 */
export const STALL_MS = 50;

/**
 * The default `spareWorkers`: booted processes kept idle to replace a
 * worker that dies, each ~70 MB of memory (Memory › "each worker process,
 * idle"). Shown by: Recovery after a worker dies › "next call" (tens of ms)
 * against "replaced" (~650 ms: what the next call would wait for a fork
 * and boot without a spare).
 */
export const SPARE_WORKERS = 1;

/**
 * The default `maxWarmIsolates`: warm isolates a worker keeps, each ~5 MB
 * (Memory › "worker RSS per warm tool"); a call that misses pays a cold
 * isolate. Shown by: Mixed tools › `maxWarmIsolates: 12` against the
 * default (64: all 20 tools stay warm).
 */
export const WARM_ISOLATES_PER_WORKER = 64;

// ── The worker ───────────────────────────────────────────────────────────

/**
 * Held replies must leave by the oldest held task's arrival + its time
 * limit + this share of `watchdogGraceMs`: the host sends that budget with
 * each task (`replyWithinMs`, src/pool/session.ts), and the worker holds
 * replies within it (sandbox/worker/entry.ts holdBack). Higher lets more replies share a message; the rest of the
 * grace is the margin before the host's watchdog, which must never fire on
 * a worker that only held a reply. No bench row measures this yet.
 */
export const HOLD_BACK_GRACE_SHARE = 0.5;

/**
 * Bundles sent with their code inline (a host without a cache folder) that
 * a worker keeps, and that the host mirrors per worker
 * (sandbox/shared/bundle-window.ts): both sides must use this one value.
 * More costs worker memory; fewer re-sends code. No bench row measures this
 * yet (the bench hosts all have a cache folder).
 */
export const BUNDLE_WINDOW = 64;

/**
 * Bundles a worker keeps after reading them from the host's cache folder
 * (sandbox/worker/bundle-store.ts). More costs worker memory; fewer
 * re-reads and re-hashes a file on a cold isolate. No bench row measures
 * this yet.
 */
export const DISK_BUNDLES_KEPT = 256;

/**
 * The blank isolate kept ready (sandbox/worker/worker-core.ts) is made
 * again only after the worker has been idle this long: a load is usually
 * followed at once by the tool's first call, which should not wait behind
 * it. Shown by: Cold tools › "new agent source" ("load" is the blank's
 * saving); no row varies the delay (the bench waits 250 ms between loads).
 */
export const REFILL_AFTER_IDLE_MS = 100;

/**
 * A warm isolate is collected again at idle time (sandbox/worker/idle-work.ts)
 * only once its heap has grown by this much, or by half, since its last
 * collection: each costs 8–30 ms of the worker's time, so a tool whose heap
 * keeps growing is not collected after every call. Shown by: Memory ›
 * "worker RSS per warm tool" (the first collection of each isolate); no row
 * varies this.
 */
export const COLLECT_AFTER_GROWTH_BYTES = 1024 * 1024;

/**
 * Isolates with a heap above this are not collected at idle time: a full
 * collection takes longer the more is alive, a call could wait behind it,
 * and a heap this large has been collected by V8 as it grew.
 */
export const COLLECT_HEAPS_UP_TO_BYTES = 32 * 1024 * 1024;

/** The collection's own entry: it runs no tool code, so this only bounds a fault of ours. */
export const COLLECT_TIMEOUT_MS = 2_000;

/**
 * Tasks run at boot through a call's own path (a describe, then calls) so
 * the first real call finds the guest runtime and the message parsers
 * compiled. More delays a new worker's readiness (Recovery › "replaced").
 * No bench row measures this yet.
 */
export const WARM_UP_TASKS = 20;

// ── The ledger ───────────────────────────────────────────────────────────

/**
 * The longest a record nobody waits for (`behind`) waits to share its
 * commit with later ones, in SQLite and PostgreSQL alike. Longer shares
 * more commits; a SIGKILL of the host can lose this much of the last
 * calls' counts. Shown by: Warm call › `host.call` (default pool) against
 * "`ledger: { store: false }`" (the SQLite ledger adds nothing measurable
 * at p50), and "`ledger: { store: "postgres://…" }`".
 */
export const COMMIT_BEHIND_MS = 20;

/**
 * Once the oldest record waiting behind is this old, the next record's turn
 * commits them all (src/ledger/sqlite/store.ts): the turn that answered a
 * call, so the commit runs while the next call is on its way to a worker,
 * not when a timer fires, perhaps as a reply comes in. Shown by: the same
 * Warm call rows as COMMIT_BEHIND_MS; no row varies the share.
 */
export const SHARE_COMMIT_MS = COMMIT_BEHIND_MS / 2;

/** SQLite: records waiting behind past which they commit at the next turn anyway (a bounded transaction). No bench row measures this yet. */
export const MAX_BEHIND_RECORDS = 512;

/** PostgreSQL: records written in one transaction at most (a busy turn, or a buffer being written back). No bench row measures this yet (64 in flight never fills one). */
export const POSTGRES_MAX_BATCH_RECORDS = 500;

/** PostgreSQL: a store's marks of committed batches are pruned once per this many batches; pruning more often costs a statement, less often a bigger table. No bench row measures this yet. */
export const PRUNE_BATCH_MARKS_EVERY = 1_000;

/** PostgreSQL: an idle pooled connection is closed after this long; shorter frees server sessions, longer saves reconnecting. No bench row measures this yet. */
export const POSTGRES_IDLE_CONNECTION_MS = 30_000;

/** PostgreSQL dashboard: connections its reader keeps, so a poll can pass a slow page. No bench row measures this yet. */
export const DASHBOARD_READER_CONNECTIONS = 2;

/**
 * How often the checkpointer thread moves committed WAL pages into the
 * database file (src/ledger/sqlite/wal-checkpointer.ts), off the event loop. More
 * often costs that thread's CPU; less lets the WAL grow. No bench row
 * measures this yet (the thread's win was measured by hand: see
 * sqlite/wal-checkpointer.ts).
 */
export const CHECKPOINT_INTERVAL_MS = 250;

/**
 * SQLite checkpoints on its own, on the committing thread (the host's event
 * loop), past this many WAL pages (its default is 1,000): only should the
 * checkpointer thread fall behind or be gone. No bench row measures this yet.
 */
export const SAFETY_NET_CHECKPOINT_PAGES = 20_000;

// ── The host ─────────────────────────────────────────────────────────────

/**
 * How often a busy worker's resident memory is read from /proc
 * (src/pool/memory-watch.ts). More often catches runaway memory that V8
 * does not count sooner and costs the host a read (~8 µs) per busy worker
 * each time. No bench row measures this yet (Recovery › "RSS watch kills"
 * counts from the failed call's answer, after the watch has fired).
 */
export const MEMORY_SAMPLE_MS = 10;

/**
 * A reading of a worker's resident memory, taken as a call starts, serves
 * the calls that follow it while they took at most this much wall time
 * together (src/pool/memory-watch.ts): a read costs the host about 8 µs, a
 * quick call's tenth. A task faults in about 1–2 MB of new memory a
 * millisecond here (measured: fresh pages, heap or WebAssembly), so what
 * such calls left that a reused baseline misses is a few MB, inside the
 * slack; any other task makes the next start read again. Higher saves
 * reads and lets more of other calls' growth count as a call's own. Shown
 * by: Where the time goes › host `read` (about 41 µs a call under the
 * profiler when every call read); no row varies the value.
 */
export const RESIDENT_REUSE_WITHIN_WALL_MS = 4;

/**
 * The quarantine view reads the store's change counter at most this often
 * (src/host/quarantine-view.ts): what another process commits counts this
 * much later at worst. Shown by: Where the time goes › Host process ›
 * `changesElsewhere` (its cost per call, with this cap).
 */
export const CHANGE_COUNTER_MAX_AGE_MS = 1;

/** The quarantine view reads every state again this often when no call comes, for `declarations()`. No bench row measures this yet. */
export const QUARANTINE_REFRESH_MS = 5_000;

// ── Code Mode's fast lane ────────────────────────────────────────────────

/**
 * A lane journal's part grows to about this many bytes before the worker
 * goes on in the next (sandbox/shared/lane-journal.ts), and the host
 * removes the part it has read: what a long script's journal holds in
 * memory at once. Higher means fewer files; lower, less memory held. No
 * bench row measures this yet (the Code Mode row's script writes about
 * 0.4 MB).
 */
export const JOURNAL_PART_BYTES = 1024 * 1024;

/**
 * While a script with a fast lane runs, the host reads its journal at least
 * this often (it reads it before every message of the worker too): how late
 * the host may start timing a lane call (its watchdog allows load + limit +
 * grace from then) and learn of its record. No bench row measures this yet.
 */
export const JOURNAL_READ_MS = 10;
