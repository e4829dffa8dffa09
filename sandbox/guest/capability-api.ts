/**
 * @module sandbox/guest/capability-api
 * `ctx.fs` (named after node:fs/promises) and `ctx.state` for tools, over the
 * capability relay. Paths are relative to the workspace root the host
 * granted; state values are JSON. What each needs (effects, grants) is
 * checked by the host, which answers a refusal naming it.
 */
import type { CapabilityClient } from "./capability-client.js";
import { base64ToBytes, bytesToBase64 } from "./web/bytes.js";
import { encodeUtf8, TextDecoder } from "./web/text-codec.js";
import { atob, btoa } from "./web/base64.js";

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
    if (encoding === "base64") return base64ToBytes(data.replace(/[^A-Za-z0-9+/=]/g, ""));
    if (encoding === "latin1" || encoding === "binary") return base64ToBytes(btoa(data.replace(/[^\x00-\xff]/g, "?")));
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
      const value = (await client.request({ kind: "fs", op: "readFile", path: String(path) })) as { bytesBase64: string };
      if (encoding === "base64") return value.bytesBase64;
      if (encoding === "latin1" || encoding === "binary") return atob(value.bytesBase64);
      const bytes = base64ToBytes(value.bytesBase64);
      return encoding === undefined ? bytes : new TextDecoder().decode(bytes);
    },
    async writeFile(path: string, data: unknown, options?: unknown): Promise<void> {
      const bytes = dataBytes(data, encodingOf(options));
      await client.request({ kind: "fs", op: "writeFile", path: String(path), dataBase64: bytesToBase64(bytes) });
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
      const value = (await client.request({ kind: "state", op: "get", key: String(key) })) as { json: string | null };
      return value.json === null ? undefined : JSON.parse(value.json);
    },
    async list(prefix = ""): Promise<string[]> {
      return (await client.request({ kind: "state", op: "list", prefix: String(prefix) })) as string[];
    },
    async set(key: string, value: unknown): Promise<void> {
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError("ctx.state.set takes a JSON value (not undefined, a function or a symbol)");
      await client.request({ kind: "state", op: "set", key: String(key), valueJson: json });
    },
    async delete(key: string): Promise<boolean> {
      return (await client.request({ kind: "state", op: "delete", key: String(key) })) as boolean;
    },
  });
  return { fs, state };
}
