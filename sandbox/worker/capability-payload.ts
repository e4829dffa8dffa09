/**
 * @module sandbox/worker/capability-payload
 * A capability payload as the worker carries it, outside every isolate:
 * what a guest handed over (isolated-vm's one copy of its ArrayBuffer or
 * string) made a WirePayload for the host, and the host's made an
 * ArrayBuffer or a string for the guest (isolated-vm copies it in once, into
 * memory the isolate's limit counts). Buffer does the base64, natively.
 *
 * A payload past the running call's cap (PayloadCaps, from its task) is not
 * encoded or sent: the request goes on with its size alone, and the host,
 * which judges every request, refuses it `too_large` and audits it. So what
 * corral copies of a payload is bounded by the caps, never by what a tool
 * made. A payload coming in is copied by isolated-vm into memory the
 * isolate's allocator counts: when it does not fit beside what the tool
 * holds, the allocator refuses it (after a collection) and the isolate is
 * left as it was; the tool then hears `too_large` (noRoomAnswer). Text
 * goes onto the heap, where nothing refuses it: it is weighed first
 * (noRoomForText). So
 * corral's copy is never what takes an isolate past its limit (a memory
 * verdict, and a strike, the tool did not earn).
 */
import { Buffer } from "node:buffer";
import type { PayloadCaps, WirePayload } from "../shared/capability-messages.js";

/** What goes to the host with a request: its payload, or (past the cap, or with no cap) only its size. */
export type Outgoing = { payload?: WirePayload; payloadBytes?: number };

/** The cap that bounds the payload of a request (its JSON text, parsed here for its kind only). */
function capOf(requestJson: string, caps: PayloadCaps | undefined): number | undefined {
  let request: { kind?: unknown; op?: unknown };
  try {
    request = JSON.parse(requestJson) as { kind?: unknown; op?: unknown };
  } catch {
    return undefined;
  }
  if (request.kind === "fetch") return caps?.requestBytes;
  if (request.kind === "fs") return caps?.fileBytes;
  if (request.kind === "state") return caps?.stateBytes;
  return undefined;
}

/** The guest's payload for the host, or its size alone when it is past the call's cap. */
export function outgoingPayload(requestJson: string, payload: unknown, caps: PayloadCaps | undefined): Outgoing {
  if (payload === undefined) return {};
  const cap = capOf(requestJson, caps);
  if (typeof payload === "string") {
    // UTF-8 bytes, as the store counts them.
    const bytes = Buffer.byteLength(payload);
    return cap !== undefined && bytes <= cap ? { payload: { text: payload } } : { payloadBytes: bytes };
  }
  const view = payload instanceof ArrayBuffer ? new Uint8Array(payload) : ArrayBuffer.isView(payload) ? new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength) : undefined;
  if (view === undefined) return {};
  if (cap === undefined || view.byteLength > cap) return { payloadBytes: view.byteLength };
  return { payload: { bytesBase64: Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString("base64") } };
}

/** The host's payload as the guest gets it: an ArrayBuffer of exactly its bytes, or its text. */
export function incomingPayload(payload: WirePayload | undefined): ArrayBuffer | string | undefined {
  if (payload === undefined) return undefined;
  if ("text" in payload) return payload.text;
  const bytes = Buffer.from(payload.bytesBase64, "base64");
  // A small Buffer lives in Node's shared pool: only its own bytes may go in.
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
  const own = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(own).set(bytes);
  return own;
}

const MB = 1024 * 1024;

/** What a payload adds to an isolate: its bytes (a string's UTF-16 units at two bytes, the most it takes). */
export const payloadBytes = (payload: ArrayBuffer | string): number => (typeof payload === "string" ? payload.length * 2 : payload.byteLength);

/** A string payload this small is copied without a look (a heap reading costs about a call). */
const SMALL_TEXT_BYTES = 64 * 1024;
/** A string goes onto the V8 heap, where no allocator refuses it (an isolate past its heap limit is disposed): it is copied in only below this share of the limit. */
const TEXT_ROOM_SHARE = 0.9;

/**
 * The refusal (JSON text) of a text payload (a state value) that would take
 * the isolate's heap near its limit (`readHeap`: used and external bytes), or
 * undefined. Bytes need no look: isolated-vm's allocator refuses them.
 */
export function noRoomForText(payload: ArrayBuffer | string | undefined, readHeap: () => number, limitBytes: number): string | undefined {
  if (typeof payload !== "string" || payloadBytes(payload) < SMALL_TEXT_BYTES) return undefined;
  const used = readHeap();
  return used + payloadBytes(payload) <= limitBytes * TEXT_ROOM_SHARE ? undefined : noRoomAnswer(payloadBytes(payload), used, limitBytes);
}

/** isolated-vm's refusal of an ArrayBuffer past the isolate's memory limit (it collects garbage first; the isolate lives on). */
export function isAllocationRefused(error: unknown): boolean {
  return error instanceof RangeError && /allocation failed/i.test(error.message);
}

/** The answer (JSON text) a tool gets for a payload its isolate has no room for (`usedBytes`: its heap then, if read). */
export function noRoomAnswer(bytes: number, usedBytes: number | undefined, limitBytes: number): string {
  const inUse = usedBytes === undefined ? "" : `, ${Math.round(usedBytes / MB)} MB of it in use`;
  const message = `the answer's ${bytes} bytes do not fit in this tool's memory (its limit is ${Math.round(limitBytes / MB)} MB${inUse}); nothing was copied in and nothing is charged to the tool: ask for less at once, or raise its memoryMb`;
  return JSON.stringify({ ok: false, code: "too_large", message });
}
