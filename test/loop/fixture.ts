/**
 * @module test/loop/fixture
 * Set-up shared by the loop's end-to-end tests: a scripted Messages API
 * server, the real `@anthropic-ai/sdk` client pointed at it through
 * anthropicModel, and a real corral host with agent tools loaded from text.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import type { Host, HostOptions } from "../../src/index.js";
import { anthropicModel, type LoopHost, type MessageCreateParams, type Model } from "../../src/loop/index.js";
import { toolSource, withHost } from "../helpers/host.js";
import { startScriptedServer, type ScriptedResponse, type ScriptedServer } from "./scripted-server.js";

export type ToolSpec = Parameters<typeof toolSource>[0];

export type Conversation = {
  server: ScriptedServer;
  host: Host;
  loopHost: LoopHost;
  model: Model;
};

export const USER_MESSAGE = { role: "user", content: "Please use the tools." } as const;

/** A fresh request each time: runConversation must not change the caller's. */
export function baseRequest(): MessageCreateParams {
  return { model: "claude-test", max_tokens: 1024, messages: [{ ...USER_MESSAGE }] };
}

/** Tool text for `toolSource`: sleeps `ms`, then reports when it started and ended, by its own clock. */
export const SLEEPY_TOOL: ToolSpec = {
  name: "sleepy",
  input: "z.object({ ms: z.number(), label: z.string() })",
  run: "const start = Date.now(); await new Promise((resolve) => setTimeout(resolve, input.ms)); return { label: input.label, start, end: Date.now() };",
};

export const ADD_TOOL: ToolSpec = {
  name: "add",
  input: "z.object({ a: z.number(), b: z.number() })",
  run: "return String(input.a + input.b);",
};

export async function withConversation(
  script: ScriptedResponse[],
  tools: ToolSpec[],
  fn: (conversation: Conversation) => Promise<void>,
  hostOptions: HostOptions = {},
): Promise<void> {
  const server = await startScriptedServer(script);
  try {
    await withHost(async (host) => {
      for (const tool of tools) {
        const loaded = await host.load({ source: `agent:${tool.name}`, code: toolSource(tool) });
        assert.equal(loaded.ok, true, `loading ${tool.name}: ${JSON.stringify(loaded)}`);
      }
      const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
      // A Host is a LoopHost as it is: this line is the compile-time check.
      const loopHost: LoopHost = host;
      await fn({ server, host, loopHost, model: anthropicModel(client) });
    }, hostOptions);
  } finally {
    await server.close();
  }
}

export function toolUse(id: string, name: string, input: Record<string, unknown> = {}) {
  return { type: "tool_use" as const, id, name, input };
}

export function text(value: string) {
  return { type: "text" as const, text: value };
}
