import { describe, it } from "node:test";
import assert from "node:assert/strict";
import ts from "typescript";
import { z } from "zod";
import { trimSchema } from "../registry/json-schema.js";
import { codeModeDeclarations, toolAccess, type DeclaredTool } from "./declarations.js";

function schemaOf(schema: z.ZodType): Record<string, unknown> {
  return trimSchema(z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>);
}

const TOOLS: DeclaredTool[] = [
  {
    name: "add",
    description: "Adds two numbers.\nReturns their sum. A */ in a description must not end the comment.",
    inputSchema: schemaOf(z.object({ a: z.number().describe("the first */ number"), b: z.number() })),
    outputSchema: schemaOf(z.object({ sum: z.number() })),
  },
  {
    name: "csv-to-json",
    description: "Parses CSV text.",
    inputSchema: schemaOf(z.object({ csv: z.string(), delimiter: z.enum([",", ";", "\t"]).optional(), header: z.boolean().default(true) })),
    outputSchema: schemaOf(z.object({ rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))), count: z.number().int() })),
  },
  {
    name: "2fa_code",
    description: "A name that starts with a digit.",
    inputSchema: schemaOf(z.object({ kind: z.literal("totp"), when: z.tuple([z.number(), z.string()]).optional(), tags: z.array(z.string().or(z.number())).optional() })),
  },
  {
    name: "shapes",
    description: "Unions of objects, nullable and nested.",
    inputSchema: schemaOf(
      z.object({
        shape: z.discriminatedUnion("type", [z.object({ type: z.literal("circle"), r: z.number() }), z.object({ type: z.literal("square"), side: z.number() })]),
        note: z.string().nullable(),
        "odd key": z.object({ deep: z.object({ deeper: z.array(z.object({ x: z.number() })) }) }).optional(),
      }),
    ),
  },
];

/** Type-checks `body` against the declarations with the TypeScript compiler; answers its diagnostics. */
function typeCheck(declarations: string, body: string): string[] {
  const files: Record<string, string> = { "decl.d.ts": declarations, "script.ts": `export async function script() {\n${body}\n}` };
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ["lib.es2022.d.ts"], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (name) => files[name] ?? read(name);
  host.fileExists = (name) => name in files || exists(name);
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language) => (name in files ? ts.createSourceFile(name, files[name] as string, language) : getSource(name, language));
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("Code Mode declarations", { timeout: 120_000 }, () => {
  const { text, declared, omitted } = codeModeDeclarations(TOOLS, 100_000);

  it("declares every tool as tools.<name>(input): Promise<Output>, with JSDoc, and the text type-checks", () => {
    assert.deepEqual(declared, TOOLS.map((tool) => tool.name));
    assert.deepEqual(omitted, []);
    assert.match(text, /\badd\(input: \{/);
    assert.match(text, /"csv-to-json"\(input: /);
    assert.match(text, /"2fa_code"\(input: /);
    assert.match(text, /\/\*\* Adds two numbers\. Returns their sum\./);
    assert.match(text, /\/\*\* the first \*\\\/ number \*\//);
    const body = [
      "const r = await tools.add({ a: 1, b: 2 });",
      "const sum: number = r.sum;",
      "const parsed = await tools[\"csv-to-json\"]({ csv: 'a,b', delimiter: ';' });",
      "const count: number = parsed.count;",
      "const first = parsed.rows[0]?.a;",
      "const code: unknown = await tools[\"2fa_code\"]({ kind: 'totp', when: [1, 'x'], tags: ['a', 2] });",
      "await tools.shapes({ shape: { type: 'circle', r: 1 }, note: null, 'odd key': { deep: { deeper: [{ x: 1 }] } } });",
      "const found = await search('csv');",
      "const name: string | undefined = found[0]?.name;",
      "const described = await describe('add');",
      "const declaration: string | undefined = described?.declaration;",
      "return { sum, count, first, code, name, declaration };",
    ].join("\n");
    assert.deepEqual(typeCheck(text, body), []);
  });

  it("is checked for real: a wrong input or a misused output does not type-check", () => {
    assert.ok(typeCheck(text, "await tools.add({ a: 'one', b: 2 });").length > 0);
    assert.ok(typeCheck(text, "const s: string = (await tools.add({ a: 1, b: 2 })).sum;").length > 0);
    assert.ok(typeCheck(text, "await tools.shapes({ shape: { type: 'triangle' }, note: null });").length > 0);
    assert.ok(typeCheck(text, "await tools.nope({});").length > 0);
  });

  it("stays within its budget: the tools that do not fit are named, and the text still type-checks", () => {
    const many: DeclaredTool[] = Array.from({ length: 200 }, (_, i) => ({ ...(TOOLS[i % TOOLS.length] as DeclaredTool), name: `tool_${i}` }));
    const small = codeModeDeclarations(many, 3_000);
    assert.ok(small.text.length <= 3_000, `${small.text.length} characters`);
    assert.ok(small.declared.length > 0 && small.omitted.length > 0);
    assert.equal(small.declared.length + small.omitted.length, 200);
    assert.match(small.text, new RegExp(`// ${small.omitted.length} more tools are callable but not declared here`));
    assert.match(small.text, /search\(query\) finds them/);
    assert.deepEqual(typeCheck(small.text, "await tools.tool_0({ a: 1, b: 2 });"), []);
  });

  it("writes a name that is not an identifier as a quoted key", () => {
    assert.equal(toolAccess("add"), "tools.add");
    assert.equal(toolAccess("csv-to-json"), 'tools["csv-to-json"]');
    assert.equal(toolAccess("2fa_code"), 'tools["2fa_code"]');
  });
});
