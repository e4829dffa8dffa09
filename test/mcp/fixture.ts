/**
 * @module test/mcp/fixture
 * Tools for the MCP tests, written as files into a folder (the stdio server
 * loads them as a user's `corral mcp <dir>` would), and small helpers around
 * the SDK's own Client.
 */
import type { ChildProcessWithoutNullStreams, ChildProcessByStdio } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CorralMcpServer } from "../../src/adapters/mcp/index.js";
import type { Host } from "../../src/index.js";
import { assertNoWorkersLeft, toolSource } from "../helpers/host.js";

const TOOLS = {
  echo: toolSource({ name: "echo", input: "z.object({ text: z.string() })", run: "return { said: input.text };" }),
  slow: toolSource({ name: "slow", input: "z.object({ ms: z.number() })", run: 'await new Promise((resolve) => setTimeout(resolve, input.ms)); return "done";' }),
  spin: toolSource({ name: "spin", extra: "limits: { timeoutMs: 300 },", run: "while (true) {}" }),
  writer: toolSource({ name: "writer", run: 'return "wrote";' }).replace("effects: [],", 'effects: ["fs_write", "net_read"],'),
  secret: toolSource({ name: "secret", extra: 'exposure: "hidden",', run: 'return "the secret";' }),
  forecast: toolSource({ name: "forecast", extra: 'exposure: "deferred",', run: 'return "sunny";' }).replace("test tool forecast", "Tells the weather forecast for a city"),
};

export type FixtureTool = keyof typeof TOOLS;
export const FIXTURE_TOOLS = Object.keys(TOOLS) as FixtureTool[];

/** Writes each tool as `<dir>/<name>.ts`; answers the folder. */
export function writeTools(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, source] of Object.entries(TOOLS)) writeFileSync(join(dir, `${name}.ts`), source);
  return dir;
}

/** Counts tools/list_changed notifications; `next()` resolves on the next one. */
export function watchListChanged(client: Client): { count(): number; next(timeoutMs?: number): Promise<void> } {
  let count = 0;
  let waiters: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    count += 1;
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  });
  return {
    count: () => count,
    next: (timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no tools/list_changed within ${timeoutMs} ms`)), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}

/** The JSON-RPC error a request was answered with (the SDK's client rejects with it). */
export async function rpcError(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code === "number" && typeof message === "string") return { code, message: message.replace(/^MCP error -?\d+: /, "") };
    throw error;
  }
  throw new Error("the request was answered with a result, not a JSON-RPC error");
}

/** Ends an MCP test's clients, server and host, removes its folder, and checks no worker outlived them. */
export async function closeMcpTest(parts: { clients: Client[]; mcp: CorralMcpServer; host: Host; dir: { remove(): void }; pidsBefore: number[] }): Promise<void> {
  for (const client of parts.clients) await client.close().catch(() => {});
  await parts.mcp.close();
  await parts.host.close();
  parts.dir.remove();
  await assertNoWorkersLeft(parts.pidsBefore);
}

/** A port free on 127.0.0.1 now (for a `corral mcp --port` child). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves with the child's stderr so far once `corral mcp --http` says it serves (its last start-up line). */
export function untilServing(child: ChildProcessWithoutNullStreams | ChildProcessByStdio<null, null, Readable>, timeoutMs = 90_000): Promise<string> {
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`corral mcp --http did not start:\n${stderr}`)), timeoutMs);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes("serving Streamable HTTP at")) {
        clearTimeout(timer);
        resolve(stderr);
      }
    });
  });
}
