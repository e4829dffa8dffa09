// The tools every contender runs. One small tool, word_count, as an agent
// would write it for corral; the same module bundled with esbuild into a
// plain script for the raw baselines (corral's SDK replaced by an identity
// defineTool, zod English-only as in the guest runtime); and the extra tools
// some scenarios need (a CPU spinner to crash on, families for the mix).
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import * as esbuild from "esbuild";
import { isolateScriptOptions } from "../isolate-script.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

export const WORD_COUNT_INPUT = { text: "the quick brown fox jumps over the lazy dog" };
export const WORD_COUNT_INPUT_JSON = JSON.stringify(WORD_COUNT_INPUT);
export const WORD_COUNT_OUTPUT_JSON = '{"words":9}';

/** The small tool, in the form an agent hands to corral. `salt` makes a never-seen source. */
export function wordCountSource({ name = "word_count", salt = "" } = {}) {
  return `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: ${JSON.stringify(name)},
  description: ${JSON.stringify(salt === "" ? "Counts the words of a text." : `Counts the words of a text (${salt}).`)},
  input: z.object({ text: z.string() }),
  effects: [],
  run: ({ text }) => ({ words: text.split(" ").length }),
});
`;
}

/** A tool that keeps its worker's thread busy for `ms`: aborting it mid-run kills the worker. */
export const SPIN_SOURCE = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "spin",
  description: "Keeps the CPU busy.",
  input: z.object({ ms: z.number() }),
  effects: [],
  limits: { timeoutMs: 20000 },
  run: ({ ms }) => { const end = Date.now() + ms; let n = 0; while (Date.now() < end) n++; return { n }; },
});
`;

const FAMILIES = [
  { input: "z.object({ text: z.string() })", run: "({ words: input.text.split(' ').length })", sample: WORD_COUNT_INPUT },
  { input: "z.object({ numbers: z.array(z.number()) })", run: "({ sum: input.numbers.reduce((a, b) => a + b, 0) })", sample: { numbers: [1, 2, 3, 4, 5, 6, 7, 8] } },
  { input: "z.object({ text: z.string() })", run: "({ reversed: [...input.text].reverse().join('') })", sample: { text: "stressed desserts" } },
  { input: "z.object({ items: z.array(z.string()), sep: z.string().default(',') })", run: "({ csv: input.items.join(input.sep) })", sample: { items: ["a", "b", "c"] } },
];

/**
 * `sources` modules with `perSource` tools each (names mix_<s>_<t>), as
 * several agents would write them; answers the sources and a sample input
 * per tool.
 */
export function mixedSources(sources, perSource) {
  const modules = [];
  const tools = [];
  for (let s = 0; s < sources; s++) {
    const defs = [];
    for (let t = 0; t < perSource; t++) {
      const family = FAMILIES[(s + t) % FAMILIES.length];
      const name = `mix_${s}_${t}`;
      defs.push(`export const ${name} = defineTool({
  name: ${JSON.stringify(name)},
  description: "Mixed benchmark tool ${name}.",
  input: ${family.input},
  effects: [],
  run: (input) => ${family.run},
});`);
      tools.push({ name, input: family.sample });
    }
    modules.push({ source: `agent:mix-${s}`, code: `import { defineTool } from "corral";\nimport { z } from "zod";\n${defs.join("\n")}\n` });
  }
  return { modules, tools };
}

/** Plain tools for the memory probe: `count` of them, one per source. */
export function manyToolSources(count) {
  return Array.from({ length: count }, (_, i) => ({
    source: `host:bench-mem-${i}`,
    name: `mem_${i}`,
    code: wordCountSource({ name: `mem_${i}`, salt: `mem-${i}` }),
  }));
}

/**
 * word_count as one plain script whose completion value is
 * `call(inputJson) → outputJson` (input checked with the tool's zod schema,
 * result as JSON text): what the raw baselines run, in-process and in isolates.
 */
export async function rawToolScript() {
  const entry = `import tool from "bench:tool";
export function call(inputJson) {
  const input = tool.input.parse(JSON.parse(inputJson));
  return JSON.stringify(tool.run(input, { callId: "raw", tool: tool.name }));
}`;
  const sdkShim = {
    name: "bench-tool",
    setup(build) {
      build.onResolve({ filter: /^bench:tool$/ }, () => ({ path: "tool", namespace: "bench" }));
      build.onResolve({ filter: /^corral$/ }, () => ({ path: "corral", namespace: "bench" }));
      build.onLoad({ filter: /^tool$/, namespace: "bench" }, () => ({ contents: wordCountSource(), loader: "ts", resolveDir: ROOT }));
      build.onLoad({ filter: /^corral$/, namespace: "bench" }, () => ({ contents: "export const defineTool = (tool) => tool;", loader: "js" }));
    },
  };
  const options = isolateScriptOptions("call");
  const result = await esbuild.build({
    ...options,
    stdin: { contents: entry, loader: "js", resolveDir: ROOT },
    write: false,
    plugins: [sdkShim, ...options.plugins],
  });
  return result.outputFiles[0].text;
}
