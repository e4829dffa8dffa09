/**
 * @module src/capabilities/fs-root
 * `ctx.fs` performed by the host, confined to the workspace root granted to
 * the source. A path is relative to the root; NUL bytes, absolute paths and
 * `..` segments are refused before anything is touched. The walk from the
 * root never follows a symbolic link (every component is opened with
 * O_NOFOLLOW, each relative to the directory opened before it through
 * /proc/self/fd, as openat would), so a link that leads out, or one swapped
 * in between a check and the open, meets ELOOP instead of the file outside.
 * Only regular files are read or written (no device, FIFO or socket), never
 * past `maxFileBytes`; a file with other hard links is never written.
 *
 * Linux only: elsewhere every operation fails with a message saying so.
 */
import { constants, existsSync } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, rm, type FileHandle } from "node:fs/promises";
import type { FsPolicy } from "./options.js";
import { CapabilityError, failed, refused, tooLarge } from "./capability-error.js";

export type FsRequest =
  | { op: "readFile"; path: string }
  | { op: "writeFile"; path: string; data: Uint8Array }
  | { op: "readdir"; path: string }
  | { op: "stat"; path: string }
  | { op: "mkdir"; path: string; recursive?: boolean }
  | { op: "rm"; path: string; recursive?: boolean; force?: boolean };

export type FileType = "file" | "directory" | "symlink" | "other";
export type FsStat = { type: FileType; size: number; mtimeMs: number; mode: number };
export type FsAnswer = Uint8Array | { name: string; type: FileType }[] | FsStat | null;

/** Test hook: runs between a check and the open it guards (a swap is made there). */
export type FsHooks = { afterCheck?: (path: string) => Promise<void> | void };

