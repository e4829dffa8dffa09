/**
 * @module sandbox/worker/fast-lane
 * A Code Mode script's fast lane in its worker: the tool calls the host
 * pre-authorized when the script started (FastLane in the script's task) run
 * here, on the tool's warm isolate, without a message to the host per call.
 * Every other request of the script goes to the host as before.
 *
 * ```
 * script: await tools.x(input) ─▶ __corral_capability (synchronous) ─▶ here
 *   #now, inside the script's entry: x on the lane, its source not struck, its
 *     isolate warm here and its last call quick, nothing queued, counts left
 *     ─▶ status file "x runs" ─▶ core.callNow (x's isolate, x's limits, the
 *        script's scope) ─▶ status "none" ─▶ the answer, returned into the same entry
 *   #relay, after the entry: every other request
 *     counts (maxCalls, maxInFlight: every tool call of the script passes here)
 *     x on the lane ─▶ nested queue: status, core.handle (loads a cold x) ─▶ answer
 *     otherwise ─▶ records sent first, then the request goes to the host
 *   every lane call ─▶ record ─▶ batch ─▶ {type: "fast", records} ─▶ host: ledger, events, spans
 * ```
 * Records leave in call order: at once after a strike (and that source's
 * calls go to the host from then on, where its quarantine is decided),
 * before any request sent to the host (so it judges with every count),
 * before a call that may be slow (so a worker killed in it loses none),
 * past BATCH_RECORDS, after FLUSH_AFTER_MS, and when the script ends, before
 * its reply. This process only carries the host's verdicts: it never
 * decides a quarantine, an effect or a gate.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { STRIKE_KINDS, type CallReply, type CallTask, type FastLane as FastLaneSpec, type FastRecord, type WorkerMessage } from "../protocol.js";
import type { ToolAnswer } from "../shared/codemode-messages.js";
import { readEnvelope } from "../shared/envelope.js";
import { encodeFastStatus, FAST_STATUS_BYTES } from "../shared/fast-status.js";
import { endLocalRelay, setLocalRelay, type CapabilityCall } from "./capability-relay.js";
import type { NestedQueue } from "./nested-queue.js";
import type { WorkerCore } from "./worker-core.js";

/** A batch this long leaves at once (one message of a few hundred KB at most). */
const BATCH_RECORDS = 256;
/** Records wait at most this long for others to share their message. */
const FLUSH_AFTER_MS = 10;

export type FastLaneDeps = { core: WorkerCore; queue: NestedQueue; send(message: WorkerMessage): void };

export class FastLane {
  readonly #scriptCallId: string;
  readonly #spec: FastLaneSpec;
  readonly #deps: FastLaneDeps;
  readonly #byName = new Map<string, number>();
  /** Sources that took a strike during this script: their calls go to the host. */
  readonly #struck = new Set<string>();
  #records: FastRecord[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #calls = 0;
  #inFlight = 0;
  #next = 0;
  #closed = false;
  readonly #status: StatusWriter | undefined;

