/**
 * @module src/capabilities/perform
 * Performs one capability request that the broker has already admitted
 * (effect declared, grant present, gate passed): the host's fetch, ctx.fs
 * in the root, ctx.state in the store. Answers plain data for the guest
 * and the bytes it moved, for the audit.
 */
import type { CapabilityRequest } from "../../sandbox/shared/capability-messages.js";
import { safeFetch, type FetchLimits } from "./safe-fetch.js";
import { performFs } from "./fs-root.js";
import type { CapabilityStore } from "./capability-store.js";
import type { SourceGrant } from "./options.js";
import { refused, tooLarge, CapabilityError } from "./capability-error.js";
import { CAPABILITY_DEFAULTS } from "./options.js";

export type Performed = { value: unknown; bytes: number };

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
const fromBase64 = (text: string | null | undefined) => (text === null || text === undefined ? null : new Uint8Array(Buffer.from(text, "base64")));

export async function perform(
  request: CapabilityRequest,
  grant: SourceGrant,
  context: { source: string; store: CapabilityStore; fetchLimits: FetchLimits },
): Promise<Performed> {
  switch (request.kind) {
    case "fetch": {
      const net = grant.net as NonNullable<SourceGrant["net"]>;
      const answer = await safeFetch(
        { url: request.url, method: request.method, headers: request.headers, body: fromBase64(request.bodyBase64), redirect: request.redirect },
        net,
        context.fetchLimits,
      );
      const { body, ...rest } = answer;
      return { value: { ...rest, bodyBase64: toBase64(body) }, bytes: body.byteLength + (request.bodyBase64 === null ? 0 : Math.floor((request.bodyBase64.length * 3) / 4)) };
    }
    case "fs": {
      const fs = grant.fs as NonNullable<SourceGrant["fs"]>;
      const base = { path: request.path };
      switch (request.op) {
        case "readFile": {
          const bytes = (await performFs({ op: "readFile", ...base }, fs)) as Uint8Array;
          return { value: { bytesBase64: toBase64(bytes) }, bytes: bytes.byteLength };
        }
        case "writeFile": {
          const data = fromBase64(request.dataBase64 ?? "") as Uint8Array;
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
          return { value: { json: json ?? null }, bytes: json?.length ?? 0 };
        }
        case "list":
          return { value: await context.store.stateList(context.source, request.prefix ?? "", state.maxKeys), bytes: 0 };
        case "delete":
          return { value: await context.store.stateDelete(context.source, key), bytes: 0 };
        case "set": {
          const json = request.valueJson ?? "null";
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
