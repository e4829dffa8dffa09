/**
 * @module src/builtins/create-tool
 * `create_tool`: lets an agent submit TypeScript source for new tools, which
 * the host compiles, checks and registers under `agent:<id>` (host.author).
 * Hidden unless the embedding program exposes it. Compile and manifest
 * errors come back as error results with file:line:col a model can act on.
 */
import { z } from "zod";
import type { LoadResult } from "../host/types.js";
import type { CatalogEntry } from "../registry/index.js";
import type { Manifest } from "../registry/manifest.js";
import { builtinEntry } from "./builtin.js";

export const CREATE_TOOL = "create_tool";

const EXAMPLE = `import { defineTool } from "corral";
import { z } from "zod";
export default defineTool({
  name: "word_count",
  description: "Counts words in a text",
  input: z.object({ text: z.string() }),
  effects: [],
  async run({ text }) { return { words: text.split(/\\s+/).filter(Boolean).length }; },
});`;

export function createToolTool(exposure: Manifest["exposure"], author: (code: string, caller: string | null) => Promise<LoadResult>): CatalogEntry {
  return builtinEntry({
    name: CREATE_TOOL,
    description: `Creates new tools from TypeScript source, for use from your next turn on. The module imports only "corral" and "zod" and exports tools made with defineTool; tools run sandboxed with no file system or network. Your tools are kept: they stay yours across restarts and sessions. Submitting a tool under a name you already have makes a new version of it; your other tools stay. Example:\n${EXAMPLE}`,
    input: z.object({ code: z.string().min(1).describe("the TypeScript source of one module") }),
    exposure,
    async run({ code }, context) {
      const loaded = await author(code, context.caller ?? null);
      if (!loaded.ok) {
        // The message already lists the diagnostics as file:line:col lines.
        return { ok: false, kind: loaded.error.kind, message: loaded.error.message };
      }
      const names = loaded.tools.map((tool) => tool.name);
      const versions = loaded.versions ?? [];
      const shown = versions.length > 0 ? versions.map((v) => `${v.name} v${v.version}${v.unchanged ? " (unchanged)" : ""}`) : names;
      return {
        ok: true,
        text: `Registered ${names.length} tool${names.length === 1 ? "" : "s"} (${shown.join(", ")}) as ${loaded.source}.`,
        structured: { source: loaded.source, version: loaded.version, tools: names, versions },
        control: { add_tools: names },
      };
    },
  });
}
