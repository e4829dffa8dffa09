/**
 * @module sandbox/worker/fast-lane
 * A Code Mode script's fast lane in its worker: the tool calls the host
 * pre-authorized when the script started (FastLane in the script's task) run
 * here, on the tool's warm isolate, without a request to the host per call.
 * Every other request of the script goes to the host as before.
 *
 * ```
 * script: await tools.x(input) ─▶ __corral_capability (synchronous) ─▶ here
 *   #now, inside the script's entry: x on the lane, its source not struck, its
 *     isolate warm here and its last call quick, nothing queued, counts left
 *     ─▶ journal: {type: "lane", id, tool} ─▶ core.callNow (x's isolate, x's limits,
 *        the script's scope) ─▶ journal: {type: "fast", record} ─▶ the answer, in the same entry
 *   #relay, after the entry: every other request
 *     counts (maxCalls, maxInFlight: every tool call of the script passes here)
 *     x on the lane ─▶ nested queue: "lane", core.handle (loads a cold x), record ─▶ answer
 *     otherwise ─▶ the request goes to the host
 * ```
 * The rule the ledger needs: no answer reaches the script before its call's
 * record is written, and no lane call starts before its "lane" line is.
 * Written means in the lane's journal (sandbox/shared/lane-journal.ts): in
 * the kernel once `writeSync` returns, so it outlives this process, and read
 * by the host before anything this process sends after it (a request the
 * host judges sees every record and strike before it). Should the journal
 * fail (no space left), the lane stops: its later calls go to the host, and
 * a record already made goes to the host as a message, the answer waiting
 * until it is written. A call that may run a while (one in the queue: cold,
 * or its last call slow; one that waits) also wakes the host as it starts
 * and ends, so that the host's clocks and memory watch hear of it at once
 * rather than at their next read of the journal (JOURNAL_READ_MS). This
 * process only carries the host's verdicts: it never decides a quarantine,
 * an effect or a gate.
 */
import { STRIKE_KINDS } from "../shared/outcome-kinds.js";
import type { CallReply } from "../shared/replies.js";
import type { CallTask } from "../shared/tasks.js";
import type { FastLane as FastLaneSpec, FastRecord, LaneRecords } from "../shared/fast-lane-schemas.js";
import type { ToolAnswer } from "../shared/codemode-messages.js";
import { readEnvelope } from "../shared/envelope.js";
import type { JournalSink } from "./journal-writer.js";
import { askHost, endLocalRelay, setLocalRelay, type CapabilityCall } from "./capability-relay.js";
import type { NestedQueue } from "./nested-queue.js";
import type { WorkerCore } from "./worker-core.js";

/**
 * `journal`: writes a line of the lane's journal, or throws (nothing may be
 * taken as written then). `sendRecords`: the fallback once it threw, a
 * message to the host that settles once it is written to the channel.
 */
export type FastLaneDeps = {
  core: WorkerCore;
  queue: NestedQueue;
  journal: JournalSink;
  sendRecords(message: LaneRecords): Promise<void>;
  /** Tells the host to read the journal now (a message with nothing in it). */
  wake(): void;
};

type Answered = { answer: ToolAnswer; written: Promise<void> | undefined };

/** A script's request, kept while its lane call waits in the queue. */
type Asked = { seq: number; requestJson: string; call: CapabilityCall };

export class FastLane {
  readonly #scriptCallId: string;
  readonly #spec: FastLaneSpec;
  readonly #deps: FastLaneDeps;
  readonly #byName = new Map<string, number>();
  /** Sources that took a strike during this script: their calls go to the host. */
  readonly #struck = new Set<string>();
  /** The journal failed a write: nothing more runs on the lane. */
  #broken = false;
  #calls = 0;
  #inFlight = 0;
  #next = 0;
  #closed = false;

