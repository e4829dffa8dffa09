/**
 * @module sandbox/guest/module-tools
 * Finds the tools a bundle exports and describes them as plain manifests.
 * A module may export one tool or an array as default, and tools as named
 * exports. Only what `defineTool` returned counts; other exports are ignored.
 * The host validates every manifest again; this side only reports what the
 * module declared, turning schemas into JSON Schema.
 */
import { z } from "zod";
import { isTool, type Tool } from "../sdk/index.js";
import type { GuestManifest } from "../shared/guest-envelope.js";
import { intrinsics as I } from "./intrinsics.js";
import { markSignal } from "./signals.js";

/** Thrown by this module for a module that is not usable; recognised by identity (see signals.ts). */
export class ModuleError {
  constructor(readonly message: string) {
    markSignal(this);
  }
}

// Index loops only: for-of and Array.prototype.includes consult methods a
// tool's top level may already have replaced.
function contains(list: Tool[], item: Tool): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

export function collectTools(moduleExports: unknown): Map<string, Tool> {
  const found: Tool[] = [];
  const consider = (value: unknown, where: string) => {
    if (isTool(value)) {
      if (!contains(found, value)) I.arrayPush(found, value);
    } else if (I.ArrayIsArray(value)) {
      const items = value as unknown[];
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (!isTool(item)) throw new ModuleError(`${where} contains a value that is not a tool made by defineTool()`);
        if (!contains(found, item)) I.arrayPush(found, item);
      }
    }
  };
  if (moduleExports !== null && typeof moduleExports === "object") {
    consider(moduleExports, "module.exports");
    const keys = I.ObjectKeys(moduleExports);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      consider((moduleExports as Record<string, unknown>)[key], key === "default" ? "the default export" : `export "${key}"`);
    }
  }
  if (found.length === 0) {
    throw new ModuleError('the module exports no tools: use `export default defineTool({ ... })` from "corral"');
  }
  const byName = new I.Map<string, Tool>();
  for (let i = 0; i < found.length; i++) {
    const tool = found[i] as Tool;
    checkShape(tool);
    if (I.mapGet(byName, tool.name) !== undefined) {
      throw new ModuleError(`two tools are named "${tool.name}": tool names must be unique in a module`);
    }
    I.mapSet(byName, tool.name, tool);
  }
  return byName;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType;
}

function checkShape(tool: Tool): void {
  const label = typeof tool.name === "string" ? `tool "${tool.name}"` : "a tool";
  if (typeof tool.name !== "string") throw new ModuleError(`${label} has no name: give it a string name`);
  if (typeof tool.run !== "function") throw new ModuleError(`${label} has no run(input, ctx) function`);
  if (!(tool.input instanceof z.ZodObject)) {
    throw new ModuleError(`${label} must have an input schema made with z.object({ ... }) from "zod"`);
  }
  if (tool.output !== undefined && !isZodSchema(tool.output)) {
    throw new ModuleError(`${label} has an output that is not a zod schema`);
  }
}

function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): unknown {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" });
}

export function manifestOf(tool: Tool): GuestManifest {
  const manifest: GuestManifest = {
    name: tool.name,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input, "input"),
    effects: tool.effects,
    exposure: tool.exposure,
    limits: tool.limits,
  };
  if (tool.output !== undefined) manifest.outputSchema = jsonSchemaOf(tool.output, "output");
  return manifest;
}
