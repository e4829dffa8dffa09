/**
 * @module src/capabilities/perform
 * Performs one capability request that the broker has already admitted
 * (effect declared, grant present, gate passed): the host's fetch, ctx.fs
 * in the root, ctx.state in the store. Answers plain data for the guest,
 * the payload beside it (a body, a file's bytes, a state value's JSON text:
 * never inside the JSON) and the bytes it moved, for the audit. A request's
 * payload is measured against its cap from its length before it is decoded
 * (the worker sends only the size of one past the call's cap).
 */
import { base64Bytes, type CapabilityRequest, type WirePayload } from "../../sandbox/shared/capability-messages.js";
import { requestTooLarge, safeFetch, type FetchLimits } from "./safe-fetch.js";
import { performFs, writeTooLarge } from "./fs-root.js";
import type { CapabilityStore } from "./capability-store.js";
import type { SourceGrant } from "./options.js";
import { refused, tooLarge, CapabilityError } from "./capability-error.js";
import { CAPABILITY_DEFAULTS } from "./options.js";

export type Performed = { value: unknown; payload?: WirePayload; bytes: number };

/** A request's payload as the worker sent it: itself, or (past the call's cap) its size alone. */
export type Incoming = { payload?: WirePayload | undefined; payloadBytes?: number | undefined };

const toWire = (bytes: Uint8Array): WirePayload => ({ bytesBase64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") });

/** The size of a request's payload, from its length (nothing decoded). */
function sizeOf(incoming: Incoming): number {
  const { payload } = incoming;
  if (payload === undefined) return incoming.payloadBytes ?? 0;
  return "text" in payload ? Buffer.byteLength(payload.text) : base64Bytes(payload.bytesBase64);
}

/** The payload's bytes, once its size is within `cap` (else `tooLarge(size)` is thrown, before anything is decoded). */
function bytesWithin(incoming: Incoming, cap: number, tooLarge: (bytes: number) => Error): Uint8Array {
  const size = sizeOf(incoming);
  if (size > cap) throw tooLarge(size);
  const { payload } = incoming;
  if (payload === undefined) throw new CapabilityError("invalid", "the request's payload did not come with it");
  const buffer = "text" in payload ? Buffer.from(payload.text) : Buffer.from(payload.bytesBase64, "base64");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export async function perform(
  request: CapabilityRequest,
  grant: SourceGrant,
  context: { source: string; store: CapabilityStore; fetchLimits: FetchLimits; incoming: Incoming },
): Promise<Performed> {
  const { incoming } = context;
  switch (request.kind) {
    case "fetch": {
      const net = grant.net as NonNullable<SourceGrant["net"]>;
      const sent = request.body ? bytesWithin(incoming, net.maxRequestBytes, (bytes) => requestTooLarge(bytes, net.maxRequestBytes)) : null;
      const answer = await safeFetch({ url: request.url, method: request.method, headers: request.headers, body: sent, redirect: request.redirect }, net, context.fetchLimits);
      const { body, ...rest } = answer;
      return { value: rest, payload: toWire(body), bytes: body.byteLength + (sent?.byteLength ?? 0) };
    }
    case "fs": {
      const fs = grant.fs as NonNullable<SourceGrant["fs"]>;
      const base = { path: request.path };
      switch (request.op) {
        case "readFile": {
          const bytes = (await performFs({ op: "readFile", ...base }, fs)) as Uint8Array;
          return { value: {}, payload: toWire(bytes), bytes: bytes.byteLength };
        }
        case "writeFile": {
          const data = bytesWithin(incoming, fs.maxFileBytes, (bytes) => writeTooLarge(bytes, request.path, fs.maxFileBytes));
          await performFs({ op: "writeFile", ...base, data }, fs);
          return { value: null, bytes: data.byteLength };
        }
        case "readdir":
        case "stat":
          return { value: await performFs({ op: request.op, ...base }, fs), bytes: 0 };
        case "mkdir":
          return { value: await performFs({ op: "mkdir", ...base, recursive: request.recursive === true }, fs), bytes: 0 };
        case "rm":
          return { value: await performFs({ op: "rm", ...base, recursive: request.recursive === true, force: request.force === true }, fs), bytes: 0 };
      }
      break;
    }
    case "state": {
      const state = grant.state as NonNullable<SourceGrant["state"]>;
      const key = request.key ?? "";
      if (request.op !== "list" && (key.length === 0 || key.length > CAPABILITY_DEFAULTS.maxKeyChars)) {
        throw refused(`a state key must be 1 to ${CAPABILITY_DEFAULTS.maxKeyChars} characters`);
      }
      switch (request.op) {
        case "get": {
          const json = await context.store.stateGet(context.source, key);
          if (json === undefined || json === null) return { value: { found: false }, bytes: 0 };
          return { value: { found: true }, payload: { text: json }, bytes: json.length };
        }
        case "list":
          return { value: await context.store.stateList(context.source, request.prefix ?? "", state.maxKeys), bytes: 0 };
        case "delete":
          return { value: await context.store.stateDelete(context.source, key), bytes: 0 };
        case "set": {
          const size = sizeOf(incoming);
          if (incoming.payload === undefined || !("text" in incoming.payload)) {
            // Past the whole quota (the worker sent its size alone), or no value at all.
            if (size > 0) throw tooLarge(`setting "${key.slice(0, 100)}" to a value of ${size} bytes would bring ${context.source}'s state past its quota of ${state.quotaBytes} bytes`);
            throw new CapabilityError("invalid", "ctx.state.set came without its value");
          }
          const json = incoming.payload.text;
          try {
            JSON.parse(json);
          } catch {
            throw new CapabilityError("failed", "the state value is not JSON");
          }
          const written = await context.store.stateSet(context.source, key, json, state);
          if (!written.ok) {
            throw tooLarge(
              `setting "${key.slice(0, 100)}" would bring ${context.source}'s state to ${written.usage.keys} keys and ${written.usage.bytes} bytes, past its quota of ${state.maxKeys} keys and ${state.quotaBytes} bytes`,
            );
          }
          return { value: null, bytes: json.length };
        }
      }
    }
  }
  throw refused("an unknown capability request");
}