  constructor(scriptCallId: string, spec: FastLaneSpec, deps: FastLaneDeps) {
    this.#scriptCallId = scriptCallId;
    this.#spec = spec;
    this.#deps = deps;
    spec.tools.forEach((tool, index) => this.#byName.set(tool.name, index));
    setLocalRelay(scriptCallId, { now: (_seq, requestJson) => this.#now(requestJson), relay: (seq, requestJson, call) => this.#relay(seq, requestJson, call) });
  }

  /** The script ended and its nested calls are answered (every record written or queued before its reply). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    endLocalRelay(this.#scriptCallId);
    this.#deps.journal.close();
  }

  /**
   * Inside the script's entry: a call of a lane tool whose isolate is warm
   * here and whose last call was quick runs now, in that entry (the tool's
   * own isolate and limits), when no other nested call is queued. Anything
   * else is left to #relay, after the entry.
   */
  #now(requestJson: string): string | Promise<string> | undefined {
    if (this.#closed || this.#broken || this.#deps.queue.pending > 0) return undefined;
    const request = toolRequest(requestJson);
    if (request === undefined || this.#calls >= this.#spec.maxCalls || this.#inFlight >= this.#spec.maxInFlight) return undefined;
    const index = this.#laneIndex(request.name);
    if (index === undefined) return undefined;
    const task = this.#task(index, request.inputJson);
    const { core } = this.#deps;
    // Not run here: left to #relay, which the host may answer (the lane call's id is not spent).
    if (!core.expectedQuick(task) || !this.#started(index, task)) {
      this.#next--;
      return undefined;
    }
    this.#calls++;
    this.#inFlight++;
    const started = performance.now();
    core.tasksInFlight++;
    let reply: CallReply | Promise<CallReply> | undefined;
    try {
      reply = core.callNow(task);
    } finally {
      if (!(reply instanceof Promise)) core.tasksInFlight--;
    }
    // Evicted since the check (nothing ran): its "lane" line is written, so it loads in the queue.
    if (reply === undefined) return this.#queued(index, task, started).then(answerText);
    if (reply instanceof Promise) {
      // The tool waits after all: later nested calls queue behind it.
      const waiting = reply;
      this.#deps.wake();
      return this.#deps.queue.run(async () => {
        const done = await waiting.finally(() => core.tasksInFlight--);
        return this.#whenWritten(this.#done(index, task, started, done, true));
      }).then(answerText);
    }
    const done = this.#done(index, task, started, reply);
    return done.written === undefined ? answerText(done.answer) : done.written.then(() => answerText(done.answer));
  }

  #relay(seq: number, requestJson: string, call: CapabilityCall): CapabilityCall | undefined {
    const request = toolRequest(requestJson);
    // search, describe and anything malformed: the host answers (with every count it needs).
    if (request === undefined || this.#closed) return call;
    const { maxCalls, maxInFlight } = this.#spec;
    if (this.#calls >= maxCalls) return this.#refuse(seq, call, request.name, `this script made ${maxCalls} tool calls already (codeMode.maxCalls)`);
    if (this.#inFlight >= maxInFlight) return this.#refuse(seq, call, request.name, `this script has ${maxInFlight} tool calls waiting already (codeMode.maxInFlight)`);
    this.#calls++;
    const index = this.#laneIndex(request.name);
    if (index === undefined || this.#broken) return this.#toHost(call);
    this.#inFlight++;
    const task = this.#task(index, request.inputJson);
    void this.#queued(index, task, performance.now(), { seq, requestJson, call }).then((value) => {
      if (value !== undefined) answer(call, seq, value);
    });
    return undefined;
  }

  /** The lane's index of `name`, if it is on the lane and its source has taken no strike in this script. */
  #laneIndex(name: string): number | undefined {
    const index = this.#byName.get(name);
    const tool = index === undefined ? undefined : this.#spec.tools[index];
    return tool === undefined || this.#struck.has(tool.source) ? undefined : index;
  }

  /** Writes the "lane" line of a call about to start; false (and the lane stops) if the journal failed. */
  #started(index: number, task: CallTask): boolean {
    try {
      this.#deps.journal.write({ corral: 1, type: "lane", callId: this.#scriptCallId, id: task.callId, tool: index });
      return true;
    } catch {
      this.#broken = true;
      return false;
    }
  }

  /** A tool call for the host to judge: every record went before it on the same channel, so it judges with every count and strike. */
  #toHost(call: CapabilityCall): CapabilityCall {
    this.#inFlight++;
    let answered = false;
    return {
      deliver: (seq, answerJson, pausedMs, payload) => {
        if (!answered) this.#inFlight--;
        answered = true;
        call.deliver(seq, answerJson, pausedMs, payload);
      },
      pause: () => call.pause(),
    };
  }

