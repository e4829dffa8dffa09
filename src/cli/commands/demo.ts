/**
 * @module src/cli/commands/demo
 * `corral demo` (what `npm start` runs): one host, the bundled plugins, and
 * two tools an agent might write, one that never returns and one that eats
 * memory without end, and a Code Mode script that calls two plugins. Each
 * runaway runs into its limit; the host answers the next
 * call as if nothing happened. Goes through createHost only, like any user.
 *
 * The plugins are not the demo's to guarantee: a plugin that is missing or
 * fails to load is reported on its line and the demo carries on.
 */
import { existsSync } from "node:fs";
import type { Host, LoadResult, ToolResult } from "../../index.js";
import { EXIT, withCliHost, type CliContext, type ExitCode } from "../context.js";
import { firstLine, formatMs, shorten } from "../format.js";
import { BUNDLED_PLUGINS_DIR } from "../plugins-dir.js";
import { WorkerCensus } from "../worker-census.js";
import { startDemoSite, type DemoSite } from "../demo-site.js";

/** Two workers: a call that a watchdog kills takes one down while the other keeps serving. */
const DEMO_WORKERS = 2;
const SHOWN_OUTPUT_CHARS = 72;

type DemoCall = { tool: string; input: Record<string, unknown> };

/** The bundled plugins' contracts, one sensible input each. */
const PLUGIN_CALLS: readonly DemoCall[] = [
  { tool: "text_stats", input: { text: "corral runs tools nobody trusts.\nEach call gets its own time and memory limits." } },
  { tool: "unit_convert", input: { value: 10, from: "km", to: "mi" } },
  { tool: "csv_to_json", input: { csv: "a,b\n1,2" } },
  { tool: "json_query", input: { json: '{"a":[1,2,3]}', path: "$.a[*]" } },
];

type AgentTool = { source: string; tool: string; about: string; code: string };

function agentTool(tool: string, description: string, limits: string, run: string): string {
  return `import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "${tool}",
  description: "${description}",
  input: z.object({}),
  effects: [],
  limits: ${limits},
  run() {
${run}
  },
});
`;
}

/** What an agent in a hurry writes: correct-looking code with no way out. */
const RUNAWAY_TOOLS: readonly AgentTool[] = [
  {
    source: "agent:demo-loop",
    tool: "spin_forever",
    about: "a loop with no exit, limit 1000 ms",
    code: agentTool("spin_forever", "Polls until a condition that never comes.", "{ timeoutMs: 1000 }", "    for (;;) {}"),
  },
  {
    source: "agent:demo-hog",
    tool: "hoard_memory",
    about: "allocation without end, limit 32 MB",
    code: agentTool(
      "hoard_memory",
      "Caches every row it ever sees.",
      "{ memoryMb: 32 }",
      "    const kept = [];\n    for (;;) kept.push(new Array(100_000).fill(kept.length));",
    ),
  },
];

/** Code Mode: one script that calls two plugins and hands back only what is needed. */
const SCRIPT = `const stats = await tools.text_stats({ text: "Code Mode runs a script. The script calls tools." });
const far = await tools.unit_convert({ value: stats.words, from: "km", to: "mi" });
return { words: stats.words, miles: Math.round(far.value * 100) / 100 };`;

/** Only for the liveness check, when no plugin loaded at all. */
const ECHO_TOOL: AgentTool = {
  source: "agent:demo-echo",
  tool: "echo",
  about: "a well-behaved tool, as no plugin loaded",
  code: agentTool("echo", "Says that the host still answers.", "{}", '    return "still here";'),
};

export async function demoCommand(context: CliContext): Promise<ExitCode> {
  const report = new DemoReport(context);
  const census = new WorkerCensus();
  // fetch_page may read this one origin, and nothing else (not even the rest of 127.0.0.1).
  const site = await startDemoSite();
  try {
    return await withCliHost(context, DEMO_WORKERS, demoRun(report, census, context, site), false, {
      effects: { plugin: { net_read: "allow", read: "allow" } },
      codeMode: {},
      capabilities: { sources: { plugin: { net: { allow: [site.origin] } } } },
    });
  } finally {
    await site.close();
  }
}