const PROC_FD = "/proc/self/fd";
const { O_RDONLY, O_WRONLY, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const MAX_PATH_CHARS = 4096;

/** The path's segments, or a refusal naming it. */
export function pathSegments(path: unknown): string[] {
  if (typeof path !== "string") throw refused("a path must be a string");
  const shown = JSON.stringify(path.slice(0, 200));
  if (path.length > MAX_PATH_CHARS) throw refused(`the path ${shown}… is longer than ${MAX_PATH_CHARS} characters`);
  if (path.includes("\0")) throw refused(`the path ${shown} contains a NUL byte`);
  if (path.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(path) || path.startsWith("\\")) {
    throw refused(`the absolute path ${shown} is refused: paths are relative to the workspace root`);
  }
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw refused(`the path ${shown} is refused: ".." may not leave the workspace root`);
  return segments;
}

function typeOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileType {
  return stats.isFile() ? "file" : stats.isDirectory() ? "directory" : stats.isSymbolicLink() ? "symlink" : "other";
}

function explain(error: unknown, path: string): CapabilityError {
  if (error instanceof CapabilityError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const shown = JSON.stringify(path);
  if (code === "ELOOP") return refused(`${shown} goes through a symbolic link, which ctx.fs never follows`);
  if (code === "ENOENT") return failed(`${shown}: no such file or directory`);
  if (code === "ENOTDIR") return failed(`${shown}: a component of the path is not a directory`);
  if (code === "EEXIST") return failed(`${shown} already exists`);
  if (code === "EISDIR") return failed(`${shown} is a directory`);
  if (code === "ENOTEMPTY") return failed(`${shown} is a directory that is not empty`);
  if (code === "EACCES" || code === "EPERM") return failed(`${shown}: permission denied`);
  return failed(`${shown}: ${(error as Error).message}`);
}

/**
 * Opens a directory without following a link. Linux answers ENOTDIR (not
 * ELOOP) for a link opened with O_DIRECTORY | O_NOFOLLOW, so a link is told
 * apart from a file here, to name the refusal right.
 */
async function openDirectoryNoFollow(path: string): Promise<FileHandle> {
  try {
    return await open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR" && (await lstat(path).catch(() => undefined))?.isSymbolicLink() === true) {
      throw Object.assign(new Error("symbolic link"), { code: "ELOOP" });
    }
    throw error;
  }
}

/** Opens each directory of `segments` from the root, never following a link; the caller closes it. */
async function openDirectory(root: string, segments: readonly string[], create = false): Promise<FileHandle> {
  let handle = await open(root, O_RDONLY | O_DIRECTORY);
  try {
    for (const segment of segments) {
      const next = `${PROC_FD}/${handle.fd}/${segment}`;
      if (create) await mkdir(next).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      const child = await openDirectoryNoFollow(next);
      await handle.close();
      handle = child;
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

export async function performFs(request: FsRequest, policy: FsPolicy, hooks: FsHooks = {}): Promise<FsAnswer> {
  if (process.platform !== "linux" || !existsSync(PROC_FD)) throw failed("ctx.fs needs Linux (/proc/self/fd); it is not available on this platform");
  const segments = pathSegments(request.path);
  let root: string;
  try {
    root = await realpath(policy.root);
  } catch {
    throw failed("the workspace root granted to this source does not exist");
  }
  const last = segments[segments.length - 1];
  try {
    if (request.op === "mkdir" && request.recursive === true) {
      await (await openDirectory(root, segments, true)).close();
      return null;
    }
    if (last === undefined) {
      // The root itself: only listing and stat make sense.
      if (request.op === "readdir") return await listDirectory(await openDirectory(root, []), policy);
      if (request.op === "stat") return statOf(await lstat(root));
      throw refused(`${request.op} of the workspace root itself is refused`);
    }
    const parent = await openDirectory(root, segments.slice(0, -1));
    try {
      const target = `${PROC_FD}/${parent.fd}/${last}`;
      switch (request.op) {
        case "readFile":
          return await readRegularFile(target, request.path, policy, hooks);
        case "writeFile":
          return await writeRegularFile(target, request.path, request.data, policy);
        case "readdir":
          return await listDirectory(await openDirectoryNoFollow(target), policy);
        case "stat":
          return statOf(await lstat(target));
        case "mkdir":
          await mkdir(target);
          return null;
        case "rm": {
          const stats = await lstat(target).catch((error: NodeJS.ErrnoException) => {
            if (error.code === "ENOENT" && request.force === true) return undefined;
            throw error;
          });
          if (stats === undefined) return null;
          if (stats.isDirectory() && request.recursive !== true) throw failed(`${JSON.stringify(request.path)} is a directory: pass { recursive: true }`);
          // rm never follows links inside what it removes (it lstats each entry).
          await rm(target, { recursive: request.recursive === true, force: request.force === true });
          return null;
        }
      }
    } finally {
      await parent.close();
    }
  } catch (error) {
    throw explain(error, request.path);
  }
}

function statOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; size: number; mtimeMs: number; mode: number }): FsStat {
  return { type: typeOf(stats), size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 };
}

async function listDirectory(handle: FileHandle, policy: FsPolicy): Promise<{ name: string; type: FileType }[]> {
  try {
    const entries = await readdir(`${PROC_FD}/${handle.fd}`, { withFileTypes: true });
    if (entries.length > policy.maxDirEntries) throw tooLarge(`the directory has ${entries.length} entries, more than the ${policy.maxDirEntries} allowed`);
    return entries.map((entry) => ({ name: entry.name, type: typeOf(entry) })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } finally {
    await handle.close();
  }
}

async function readRegularFile(target: string, path: string, policy: FsPolicy, hooks: FsHooks): Promise<Uint8Array> {
  const checked = await lstat(target);
  if (!checked.isFile()) throw refused(`${JSON.stringify(path)} is not a regular file (${typeOf(checked)}); only regular files are read`);
  if (checked.size > policy.maxFileBytes) throw tooLarge(`${JSON.stringify(path)} has ${checked.size} bytes, more than the ${policy.maxFileBytes} allowed`);
  await hooks.afterCheck?.(target);
  // O_NONBLOCK: a FIFO swapped in must not hang the open.
  const handle = await open(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.ino !== checked.ino || stats.dev !== checked.dev) throw refused(`${JSON.stringify(path)} changed while it was being opened; nothing was read`);
    const buffer = Buffer.alloc(Math.min(stats.size, policy.maxFileBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > policy.maxFileBytes) throw tooLarge(`${JSON.stringify(path)} grew past the ${policy.maxFileBytes} bytes allowed while it was read`);
      if (length === buffer.length) break;
    }
    return new Uint8Array(buffer.buffer, buffer.byteOffset, length);
  } finally {
    await handle.close();
  }
}

/** A file write past `capabilities.fs.maxFileBytes`. */
export function writeTooLarge(bytes: number, path: string, maxFileBytes: number): CapabilityError {
  return tooLarge(`writing ${bytes} bytes to ${JSON.stringify(path.slice(0, 500))} is more than the ${maxFileBytes} allowed`);
}

async function writeRegularFile(target: string, path: string, data: Uint8Array, policy: FsPolicy): Promise<null> {
  if (data.byteLength > policy.maxFileBytes) throw writeTooLarge(data.byteLength, path, policy.maxFileBytes);
  // No O_TRUNC: nothing is changed until the handle is known to be a plain file of ours.
  const handle = await open(target, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw refused(`${JSON.stringify(path)} is not a regular file; only regular files are written`);
    if (stats.nlink > 1) throw refused(`${JSON.stringify(path)} has other hard links, which may lead out of the workspace; it is not written`);
    await handle.truncate(0);
    await handle.write(data, 0, data.byteLength, 0);
    return null;
  } finally {
    await handle.close();
  }
}