  constructor(scriptCallId: string, spec: FastLaneSpec, deps: FastLaneDeps) {
    this.#scriptCallId = scriptCallId;
    this.#spec = spec;
    this.#deps = deps;
    this.#status = spec.statusPath === undefined ? undefined : new StatusWriter(spec.statusPath);
    // Never a nested call the host cannot time: without the status file, every call goes to the host.
    if (this.#status?.open === true) spec.tools.forEach((tool, index) => this.#byName.set(tool.name, index));
    setLocalRelay(scriptCallId, { now: (_seq, requestJson) => this.#now(requestJson), relay: (seq, requestJson, call) => this.#relay(seq, requestJson, call) });
  }

  /** The script ended and its nested calls are answered: the last records leave (before its reply). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    endLocalRelay(this.#scriptCallId);
    this.#flush();
    this.#status?.close();
  }

  /**
   * Inside the script's entry: a call of a lane tool whose isolate is warm
   * here and whose last call was quick runs now, in that entry (the tool's
   * own isolate and limits; its status written first), when no other nested
   * call is queued. Anything else is left to #relay, after the entry.
   */
  #now(requestJson: string): string | Promise<string> | undefined {
    if (this.#closed || this.#deps.queue.pending > 0) return undefined;
    const request = toolRequest(requestJson);
    if (request === undefined || this.#calls >= this.#spec.maxCalls || this.#inFlight >= this.#spec.maxInFlight) return undefined;
    const index = this.#byName.get(request.name);
    const tool = index === undefined ? undefined : this.#spec.tools[index];
    if (index === undefined || tool === undefined || this.#struck.has(tool.source)) return undefined;
    const task = this.#task(index, request.inputJson);
    const { core } = this.#deps;
    if (!core.expectedQuick(task)) return undefined;
    this.#calls++;
    this.#inFlight++;
    const started = performance.now();
    this.#status?.running(index);
    core.tasksInFlight++;
    const ended = () => {
      core.tasksInFlight--;
      this.#status?.idle();
    };
    let reply: CallReply | Promise<CallReply> | undefined;
    try {
      reply = core.callNow(task);
    } finally {
      if (!(reply instanceof Promise)) ended();
    }
    if (reply === undefined) {
      // Evicted since the check: nothing ran; the ordinary path loads it.
      this.#calls--;
      this.#inFlight--;
      this.#next--;
      return undefined;
    }
    if (!(reply instanceof Promise)) return JSON.stringify({ ok: true, value: this.#done(index, task, started, reply) });
    // The tool waits after all: later nested calls queue behind it.
    const waiting = reply;
    return this.#deps.queue
      .run(() => waiting.finally(ended))
      .then((done) => JSON.stringify({ ok: true, value: this.#done(index, task, started, done) }));
  }

  #relay(seq: number, requestJson: string, call: CapabilityCall): CapabilityCall | undefined {
    const request = toolRequest(requestJson);
    // search, describe and anything malformed: the host answers (with every count it needs).
    if (request === undefined || this.#closed) return this.#toHost(call, false);
    const { maxCalls, maxInFlight } = this.#spec;
    if (this.#calls >= maxCalls) return this.#refuse(seq, call, request.name, `this script made ${maxCalls} tool calls already (codeMode.maxCalls)`);
    if (this.#inFlight >= maxInFlight) return this.#refuse(seq, call, request.name, `this script has ${maxInFlight} tool calls waiting already (codeMode.maxInFlight)`);
    this.#calls++;
    const index = this.#byName.get(request.name);
    const tool = index === undefined ? undefined : this.#spec.tools[index];
    if (index === undefined || tool === undefined || this.#struck.has(tool.source)) return this.#toHost(call, true);
    this.#run(seq, call, index, request.inputJson);
    return undefined;
  }

  /** Sends the request to the host, after the records, so it judges it with every count and strike. */
  #toHost(call: CapabilityCall, toolCall: boolean): CapabilityCall {
    this.#flush();
    if (!toolCall) return call;
    this.#inFlight++;
    let answered = false;
    return {
      deliver: (seq, answerJson, pausedMs) => {
        if (!answered) this.#inFlight--;
        answered = true;
        call.deliver(seq, answerJson, pausedMs);
      },
      pause: () => call.pause(),
    };
  }

  #refuse(seq: number, call: CapabilityCall, name: string, message: string): undefined {
    this.#push({ callId: `${this.#scriptCallId}/refused`, ms: 0, refused: { name: name.slice(0, 64), kind: "busy", message } });
    answer(call, seq, { ok: false, kind: "busy", message });
    return undefined;
  }

  #task(index: number, inputJson: string): CallTask {
    const tool = this.#spec.tools[index] as FastLaneSpec["tools"][number];
    const task: CallTask = { type: "call", callId: `${this.#scriptCallId}/${this.#next++}`, bundle: tool.bundle, tool: tool.name, inputJson, limits: tool.limits };
    if (this.#spec.scope !== undefined && this.#spec.scope !== "") task.scope = this.#spec.scope;
    return task;
  }

  /** A call that may be slow, or comes while another nested call is queued: in the nested queue, answered after the entry. */
  #run(seq: number, call: CapabilityCall, index: number, inputJson: string): void {
    const { core } = this.#deps;
    const started = performance.now();
    const task = this.#task(index, inputJson);
    this.#inFlight++;
    void this.#deps.queue
      .run(async () => {
        // A call that may be slow (cold, or slow last time) could be the one the host kills: nothing waits behind it.
        if (!core.expectedQuick(task)) this.#flush();
        this.#status?.running(index);
        core.tasksInFlight++;
        try {
          return await core.handle(task);
        } finally {
          core.tasksInFlight--;
          this.#status?.idle();
        }
      })
      .then((reply) => answer(call, seq, this.#done(index, task, started, reply as CallReply)));
  }

  /** A fast call ended: its record, a strike's consequences, and what the script hears. */
  #done(index: number, task: CallTask, started: number, reply: CallReply): ToolAnswer {
    this.#inFlight--;
    const answered = answerOf(reply, this.#spec);
    this.#push({ tool: index, callId: task.callId, ms: performance.now() - started, reply });
    const source = this.#spec.tools[index]?.source;
    if (!answered.ok && source !== undefined && STRIKE_KINDS.has(answered.kind as CallReply["kind"])) {
      // The host decides what the strike means (a quarantine?) before this source runs here again: never, in this script.
      this.#struck.add(source);
      this.#flush();
    }
    return answered;
  }

  #push(record: FastRecord): void {
    this.#records.push(record);
    if (this.#records.length >= BATCH_RECORDS) this.#flush();
    else if (this.#flushTimer === undefined) {
      this.#flushTimer = setTimeout(() => this.#flush(), FLUSH_AFTER_MS);
      this.#flushTimer.unref();
    }
  }

  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#records.length === 0) return;
    const records = this.#records;
    this.#records = [];
    this.#deps.send({ corral: 1, type: "fast", callId: this.#scriptCallId, records });
  }
}

/** The tool call in a script's request, if that is what it is (the rest the host parses). */
function toolRequest(requestJson: string): { name: string; inputJson: string } | undefined {
  try {
    const request = JSON.parse(requestJson) as { kind?: unknown; name?: unknown; inputJson?: unknown };
    if (request.kind !== "tool" || typeof request.name !== "string" || typeof request.inputJson !== "string") return undefined;
    return { name: request.name, inputJson: request.inputJson };
  } catch {
    return undefined;
  }
}

/** What the script hears: as the host's path answers it (src/codemode/code-mode.ts), from the same envelope reader. */
function answerOf(reply: CallReply, spec: FastLaneSpec): ToolAnswer {
  if (reply.envelopeJson === undefined) return { ok: false, kind: reply.kind === "ok" ? "crash" : reply.kind, message: reply.message ?? "the call failed" };
  const read = readEnvelope(reply.envelopeJson, spec.caps);
  return read.ok ? { ok: true, result: read.structured ?? read.output } : { ok: false, kind: read.kind, message: read.message };
}

/** Answers the script after the entry that asked (a microtask later), as the host's answers come. */
function answer(call: CapabilityCall, seq: number, value: ToolAnswer): void {
  const answerJson = JSON.stringify({ ok: true, value });
  queueMicrotask(() => call.deliver(seq, answerJson, 0));
}

/** Writes which fast call runs (sandbox/shared/fast-status.ts): one pwrite of 32 bytes per change. */
class StatusWriter {
  readonly #fd: number | undefined;
  readonly #buffer = new Float64Array(FAST_STATUS_BYTES / 8);
  #seq = 0;

  constructor(path: string) {
    try {
      this.#fd = openSync(path, "r+");
    } catch {
      // No status file: the lane stays empty (see the constructor of FastLane).
      this.#fd = undefined;
    }
  }

  get open(): boolean {
    return this.#fd !== undefined;
  }

  running(tool: number): void {
    this.#write(tool, Date.now());
  }

  idle(): void {
    this.#write(-1, 0);
  }

  #write(tool: number, startedAt: number): void {
    if (this.#fd === undefined) return;
    encodeFastStatus({ seq: ++this.#seq, tool, startedAt }, this.#buffer);
    writeSync(this.#fd, this.#buffer, 0, FAST_STATUS_BYTES, 0);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
  }
}