function demoRun(report: DemoReport, census: WorkerCensus, context: CliContext, site: DemoSite) {
  return async (host: Host): Promise<ExitCode> => {
    report.line(`corral demo: one host serving on ${DEMO_WORKERS} sandbox workers, running tools that nobody trusts`);
    report.line("");

    context.progress("loading the bundled plugins (compiling each with esbuild the first time)");
    const results = existsSync(BUNDLED_PLUGINS_DIR) ? await host.loadDirectory(BUNDLED_PLUGINS_DIR) : [];
    if (results.length === 0) report.line(`load  no bundled plugins found in ${BUNDLED_PLUGINS_DIR}`);
    for (const result of results) report.load(result);
    census.sample();

    const loaded = new Set(results.flatMap((result) => (result.ok ? result.tools.map((tool) => tool.name) : [])));
    for (const call of PLUGIN_CALLS) {
      if (loaded.has(call.tool)) report.call(await host.call(call.tool, call.input));
      else report.skip(call.tool);
      census.sample();
    }
    // A plugin that fetches: the page the demo serves, then an address its grant does not list.
    for (const url of [`${site.origin}/`, "http://169.254.169.254/latest/meta-data/"]) {
      if (loaded.has("fetch_page")) report.call(await host.call("fetch_page", { url }));
      else report.skip("fetch_page");
    }

    // Code Mode: a model's script, one call of run_code, two nested tool calls inside it.
    if (loaded.has("text_stats") && loaded.has("unit_convert")) {
      const script = await host.call("run_code", { code: SCRIPT });
      report.call(script);
      const calls = (script.details as { calls?: { tool: string; kind: string }[] } | undefined)?.calls;
      if (Array.isArray(calls)) report.line(`      its nested calls: ${calls.map((call) => `${call.tool} ${call.kind}`).join(", ")}`);
    } else report.skip("run_code");

    report.line("");
    // Nobody reads on (stdout closed: \`corral demo | head\`): the runaways would only cost seconds.
    if (context.closed.aborted) return EXIT.ok;
    for (const runaway of RUNAWAY_TOOLS) {
      const result = await host.load({ source: runaway.source, code: runaway.code });
      report.load(result, runaway.about);
      census.sample();
      if (!result.ok) continue;
      context.progress(`calling ${runaway.tool}: ${runaway.about}`);
      report.call(await host.call(runaway.tool, {}));
      census.sample();
    }

    report.line("");
    const alive = await checkAlive(host, loaded, report);
    census.sample();
    report.line("");
    report.line(summary(host, alive, report.calls, census.count));
    return host.alive && alive ? EXIT.ok : EXIT.failed;
  };
}

/** Calls a plugin again, or the echo tool if no plugin loaded: the host must still answer. */
async function checkAlive(host: Host, loaded: ReadonlySet<string>, report: DemoReport): Promise<boolean> {
  const again = PLUGIN_CALLS.find((call) => loaded.has(call.tool));
  if (again !== undefined) {
    const result = await host.call(again.tool, again.input);
    report.call(result);
    return result.ok;
  }
  const echo = await host.load({ source: ECHO_TOOL.source, code: ECHO_TOOL.code });
  report.load(echo, ECHO_TOOL.about);
  if (!echo.ok) return false;
  const result = await host.call(ECHO_TOOL.tool, {});
  report.call(result);
  return result.ok;
}

function summary(host: Host, alive: boolean, calls: number, workers: number | undefined): string {
  const ran = workers === undefined ? `${DEMO_WORKERS} sandbox workers configured` : `${workers} sandbox worker processes ran in all`;
  if (!host.alive || !alive) return `the host did NOT answer its last call after ${calls} calls; ${ran}`;
  return `the host is still alive and answering after ${calls} calls, runaway tools included; ${ran}`;
}

/** Prints one aligned line per step, as it happens, on stdout. */
class DemoReport {
  readonly #context: CliContext;
  calls = 0;

  constructor(context: CliContext) {
    this.#context = context;
  }

  line(text: string): void {
    this.#context.io.stdout.write(`${text}\n`);
  }

  load(result: LoadResult, about?: string): void {
    if (!result.ok) {
      this.line(`load  ${result.source.padEnd(28)} FAIL ${result.error.kind}: ${shorten(firstLine(result.error.message), SHOWN_OUTPUT_CHARS)}`);
      return;
    }
    const tools = result.tools.map((tool) => tool.name).join(", ");
    this.line(`load  ${result.source.padEnd(28)} ok   ${tools}${about === undefined ? "" : ` (${about})`}`);
  }

  call(result: ToolResult): void {
    this.calls += 1;
    const kind = result.ok ? "ok" : result.error.kind;
    const shown = result.ok ? result.output : result.error.message;
    this.line(`call  ${result.tool.padEnd(14)} ${kind.padEnd(13)} ${formatMs(result.metrics.wallMs).padStart(9)}  ${shorten(shown, SHOWN_OUTPUT_CHARS)}`);
  }

  skip(tool: string): void {
    this.line(`call  ${tool.padEnd(14)} ${"skipped".padEnd(13)} ${"".padStart(9)}  the plugin is not loaded`);
  }
}
