/**
 * @module plugins/file-search/search
 * Matching lines of text: a literal query (case-insensitive unless asked)
 * or a regular expression; each match reports its line number and the line,
 * cut to a readable width around the match.
 */
export type LineMatcher = (line: string) => number;

const LINE_WIDTH = 240;

export function createMatcher(query: string, options: { regex: boolean; caseSensitive: boolean }): LineMatcher {
  if (options.regex) {
    const pattern = new RegExp(query, options.caseSensitive ? "u" : "iu");
    return (line) => line.search(pattern);
  }
  const needle = options.caseSensitive ? query : query.toLowerCase();
  return (line) => (options.caseSensitive ? line : line.toLowerCase()).indexOf(needle);
}

/** The line around position `at`, at most LINE_WIDTH characters. */
export function excerpt(line: string, at: number): string {
  if (line.length <= LINE_WIDTH) return line;
  const start = Math.max(0, Math.min(at - LINE_WIDTH / 4, line.length - LINE_WIDTH));
  return `${start > 0 ? "…" : ""}${line.slice(start, start + LINE_WIDTH)}${start + LINE_WIDTH < line.length ? "…" : ""}`;
}

/** Text that is probably binary: a NUL in its first 8 KB. */
export function looksBinary(text: string): boolean {
  return text.slice(0, 8192).includes("\u0000");
}
