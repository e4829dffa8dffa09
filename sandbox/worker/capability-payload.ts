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
 * made. A payload coming in is copied only if it fits beside what the
 * isolate holds (`fitsIn`): corral's copy must never be what takes an
 * isolate past its limit (a memory verdict, and a strike, the tool did not
 * earn); the tool hears `too_large` instead.
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

/** A payload is copied into an isolate only while its heap and the payload stay under this share of its limit. */
const ROOM_SHARE = 0.9;
const MB = 1024 * 1024;

/** What a payload adds to an isolate: its bytes (a string's UTF-16 units at two bytes, the most it takes). */
export const payloadBytes = (payload: ArrayBuffer | string): number => (typeof payload === "string" ? payload.length * 2 : payload.byteLength);

/** A payload this small is copied without a look (a heap reading costs about a call); the allocator's refusal still catches it. */
const SMALL_PAYLOAD_BYTES = 64 * 1024;

/** The refusal (JSON text) of a payload that cannot fit beside what the isolate holds (`readHeap`: its used and external bytes), or undefined. */
export function noRoomFor(payload: ArrayBuffer | string, readHeap: () => number, limitBytes: number): string | undefined {
  const bytes = payloadBytes(payload);
  if (bytes < SMALL_PAYLOAD_BYTES) return undefined;
  const used = readHeap();
  return used + bytes <= limitBytes * ROOM_SHARE ? undefined : noRoomAnswer(bytes, used, limitBytes);
}

/** The answer (JSON text) a tool gets for a payload its isolate has no room for (`usedBytes`: its heap then, if read). */
export function noRoomAnswer(bytes: number, usedBytes: number | undefined, limitBytes: number): string {
  const inUse = usedBytes === undefined ? "" : `, ${Math.round(usedBytes / MB)} MB of it in use`;
  const message = `the answer's ${bytes} bytes do not fit in this tool's memory (its limit is ${Math.round(limitBytes / MB)} MB${inUse}); nothing was copied in and nothing is charged to the tool: ask for less at once, or raise its memoryMb`;
  return JSON.stringify({ ok: false, code: "too_large", message });
}
