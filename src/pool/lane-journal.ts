/**
 * @module src/pool/lane-journal
 * The host's end of a fast lane's journal (sandbox/shared/lane-journal.ts):
 * the file a script's worker writes its lane calls to, made here before the
 * script is sent and removed once it is answered or its worker ended. A
 * read takes every whole line written so far (a line is written with one
 * write, so a worker killed mid-script leaves whole lines only), follows
 * the journal into its next part and removes the part it finished.
 *
 * The files live in one directory per pool, in /dev/shm where it exists
 * (memory, not disk), readable by this user only, removed with the pool.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JournalLine, journalPartPath, type LaneLine } from "../../sandbox/shared/lane-journal.js";

/** A journal that is not the worker's own format: the worker is broken (or not ours). */
export class JournalError extends Error {
  override readonly name = "JournalError";
}

const NEWLINE = 0x0a;
const CHUNK_BYTES = 64 * 1024;
/** One read buffer for every journal: reads are synchronous, so no two use it at once. */
const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
/** A line longer than this is not one the worker writes (a record's envelope is capped far below). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LaneJournal {
  readonly path: string;
  #fd: number | undefined;
  #part = 0;
  #offset = 0;
  /** The start of a line not yet ended (the worker may be writing it). */
  #partial: Buffer = Buffer.alloc(0);

  constructor(path: string) {
    this.path = path;
    // Made (or emptied) here, before the worker hears of it: the worker only appends.
    this.#fd = openSync(path, "w+", 0o600);
  }

  /** Every whole line written since the last read, in order. Throws JournalError for a line that is not the journal's. */
  read(): LaneLine[] {
    const lines: LaneLine[] = [];
    while (this.#fd !== undefined) {
      const got = readSync(this.#fd, chunk, 0, CHUNK_BYTES, this.#offset);
      if (got === 0) break;
      this.#offset += got;
      const next = this.#take(chunk.subarray(0, got), lines);
      if (next !== undefined) this.#openPart(next);
    }
    return lines;
  }

  /** Closes the journal and removes its files. */
  close(): void {
    try {
      if (this.#fd !== undefined) closeSync(this.#fd);
    } catch {
      // Closed already: the files go all the same.
    }
    this.#fd = undefined;
    // The part being read, and the next one, should the worker have made it before it ended.
    for (const part of [this.#part, this.#part + 1]) removeQuietly(journalPartPath(this.path, part));
  }

  /** Parses the whole lines in `bytes` (after what was left of the last read); answers the next part's number if a line said so. */
  #take(bytes: Buffer, lines: LaneLine[]): number | undefined {
    let text = this.#partial.length > 0 ? Buffer.concat([this.#partial, bytes]) : bytes;
    let end = text.indexOf(NEWLINE);
    while (end >= 0) {
      const line = parseLine(text.subarray(0, end));
      text = text.subarray(end + 1);
      if (line.type === "next") {
        if (text.length > 0 || line.part !== this.#part + 1) throw new JournalError(`the lane journal went on to part ${line.part} out of turn`);
        this.#partial = Buffer.alloc(0);
        return line.part;
      }
      lines.push(line);
      end = text.indexOf(NEWLINE);
    }
    if (text.length > MAX_LINE_BYTES) throw new JournalError(`the lane journal has a line over ${MAX_LINE_BYTES} bytes`);
    // Copied: `bytes` is the reused read buffer.
    this.#partial = Buffer.from(text);
    return undefined;
  }

  #openPart(part: number): void {
    const path = journalPartPath(this.path, part);
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    removeQuietly(journalPartPath(this.path, this.#part));
    try {
      this.#fd = openSync(path, "r");
    } catch (error) {
      throw new JournalError(`the lane journal's part ${part} is missing (${error instanceof Error ? error.message : "unknown"})`);
    }
    this.#part = part;
    this.#offset = 0;
  }
}

/** One pool's journals: the directory is made with the first and removed with the pool. */
export class LaneJournals {
  #dir: string | undefined;
  #next = 0;

  /** A new journal for a script about to be sent. Throws if no file can be made (the script then runs without its lane). */
  open(): LaneJournal {
    this.#dir ??= makeDir();
    return new LaneJournal(join(this.#dir, `${process.pid}-${this.#next++}.jsonl`));
  }

  close(): void {
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }
}

/** In memory (/dev/shm) where this user may write there, else in the temporary directory. */
function makeDir(): string {
  if (existsSync("/dev/shm")) {
    try {
      return mkdtempSync(join("/dev/shm", "corral-lanes-"));
    } catch {
      // Not writable here: the temporary directory does (its pages are cached all the same).
    }
  }
  return mkdtempSync(join(tmpdir(), "corral-lanes-"));
}

function parseLine(bytes: Buffer): JournalLine {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new JournalError("the lane journal has a line that is not JSON");
  }
  const parsed = JournalLine.safeParse(value);
  if (!parsed.success) throw new JournalError("the lane journal has a line that is not the lane's");
  return parsed.data;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or never made.
  }
}
