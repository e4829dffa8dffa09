/**
 * @module src/config/locate
 * From a key path to where it is written in the file: the line and column
 * of a value, or of a key (for a key that should not be there), found in
 * jsonc-parser's syntax tree. A path the file does not hold (a missing
 * required key) is shown at the nearest object that holds its parent.
 */
import { findNodeAtLocation, type Node, type ParseError, printParseErrorCode } from "jsonc-parser";

export type KeyPath = readonly (string | number)[];

/** One thing wrong with the file, where it is, and what was expected. */
export type ConfigIssue = { path: KeyPath; message: string; line: number; column: number };

/** 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Where `path` is written: its value, or with `key`, the key itself (a property name under `path`). */
export function offsetOf(root: Node | undefined, path: KeyPath, key?: string): number {
  if (root === undefined) return 0;
  for (let depth = path.length; depth >= 0; depth--) {
    const node = findNodeAtLocation(root, [...path.slice(0, depth)]);
    if (node === undefined) continue;
    if (key !== undefined && depth === path.length && node.type === "object") {
      const property = node.children?.find((child) => child.children?.[0]?.value === key);
      if (property !== undefined) return property.offset;
    }
    return node.offset;
  }
  return root.offset;
}

export function issueAt(text: string, root: Node | undefined, path: KeyPath, message: string, key?: string): ConfigIssue {
  return { path: key === undefined ? path : [...path, key], message, ...lineColumn(text, offsetOf(root, path, key)) };
}

export function syntaxIssue(text: string, error: ParseError): ConfigIssue {
  return { path: [], message: `the file is not JSON with comments: ${syntaxWords(error)}`, ...lineColumn(text, error.offset) };
}

const SYNTAX_WORDS: Record<string, string> = {
  InvalidSymbol: "a character JSON does not allow here",
  InvalidNumberFormat: "a malformed number",
  PropertyNameExpected: 'a key in double quotes expected ("key": value)',
  ValueExpected: "a value expected",
  ColonExpected: "a colon expected after the key",
  CommaExpected: "a comma expected between entries",
  CloseBraceExpected: "a closing } expected",
  CloseBracketExpected: "a closing ] expected",
  EndOfFileExpected: "nothing may follow the top-level object",
  UnexpectedEndOfComment: "a comment that never ends (*/ missing)",
  UnexpectedEndOfString: "a string that never ends (\" missing)",
  InvalidEscapeCharacter: "an escape JSON does not know",
  InvalidCharacter: "a control character inside a string",
};

function syntaxWords(error: ParseError): string {
  const name = printParseErrorCode(error.error);
  return SYNTAX_WORDS[name] ?? name;
}

/** A key written twice in one object: JSON takes the last silently, which hides a mistake. */
export function duplicateKeyIssues(text: string, node: Node | undefined, path: (string | number)[] = []): ConfigIssue[] {
  if (node === undefined) return [];
  const issues: ConfigIssue[] = [];
  if (node.type === "object") {
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const [keyNode, valueNode] = property.children ?? [];
      const key = String(keyNode?.value);
      if (seen.has(key)) issues.push({ path: [...path, key], message: "this key is written twice in one object; keep one", ...lineColumn(text, property.offset) });
      seen.add(key);
      issues.push(...duplicateKeyIssues(text, valueNode, [...path, key]));
    }
  } else if (node.type === "array") {
    (node.children ?? []).forEach((child, index) => issues.push(...duplicateKeyIssues(text, child, [...path, index])));
  }
  return issues;
}
