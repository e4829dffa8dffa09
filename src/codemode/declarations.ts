/**
 * @module src/codemode/declarations
 * The TypeScript a Code Mode script is written against: `tools.<name>(input)`
 * for every tool the script may call (exposure `direct` and `codemode`, and
 * deferred ones its caller activated), generated from their JSON Schemas,
 * with JSDoc from their descriptions, and `search` / `describe` for the rest.
 * The same text is `run_code`'s description and `host.codeModeDeclarations()`.
 *
 * It must stay short enough for a model's context: past `maxChars`, tools
 * are declared in catalog order while they fit; the others are named in one
 * comment line (as many names as fit), and `describe(name)` gives any one's
 * declaration from inside the script, without prompt tokens.
 */
import { docText, propertyKey, schemaToType } from "./schema-to-ts.js";

export type DeclaredTool = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
};

export type CodeModeDeclarations = {
  text: string;
  /** Tools with a full declaration in `text`. */
  declared: string[];
  /** Tools left out for length (callable all the same; `describe` declares them). */
  omitted: string[];
};

/** A tool's description in its JSDoc is cut past this many characters. */
const MAX_TOOL_DOC_CHARS = 400;
/** Room kept for the comment line that names the tools left out. */
const OMITTED_LINE_RESERVE = 200;
/** The longest ending of that line: ", and N more (search(query) finds them)." */
const OMITTED_TAIL_CHARS = 50;

const HEADER = [
  "/** The tools this script may call. Each call is a full corral call of the tool (its limits, the ledger).",
  " * It resolves with the tool's structured result (or its text when it has none); an error outcome rejects",
  " * with an Error whose `kind` is the outcome kind (tool_error, invalid_input, timeout, blocked, ...). */",
  "declare const tools: {",
].join("\n");

const FOOTER = [
  "};",
  "/** Finds tools not declared above (deferred ones, or ones left out for length) by keywords in their names and descriptions; the ones found are added to `tools`. */",
  "declare function search(query: string): Promise<{ name: string; description: string }[]>;",
  "/** One tool's declaration by name (null if there is none this script may call); a deferred tool found this way is added to `tools`. */",
  "declare function describe(name: string): Promise<{ name: string; description: string; declaration: string; inputSchema: unknown; outputSchema?: unknown } | null>;",
].join("\n");

/** One tool as a member of `tools`: JSDoc, then `name(input: Input): Promise<Output>;`. */
export function toolMember(tool: DeclaredTool, indent = 1): string {
  const pad = "  ".repeat(indent);
  const input = schemaToType(tool.inputSchema, indent);
  const output = tool.outputSchema === undefined ? "unknown" : schemaToType(tool.outputSchema, indent);
  return `${pad}/** ${docText(tool.description, MAX_TOOL_DOC_CHARS)} */\n${pad}${propertyKey(tool.name)}(input: ${input}): Promise<${output}>;`;
}

/** `tool` as it is called: `tools.name` or `tools["my-tool"]`, for messages and `describe`. */
export function toolAccess(name: string): string {
  const key = propertyKey(name);
  return key === name ? `tools.${name}` : `tools[${key}]`;
}

/** The declarations of `tools`, within `maxChars` (see the module comment). */
export function codeModeDeclarations(tools: readonly DeclaredTool[], maxChars: number): CodeModeDeclarations {
  const fixed = HEADER.length + FOOTER.length + 2;
  const members: string[] = [];
  const declared: string[] = [];
  const omitted: string[] = [];
  let used = fixed;
  for (const tool of tools) {
    const member = toolMember(tool);
    // Room is kept for the line that names what was left out.
    if (omitted.length === 0 && used + member.length + 1 <= maxChars - (tools.length > declared.length + 1 ? OMITTED_LINE_RESERVE : 0)) {
      members.push(member);
      declared.push(tool.name);
      used += member.length + 1;
    } else {
      omitted.push(tool.name);
    }
  }
  const lines = [HEADER, ...members, FOOTER];
  if (omitted.length > 0) lines.push(omittedLine(omitted, maxChars - used - 1));
  return { text: lines.join("\n"), declared, omitted };
}

/** `// N more tools ...: a, b, c` naming as many as fit in `room` characters. */
function omittedLine(omitted: readonly string[], room: number): string {
  const head = `// ${omitted.length} more tool${omitted.length === 1 ? " is" : "s are"} callable but not declared here (for length); describe(name) declares one`;
  const names: string[] = [];
  let length = head.length + 2 + OMITTED_TAIL_CHARS;
  for (const name of omitted) {
    if (length + name.length + 2 > room) break;
    names.push(name);
    length += name.length + 2;
  }
  if (names.length === 0) return `${head}; search(query) finds them.`;
  const rest = omitted.length - names.length;
  return `${head}: ${names.join(", ")}${rest > 0 ? `, and ${rest} more (search(query) finds them)` : ""}.`;
}
