/**
 * @module src/pool/fast-status-file
 * The host's end of a session's fast lane status file (layout in
 * sandbox/shared/fast-status.ts): made once per worker session, in memory
 * (/dev/shm) where the machine has it, readable and writable by this user
 * only, read on the host's clock while a script with a fast lane runs, and
 * removed when the session ends. The worker opens it by the path the
 * script's task names.
 */
import { randomUUID } from "node:crypto";
import { closeSync, existsSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { decodeFastStatus, FAST_STATUS_BYTES, type FastStatus } from "../../sandbox/shared/fast-status.js";

const IN_MEMORY_DIR = "/dev/shm";

export class FastStatusFile {
  readonly path: string;
  readonly #fd: number;
  readonly #buffer = new Float64Array(FAST_STATUS_BYTES / 8);
  #closed = false;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /** A new status file, or undefined if none can be made (the script's calls then all go through the host). */
  static create(logger: Logger): FastStatusFile | undefined {
    const dir = existsSync(IN_MEMORY_DIR) ? IN_MEMORY_DIR : tmpdir();
    const path = join(dir, `corral-fast-${process.pid}-${randomUUID()}`);
    try {
      writeFileSync(path, new Uint8Array(FAST_STATUS_BYTES), { mode: 0o600, flag: "wx" });
      return new FastStatusFile(path, openSync(path, "r"));
    } catch (error) {
      logger.warn({ err: error, path }, "no status file for Code Mode's fast lane: scripts' tool calls go through the host");
      return undefined;
    }
  }

  /** What the worker wrote last; undefined if the read raced its write (or nothing was written yet). */
  read(): FastStatus | undefined {
    if (this.#closed) return undefined;
    try {
      readSync(this.#fd, this.#buffer, 0, FAST_STATUS_BYTES, 0);
    } catch {
      return undefined;
    }
    return decodeFastStatus(this.#buffer);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
    rmSync(this.path, { force: true });
  }
}
