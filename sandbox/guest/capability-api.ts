/**
 * @module sandbox/guest/capability-api
 * `ctx.fs` (named after node:fs/promises) and `ctx.state` for tools, over the
 * capability relay. Paths are relative to the workspace root the host
 * granted; state values are JSON. What each needs (effects, grants) is
 * checked by the host, which answers a refusal naming it. A file's bytes
 * and a state value's JSON text travel as the request's payload, beside its
 * JSON (capability-client.ts): each crosses the isolate's boundary once, and
 * an encoding is applied here in one pass (a payload of N bytes costs the
 * isolate its bytes and what the tool asked them made into, no more).
 */
import type { CapabilityClient } from "./capability-client.js";
import { base64ToBytes, bytesToBase64 } from "./web/bytes.js";
import { encodeUtf8, TextDecoder } from "./web/text-codec.js";
import { bytesToLatin1, latin1ToBytes } from "./web/base64.js";

type Entry = { name: string; type: "file" | "directory" | "symlink" | "other" };
type Stat = { type: Entry["type"]; size: number; mtimeMs: number; mode: number };

function encodingOf(options: unknown): string | undefined {
  const encoding = typeof options === "string" ? options : (options as { encoding?: unknown } | null | undefined)?.encoding;
  if (encoding === undefined || encoding === null) return undefined;
  const name = String(encoding).toLowerCase();
  if (name === "utf8" || name === "utf-8" || name === "base64" || name === "latin1" || name === "binary") return name;
  throw new TypeError(`The encoding "${String(encoding)}" is not supported by ctx.fs: use utf8, base64 or latin1, or none for bytes`);
}

function dataBytes(data: unknown, encoding: string | undefined): Uint8Array {
  if (typeof data === "string") {
    if (encoding === "base64") return base64ToBytes(data);
    if (encoding === "latin1" || encoding === "binary") return latin1ToBytes(data);
    return encodeUtf8(data);
  }
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError("writeFile takes a string, an ArrayBuffer or a typed array");
}

function dirent(entry: Entry) {
  return {
    name: entry.name,
    isFile: () => entry.type === "file",
    isDirectory: () => entry.type === "directory",
    isSymbolicLink: () => entry.type === "symlink",
  };
}

export function createCapabilityApi(client: CapabilityClient) {
  const fs = Object.freeze({
    async readFile(path: string, options?: unknown): Promise<string | Uint8Array> {
      const encoding = encodingOf(options);
      const { payload } = await client.exchange({ kind: "fs", op: "readFile", path: String(path) });
      const bytes = payload instanceof ArrayBuffer ? new Uint8Array(payload) : new Uint8Array(0);
      if (encoding === "base64") return bytesToBase64(bytes);
      if (encoding === "latin1" || encoding === "binary") return bytesToLatin1(bytes);
      return encoding === undefined ? bytes : new TextDecoder().decode(bytes);
    },
    async writeFile(path: string, data: unknown, options?: unknown): Promise<void> {
      await client.exchange({ kind: "fs", op: "writeFile", path: String(path) }, dataBytes(data, encodingOf(options)));
    },
    async readdir(path: string, options?: { withFileTypes?: boolean }): Promise<unknown[]> {
      const entries = (await client.request({ kind: "fs", op: "readdir", path: String(path) })) as Entry[];
      return options?.withFileTypes === true ? entries.map(dirent) : entries.map((entry) => entry.name);
    },
    async stat(path: string) {
      const stat = (await client.request({ kind: "fs", op: "stat", path: String(path) })) as Stat;
      return { ...dirent({ name: String(path), type: stat.type }), size: stat.size, mtimeMs: stat.mtimeMs, mtime: new Date(stat.mtimeMs), mode: stat.mode };
    },
    async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
      await client.request({ kind: "fs", op: "mkdir", path: String(path), recursive: options?.recursive === true });
    },
    async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
      await client.request({ kind: "fs", op: "rm", path: String(path), recursive: options?.recursive === true, force: options?.force === true });
    },
  });
  const state = Object.freeze({
    async get(key: string): Promise<unknown> {
      const { payload } = await client.exchange({ kind: "state", op: "get", key: String(key) });
      return typeof payload === "string" ? JSON.parse(payload) : undefined;
    },
    async list(prefix = ""): Promise<string[]> {
      return (await client.request({ kind: "state", op: "list", prefix: String(prefix) })) as string[];
    },
    async set(key: string, value: unknown): Promise<void> {
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError("ctx.state.set takes a JSON value (not undefined, a function or a symbol)");
      await client.exchange({ kind: "state", op: "set", key: String(key) }, json);
    },
    async delete(key: string): Promise<boolean> {
      return (await client.request({ kind: "state", op: "delete", key: String(key) })) as boolean;
    },
  });
  return { fs, state };
}
