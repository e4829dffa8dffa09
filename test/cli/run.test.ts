import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers/host.js";
import { runCli, toolModule, writeTool, type CliRun } from "./cli-process.js";

describe("corral run", { timeout: 120_000 }, () => {
  const dir = tempDir("corral-cli-run-");
  const cacheDir = join(dir.path, "cache");
  const corral = (...args: string[]): Promise<CliRun> => runCli(args, { cwd: dir.path, cacheDir });

  before(() => {
    writeTool(dir.path, "greet.ts", toolModule({ name: "greet", input: "z.object({ name: z.string() })", run: "return `hello ${input.name}`;" }));
    writeTool(dir.path, "throws.ts", toolModule({ name: "throws", run: 'throw new Error("kaboom on purpose");' }));
    writeTool(dir.path, "syntax-error.ts", 'import { defineTool } from "corral";\n\nexport default defineTool({\n  name: "broken",\n  input: ,\n});\n');
    writeTool(dir.path, "reads-fs.ts", toolModule({ name: "reads_fs", top: 'import { readFileSync } from "node:fs";', run: 'return readFileSync("/etc/passwd", "utf8");' }));
    writeTool(dir.path, "spins.ts", toolModule({ name: "spins", run: "for (;;) {}" }));
    writeTool(
      dir.path,
      "two-tools.ts",
      `import { defineTool } from "corral";
import { z } from "zod";
export const first = defineTool({ name: "first_tool", description: "one", input: z.object({}), effects: [], run: () => "from first" });
export const second = defineTool({ name: "second_tool", description: "two", input: z.object({}), effects: [], run: () => "from second" });
`,
    );
  });
  after(() => dir.remove());

  it("prints a well-formed tool's output on stdout and exits 0", async () => {
    const run = await corral("run", "greet.ts", "--input", '{"name":"Ann"}');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "hello Ann\n");
    assert.equal(run.stderr, "");
  });

  it("prints the whole ToolResult with --json", async () => {
    const run = await corral("run", join(dir.path, "greet.ts"), "--input", '{"name":"Bo"}', "--json");
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(result.ok, true);
    assert.equal(result.tool, "greet");
    assert.equal(result.output, "hello Bo");
    assert.equal(result.source, "plugin:greet.ts");
    assert.equal(typeof (result.metrics as { wallMs: unknown }).wallMs, "number");
  });

  it("reports a tool that throws as a one-line tool_error and exits 1", async () => {
    const run = await corral("run", "throws.ts");
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^error tool_error: .*kaboom on purpose$/m);
  });

  it("lists the zod issues of an input that does not fit the schema", async () => {
    const run = await corral("run", "greet.ts", "--input", '{"name":42}');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error invalid_input: /m);
    assert.match(run.stderr, /^ {2}input\.name: .*expected string/m);
  });

  it("prints a syntax error with file:line:col and exits 1", async () => {
    const run = await corral("run", "syntax-error.ts");
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error compile_error: syntax-error\.ts:5:10: /m);
    assert.match(run.stderr, /^ {4}5 \| {3}input: ,$/m, "the offending source line is shown");
  });

  it("prints a failed load as the LoadResult with --json", async () => {
    const run = await corral("run", "syntax-error.ts", "--json");
    assert.equal(run.code, 1);
    const result = JSON.parse(run.stdout) as { ok: boolean; error: { kind: string; diagnostics: { line: number }[] } };
    assert.equal(result.ok, false);
    assert.equal(result.error.kind, "compile_error");
    assert.equal(result.error.diagnostics[0]?.line, 5);
  });

  it("refuses a tool that imports node:fs and exits 1", async () => {
    const run = await corral("run", "reads-fs.ts");
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error compile_error: reads-fs\.ts:\d+:\d+: .*node:fs/m);
    assert.doesNotMatch(run.stdout, /root:/, "the file was never read");
  });

  it("stops a looping tool at --timeout and reports outcome timeout", async () => {
    const run = await corral("run", "spins.ts", "--timeout", "300", "--json");
    assert.equal(run.code, 1);
    const result = JSON.parse(run.stdout) as { ok: boolean; error: { kind: string }; metrics: { wallMs: number } };
    assert.equal(result.ok, false);
    assert.equal(result.error.kind, "timeout");
    // The message names the limit that stopped it: --timeout reached the call
    // (the tool's own default is 5000 ms).
    assert.match((result.error as { message?: string }).message ?? "", /300 ms/);
  });

  it("asks for --tool when the module has several tools, and obeys it", async () => {
    const ambiguous = await corral("run", "two-tools.ts");
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /--tool/);
    assert.match(ambiguous.stderr, /first_tool, second_tool/);

    const picked = await corral("run", "two-tools.ts", "--tool", "second_tool");
    assert.equal(picked.code, 0, picked.stderr);
    assert.equal(picked.stdout, "from second\n");

    const wrong = await corral("run", "two-tools.ts", "--tool", "third_tool");
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /no tool named "third_tool"/);
  });

  it("treats invalid JSON input as a usage error (exit 2)", async () => {
    const run = await corral("run", "greet.ts", "--input", "{name: Ann}");
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /--input <json>.*not valid JSON/);
  });

  it("treats a --timeout or --memory that is not a number as a usage error", async () => {
    for (const flag of ["--timeout", "--memory"]) {
      const run = await corral("run", "spins.ts", flag, "soon");
      assert.equal(run.code, 2, `${flag}: ${run.stderr}`);
      assert.match(run.stderr, /positive number/);
    }
  });

  it("treats a name that is neither a file nor a bundled tool as a usage error", async () => {
    const notAName = await corral("run", "no/such/file.ts");
    assert.equal(notAName.code, 2);
    assert.match(notAName.stderr, /neither an existing file/);

    const unknown = await corral("run", "no_such_tool_anywhere");
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /"no_such_tool_anywhere" is neither an existing file or folder nor a bundled tool/);
  });
});
