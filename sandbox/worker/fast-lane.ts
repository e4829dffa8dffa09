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
 *     isolate warm here and its last call quick, nothing queued or unwritten, counts left
 *     ─▶ {type: "lane", id, tool} written ─▶ core.callNow (x's isolate, x's limits,
 *        the script's scope) ─▶ {type: "fast", record} written ─▶ the answer, in the same entry
 *   #relay, after the entry: every other request
 *     counts (maxCalls, maxInFlight: every tool call of the script passes here)
 *     x on the lane ─▶ nested queue: "lane", core.handle (loads a cold x), record ─▶ answer
 *     otherwise ─▶ the request goes to the host (after every record: same channel, in order)
 * ```
 * The rule the ledger needs: no answer reaches the script before its call's
 * record is written to the channel, and no lane call starts before its
 * "lane" message is. Written means in the kernel's socket buffer, which
 * outlives this process: `send` says whether a message got there at once
 * (lane-channel.ts); one that waits in this process's write queue would die
 * with it, so the answer (or the call) waits, outside the entry, until it
 * is out. This process only carries the host's verdicts: it never decides
 * a quarantine, an effect or a gate.
 */
import { STRIKE_KINDS } from "../shared/outcome-kinds.js";
import type { CallReply } from "../shared/replies.js";
import type { CallTask } from "../shared/tasks.js";
import type { FastLane as FastLaneSpec, FastRecord } from "../shared/fast-lane-schemas.js";
import type { WorkerMessage } from "../shared/session-messages.js";
import type { ToolAnswer } from "../shared/codemode-messages.js";
import { readEnvelope } from "../shared/envelope.js";
import { endLocalRelay, setLocalRelay, type CapabilityCall } from "./capability-relay.js";
import type { NestedQueue } from "./nested-queue.js";
import type { WorkerCore } from "./worker-core.js";

/** `send`: undefined when the message is written to the channel; a promise when it waits in this process, settled once written. */
export type FastLaneDeps = { core: WorkerCore; queue: NestedQueue; send(message: WorkerMessage): Promise<void> | undefined };

type Answered = { answer: ToolAnswer; written: Promise<void> | undefined };

export class FastLane {
  readonly #scriptCallId: string;
  readonly #spec: FastLaneSpec;
  readonly #deps: FastLaneDeps;
  readonly #byName = new Map<string, number>();
  /** Sources that took a strike during this script: their calls go to the host. */
  readonly #struck = new Set<string>();
  /** Set while a message of this lane waits in this process's write queue: nothing runs in the entry meanwhile. */
  #unwritten: Promise<void> | undefined;
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
  }

  /**
   * Inside the script's entry: a call of a lane tool whose isolate is warm
   * here and whose last call was quick runs now, in that entry (the tool's
   * own isolate and limits), when no other nested call is queued and no
   * message waits unwritten. Anything else is left to #relay, after the entry.
   */
  #now(requestJson: string): string | Promise<string> | undefined {
    if (this.#closed || this.#unwritten !== undefined || this.#deps.queue.pending > 0) return undefined;
    const request = toolRequest(requestJson);
    if (request === undefined || this.#calls >= this.#spec.maxCalls || this.#inFlight >= this.#spec.maxInFlight) return undefined;
    const index = this.#laneIndex(request.name);
    if (index === undefined) return undefined;
    const task = this.#task(index, request.inputJson);
    const { core } = this.#deps;
    if (!core.expectedQuick(task)) {
      this.#next--;
      return undefined;
    }
    this.#calls++;
    this.#inFlight++;
    const started = performance.now();
    const announced = this.#send({ corral: 1, type: "lane", callId: this.#scriptCallId, id: task.callId, tool: index });
    // The host cannot time a call whose "lane" message may die with this process: it runs after, in the queue.
    if (announced !== undefined) return this.#queued(index, task, started, announced).then(answerText);
    core.tasksInFlight++;
    let reply: CallReply | Promise<CallReply> | undefined;
    try {
      reply = core.callNow(task);
    } finally {
      if (!(reply instanceof Promise)) core.tasksInFlight--;
    }
    // Evicted since the check (nothing ran): announced already, so it loads in the queue.
    if (reply === undefined) return this.#queued(index, task, started, undefined).then(answerText);
    if (reply instanceof Promise) {
      // The tool waits after all: later nested calls queue behind it.
      const waiting = reply;
      return this.#deps.queue.run(async () => {
        const done = await waiting.finally(() => core.tasksInFlight--);
        return this.#whenWritten(this.#done(index, task, started, done));
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
    if (index === undefined) return this.#toHost(call);
    this.#inFlight++;
    const task = this.#task(index, request.inputJson);
    void this.#queued(index, task, performance.now(), "unsent").then((value) => answer(call, seq, value));
    return undefined;
  }

  /** The lane's index of `name`, if it is on the lane and its source has taken no strike in this script. */
  #laneIndex(name: string): number | undefined {
    const index = this.#byName.get(name);
    const tool = index === undefined ? undefined : this.#spec.tools[index];
    return tool === undefined || this.#struck.has(tool.source) ? undefined : index;
  }

  /** A tool call for the host to judge: every record went before it on the same channel, so it judges with every count and strike. */
  #toHost(call: CapabilityCall): CapabilityCall {
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
    this.#send({ corral: 1, type: "fast", callId: this.#scriptCallId, records: [{ callId: `${this.#scriptCallId}/refused`, ms: 0, refused: { name: name.slice(0, 64), kind: "busy", message } }] });
    answer(call, seq, { ok: false, kind: "busy", message });
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
   * be slow or cold, came while another was queued, or found a message
   * unwritten. `announced`: its "lane" message, if sent already (a promise
   * while it waits unwritten), or "unsent".
   */
  #queued(index: number, task: CallTask, started: number, announced: Promise<void> | undefined | "unsent"): Promise<ToolAnswer> {
    const { core } = this.#deps;
    return this.#deps.queue.run(async () => {
      await this.#unwritten;
      const lane: WorkerMessage = { corral: 1, type: "lane", callId: this.#scriptCallId, id: task.callId, tool: index };
      await (announced === "unsent" ? this.#send(lane) : announced);
      core.tasksInFlight++;
      let reply: CallReply;
      try {
        reply = (await core.handle(task)) as CallReply;
      } finally {
        core.tasksInFlight--;
      }
      return this.#whenWritten(this.#done(index, task, started, reply));
    });
  }

  /** A lane call ended: its record goes to the host now, and a strike takes its source off the lane. */
  #done(index: number, task: CallTask, started: number, reply: CallReply): Answered {
    this.#inFlight--;
    const answered = answerOf(reply, this.#spec);
    const record: FastRecord = { tool: index, callId: task.callId, ms: performance.now() - started, reply };
    const written = this.#send({ corral: 1, type: "fast", callId: this.#scriptCallId, records: [record] });
    const source = this.#spec.tools[index]?.source;
    // The host decides what the strike means (a quarantine?) before this source runs here again: never, in this script.
    if (!answered.ok && source !== undefined && STRIKE_KINDS.has(answered.kind as CallReply["kind"])) this.#struck.add(source);
    return { answer: answered, written };
  }

  async #whenWritten(done: Answered): Promise<ToolAnswer> {
    await done.written;
    return done.answer;
  }

  /** Sends a message; while one waits unwritten, the next lane call does not run inside the entry. */
  #send(message: WorkerMessage): Promise<void> | undefined {
    const written = this.#deps.send(message);
    if (written === undefined) return undefined;
    const settled = written.finally(() => {
      if (this.#unwritten === settled) this.#unwritten = undefined;
    });
    this.#unwritten = settled;
    return settled;
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
