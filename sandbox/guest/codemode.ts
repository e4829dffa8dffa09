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
 *
 * A script's result is data for a model: the runtime writes it with the
 * serializer's `plainOnly` rule (isScript), so a function, symbol or BigInt
 * at any depth is a tool_error naming where it is. Calls the script made and
 * had not heard back from when its body settled (never sent, or not
 * awaited) are cancelled with the call (their answers are dropped) and named
 * in its result: `details.cancelledCalls`, the tool of each, in call order.
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

/** At most this many calls left unanswered are named one by one; the rest are counted. */
const MAX_NAMED_CANCELLED = 100;

/** The script's answer, with the calls it left named in `details` (its own details kept beside them). */
function withCancelled(value: unknown, left: string[]): unknown {
  if (left.length === 0) return value;
  const named: string[] = [];
  for (let i = 0; i < left.length && i < MAX_NAMED_CANCELLED; i++) I.arrayPush(named, left[i] as string);
  const details = I.ObjectCreate(null) as Record<string, unknown>;
  details.cancelledCalls = named;
  if (left.length > named.length) details.cancelledNotNamed = left.length - named.length;
  const channels = I.ObjectCreate(null) as Record<string, unknown>;
  if (sdk.isToolResult(value)) {
    const own = value as Record<string, unknown>;
    const keys = I.ObjectKeys(own);
    for (let i = 0; i < keys.length; i++) channels[keys[i] as string] = own[keys[i] as string];
    const given = own.details;
    if (given !== null && typeof given === "object" && !I.ArrayIsArray(given)) {
      const merged = I.ObjectCreate(null) as Record<string, unknown>;
      const givenKeys = I.ObjectKeys(given);
      for (let i = 0; i < givenKeys.length; i++) merged[givenKeys[i] as string] = (given as Record<string, unknown>)[givenKeys[i] as string];
      merged.cancelledCalls = details.cancelledCalls;
      if (details.cancelledNotNamed !== undefined) merged.cancelledNotNamed = details.cancelledNotNamed;
      channels.details = merged;
    } else channels.details = details;
  } else {
    if (typeof value === "string") channels.text = value;
    else channels.structured = value;
    channels.details = details;
  }
  return sdk.toolResult(channels);
}

export function createCodeMode(client: CapabilityClient) {
  /** The tools `script` made: their results are written plain data only. */
  const scripts = new I.WeakSet<object>();
  function script(body: ScriptBody) {
    const tool = sdk.defineTool({
      name: "run_code",
      description: "a Code Mode script",
      input: ScriptInputSchema,
      effects: [],
      run: (input: ScriptInput): Promise<unknown> => {
        let calls = 0;
        let inFlight = 0;
        /** Calls made and not yet answered, by their number: what is left here when the body settles was cancelled. */
        const unanswered = new I.Map<number, string>();
        let nextCall = 0;
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
          const id = nextCall++;
          I.mapSet(unanswered, id, name);
          return new I.Promise((resolve, reject) => {
            I.ownThen(
              client.request({ kind: "tool", name, inputJson }),
              (value) => {
                inFlight--;
                I.mapDelete(unanswered, id);
                const answer = value as ToolAnswer;
                if (answer.ok) resolve(answer.result);
                else reject(toolError(name, answer.kind, answer.message));
              },
              (error) => {
                inFlight--;
                I.mapDelete(unanswered, id);
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
        // Followed with captured intrinsics only: a script that replaced Promise's built-ins still answers.
        return I.ownPromise<unknown>((resolve, reject) => {
          const left = () => {
            const names: string[] = [];
            I.mapForEach(unanswered as Map<unknown, unknown>, (name) => {
              I.arrayPush(names, name as string);
            });
            return names;
          };
          I.follow(body(tools, search, describe), (value) => resolve(withCancelled(value, left())), reject);
        });
      },
    });
    I.weakSetAdd(scripts, tool);
    return tool;
  }
  return { script, isScript: (tool: object): boolean => I.weakSetHas(scripts, tool) };
}