  #refuse(seq: number, call: CapabilityCall, name: string, message: string): undefined {
    const written = this.#record({ corral: 1, type: "fast", callId: this.#scriptCallId, records: [{ callId: `${this.#scriptCallId}/refused`, ms: 0, refused: { name: name.slice(0, 64), kind: "busy", message } }] });
    void Promise.resolve(written).then(() => answer(call, seq, { ok: false, kind: "busy", message }));
    return undefined;
  }

  #task(index: number, inputJson: string): CallTask {
    const tool = this.#spec.tools[index] as FastLaneSpec["tools"][number];
    const task: CallTask = { type: "call", callId: `${this.#scriptCallId}/${this.#next++}`, bundle: tool.bundle, tool: tool.name, inputJson, limits: tool.limits };
    if (this.#spec.scope !== undefined && this.#spec.scope !== "") task.scope = this.#spec.scope;
    return task;
  }

  /**
   * A lane call in the nested queue, answered after the entry: one that may
   * be slow or cold, or came while another was queued. `asked`: the
   * script's request, for one whose "lane" line is not written yet (sent to
   * the host instead, answering undefined here, should the journal fail).
   */
  #queued(index: number, task: CallTask, started: number): Promise<ToolAnswer>;
  #queued(index: number, task: CallTask, started: number, asked: Asked): Promise<ToolAnswer | undefined>;
  #queued(index: number, task: CallTask, started: number, asked?: Asked): Promise<ToolAnswer | undefined> {
    const { core } = this.#deps;
    return this.#deps.queue.run(async () => {
      if (asked !== undefined && !this.#started(index, task)) {
        this.#inFlight--;
        askHost(this.#scriptCallId, asked.seq, asked.requestJson, this.#toHost(asked.call));
        return undefined;
      }
      this.#deps.wake();
      core.tasksInFlight++;
      let reply: CallReply;
      try {
        reply = (await core.handle(task)) as CallReply;
      } finally {
        core.tasksInFlight--;
      }
      return this.#whenWritten(this.#done(index, task, started, reply, true));
    });
  }

  /** A lane call ended: its record is written now (and the host woken, if it was as the call started), and a strike takes its source off the lane. */
  #done(index: number, task: CallTask, started: number, reply: CallReply, woke = false): Answered {
    this.#inFlight--;
    const answered = answerOf(reply, this.#spec);
    const record: FastRecord = { tool: index, callId: task.callId, ms: performance.now() - started, reply };
    const written = this.#record({ corral: 1, type: "fast", callId: this.#scriptCallId, records: [record] });
    // The host heard this call start: it hears it end as soon.
    if (woke) this.#deps.wake();
    const source = this.#spec.tools[index]?.source;
    // The host decides what the strike means (a quarantine?) before this source runs here again: never, in this script.
    if (!answered.ok && source !== undefined && STRIKE_KINDS.has(answered.kind as CallReply["kind"])) this.#struck.add(source);
    return { answer: answered, written };
  }

  async #whenWritten(done: Answered): Promise<ToolAnswer> {
    await done.written;
    return done.answer;
  }

  /** Writes records to the journal (undefined: written), or, once it failed, sends them to the host (settles once written). */
  #record(records: LaneRecords): Promise<void> | undefined {
    if (!this.#broken) {
      try {
        this.#deps.journal.write(records);
        return undefined;
      } catch {
        this.#broken = true;
      }
    }
    return this.#deps.sendRecords(records);
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

function answerText(value: ToolAnswer): string {
  return JSON.stringify({ ok: true, value });
}

/** Answers the script after the entry that asked (a microtask later), as the host's answers come. */
function answer(call: CapabilityCall, seq: number, value: ToolAnswer): void {
  const answerJson = answerText(value);
  queueMicrotask(() => call.deliver(seq, answerJson, 0));
}
