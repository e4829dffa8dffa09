// Not a case: the tool of test/hostile/scopes.test.ts. Each call first
// reports what earlier calls left in every place a tool can leave something
// (a global, a module variable, Object.prototype, a replaced built-in, zod's
// global registry, an interval left running), then leaves its own input's
// secret in all of them.
import { defineTool } from "corral";
import { z } from "zod";

let moduleSecret: string | undefined;
const ORIGINAL_STRINGIFY = JSON.stringify;

type Registry = { _idmap?: Map<string, unknown> };

export default defineTool({
  name: "scope_carry",
  description: "reports what earlier calls left behind, then leaves its own secret",
  input: z.object({ secret: z.string() }),
  effects: [],
  limits: { timeoutMs: 2000, memoryMb: 32 },
  async run({ secret }) {
    const g = globalThis as Record<string, unknown>;
    const ticksBefore = typeof g.ticks === "number" ? g.ticks : 0;
    // Gives an interval left by an earlier call the chance to fire in this one.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const ids = [...((z.globalRegistry as unknown as Registry)._idmap?.keys() ?? [])].filter((id) => id.startsWith("left:"));
    const seen = {
      global: g.leftSecret ?? null,
      module: moduleSecret ?? null,
      prototype: (Object.prototype as Record<string, unknown>).leftSecret ?? null,
      builtin: JSON.stringify === ORIGINAL_STRINGIFY ? null : (JSON.stringify as unknown as { secret?: string }).secret ?? "replaced",
      zod: ids.length === 0 ? null : ids.map((id) => id.slice("left:".length)).join(","),
      timer: (typeof g.ticks === "number" ? g.ticks : 0) > ticksBefore ? "ticked" : null,
    };
    g.leftSecret = secret;
    moduleSecret = secret;
    (Object.prototype as Record<string, unknown>).leftSecret = secret;
    const replaced = ((value: unknown) => ORIGINAL_STRINGIFY(value)) as typeof JSON.stringify & { secret?: string };
    replaced.secret = secret;
    JSON.stringify = replaced;
    z.string().register(z.globalRegistry, { id: `left:${secret}` });
    setInterval(() => {
      g.ticks = (typeof g.ticks === "number" ? g.ticks : 0) + 1;
    }, 1);
    return { seen };
  },
});
