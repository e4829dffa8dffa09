/**
 * @module src/compile/write-atomically
 * Writes a file of the cache folder so that a reader sees the old file or the
 * new one, never half of either: the text goes to a temporary file beside it,
 * which a rename then puts in place (one step on POSIX file systems).
 */
import { renameSync, writeFileSync } from "node:fs";

export function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
