/**
 * @module sandbox/worker/journal-writer
 * The worker's end of a fast lane's journal (sandbox/shared/lane-journal.ts):
 * each line goes to the kernel with one `writeSync`, so it is the host's to
 * read even if this process is killed the next moment. A part that grew
 * past JOURNAL_PART_BYTES is closed with a "next" line once the next part
 * exists, so the host never waits for a file that is not there.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { journalPartPath, type LaneLine } from "../shared/lane-journal.js";
import { JOURNAL_PART_BYTES } from "../shared/tuning.js";

/** Where a lane writes its lines: `write` throws when a line was not taken whole. */
export type JournalSink = { write(line: LaneLine): void; close(): void };

export class JournalWriter implements JournalSink {
  readonly #path: string;
  #fd: number;
  #part = 0;
  #bytes = 0;

  /** Opens the journal the host made (append only: the host truncates nothing). Throws if it cannot be opened. */
  constructor(path: string) {
    this.#path = path;
    this.#fd = openSync(path, "a", 0o600);
  }

  /** Writes one line; throws if the kernel did not take it whole (the caller must not act as if it were written). */
  write(line: LaneLine): void {
    this.#put(this.#fd, `${JSON.stringify(line)}\n`);
    if (this.#bytes >= JOURNAL_PART_BYTES) this.#nextPart();
  }

  close(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // Closed already.
    }
  }

  #put(fd: number, text: string): void {
    const bytes = Buffer.byteLength(text);
    // A regular file takes a write whole or fails (no space): a short write would leave half a line.
    const written = writeSync(fd, text);
    if (written !== bytes) throw new Error(`the lane journal took ${written} of ${bytes} bytes`);
    this.#bytes += bytes;
  }

  #nextPart(): void {
    const part = this.#part + 1;
    const next = openSync(journalPartPath(this.#path, part), "a", 0o600);
    try {
      this.#put(this.#fd, `${JSON.stringify({ corral: 1, type: "next", part })}\n`);
    } catch (error) {
      closeSync(next);
      throw error;
    }
    closeSync(this.#fd);
    this.#fd = next;
    this.#part = part;
    this.#bytes = 0;
  }
}

/** The journal at `path`, or, if it cannot be opened, one whose every write fails (the lane's calls then go to the host). */
export function openJournal(path: string | undefined): JournalSink {
  try {
    if (path === undefined) throw new Error("the host gave none");
    return new JournalWriter(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "unknown";
    return {
      write: () => {
        throw new Error(`the lane journal could not be opened (${reason})`);
      },
      close: () => undefined,
    };
  }
}
