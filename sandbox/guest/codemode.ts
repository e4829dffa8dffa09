/**
 * @module sandbox/guest/codemode
 * The guest's side of a Code Mode script: `tools`, `search` and `describe`
 * over the capability relay. The host builds the script's module as
 *
 * ```js
 * module.exports = require("corral:codemode").script(async function (tools, search, describe) { <the script> });
 * ```
 * and calls it as the tool `run_code` with a ScriptInput. Every request is
 * judged by the host (which answers only a call it started as a script); the
 * counts here (maxCalls, maxInFlight) only spare the host requests it would
 * refuse anyway, and live in this closure, out of the script's reach.
 */
import * as zod from "zod";
import * as sdk from "../sdk/index.js";
import type { CapabilityClient } from "./capability-client.js";
import type { DescribedTool, FoundTool, ScriptInput, ToolAnswer } from "../shared/codemode-messages.js";
import { intrinsics as I } from "./intrinsics.js";

type ScriptBody = (tools: Record<string, (input?: unknown) => Promise<unknown>>, search: (query: string) => Promise<FoundTool[]>, describe: (name: string) => Promise<DescribedTool | null>) => unknown;

const ScriptInputSchema = zod.object({ tools: zod.array(zod.string()), maxCalls: zod.number().int().positive(), maxInFlight: zod.number().int().positive() });

/** An Error the script can read: `kind` is the outcome kind, `tool` the tool it called. */
function toolError(tool: string, kind: string, message: string): Error {
  const error = new I.Error(message) as Error & { kind: string; tool: string };
  error.name = "ToolCallError";
  error.kind = kind;
  error.tool = tool;
  return error;
}

/** A rejected promise made without reading anything the script may have replaced (Promise.reject is a writable static). */
function rejected(error: Error): Promise<never> {
  return new I.Promise<never>((_resolve, reject) => reject(error));
}

export function createCodeMode(client: CapabilityClient) {
  function script(body: ScriptBody) {
    return sdk.defineTool({
      name: "run_code",
      description: "a Code Mode script",
      input: ScriptInputSchema,
      effects: [],
      run: async (input: ScriptInput) => {
        let calls = 0;
        let inFlight = 0;
        const tools = I.ObjectCreate(null) as Record<string, (input?: unknown) => Promise<unknown>>;
        const call = (name: string, given: unknown): Promise<unknown> => {
          if (++calls > input.maxCalls) {
            return rejected(toolError(name, "busy", `this script made more than ${input.maxCalls} tool calls (codeMode.maxCalls); do more per call, or fewer calls`));
          }
          if (inFlight >= input.maxInFlight) {
            return rejected(toolError(name, "busy", `this script has ${input.maxInFlight} tool calls waiting already (codeMode.maxInFlight); await some before making more`));
          }
          let inputJson: string | undefined;
          try {
            inputJson = I.JSONStringify(given === undefined ? {} : given);
          } catch {
            return rejected(toolError(name, "invalid_input", `the input of ${name} cannot be sent as JSON (a cycle, a BigInt, or a toJSON that threw)`));
          }
          if (inputJson === undefined) return rejected(toolError(name, "invalid_input", `the input of ${name} is not JSON data`));
          inFlight++;
          return new I.Promise((resolve, reject) => {
            I.ownThen(
              client.request({ kind: "tool", name, inputJson }),
              (value) => {
                inFlight--;
                const answer = value as ToolAnswer;
                if (answer.ok) resolve(answer.result);
                else reject(toolError(name, answer.kind, answer.message));
              },
              (error) => {
                inFlight--;
                reject(error);
              },
            );
          });
        };
        const add = (name: string) => {
          if (!I.hasOwn(tools, name)) tools[name] = (given?: unknown) => call(name, given);
        };
        for (let i = 0; i < input.tools.length; i++) add(input.tools[i] as string);
        const search = async (query: string): Promise<FoundTool[]> => {
          const found = (await client.request({ kind: "search", query: I.String(query) })) as FoundTool[];
          for (let i = 0; i < found.length; i++) add((found[i] as FoundTool).name);
          return found;
        };
        const describe = async (name: string): Promise<DescribedTool | null> => {
          const described = (await client.request({ kind: "describe", name: I.String(name) })) as DescribedTool | null;
          if (described !== null) add(described.name);
          return described;
        };
        const value = await body(tools, search, describe);
        // What the script answers is data for a model: a function (a callable Proxy too) says nothing.
        const type = typeof value;
        if (type === "function" || type === "symbol" || type === "bigint") throw new I.TypeError(`the script returned a ${type}: return plain data (JSON)`);
        return value;
      },
    });
  }
  return I.ObjectFreeze({ script });
}
