/**
 * What an MCP client is told, without a server: hints from effects (the
 * cautious ones when effects are missing or unknown), titles, and results
 * (text, images, structured data; never details or logs).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ToolResult } from "../../result.js";
import { toCallToolResult } from "./call-result.js";
import { hintsFor, SCHEMA_DIALECT, titleOf, toMcpTool } from "./tool-list.js";

const METRICS = { wallMs: 1, cpuMs: 0, heapBytes: 0 };

describe("MCP tool hints and results", () => {
  it("derives hints from effects, cautious when they are missing or unknown", () => {
    const safe = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
    const cautious = { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
    assert.deepEqual(hintsFor([]), safe);
    assert.deepEqual(hintsFor(["read"]), safe);
    assert.deepEqual(hintsFor(null), cautious);
    assert.deepEqual(hintsFor(["read", "teleport"]), cautious);
    assert.deepEqual(hintsFor(["fs_write"]), { readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    assert.deepEqual(hintsFor(["net_read"]), { readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    assert.deepEqual(hintsFor(["net_write"]), cautious);
    assert.equal(titleOf("csv_to_json"), "Csv to json");
  });

  it("keeps an output schema only when it is an object one", () => {
    const info = { name: "t", description: "d", source: "agent:a", version: "v", inputSchema: {}, effects: [], exposure: "direct" as const, limits: { timeoutMs: 1, memoryMb: 8 } };
    assert.equal(toMcpTool({ ...info, outputSchema: { type: "string" } }, "d", { type: "object" }).outputSchema, undefined);
    assert.deepEqual(toMcpTool({ ...info, outputSchema: { type: "object" } }, "d", { type: "object" }).outputSchema, { $schema: SCHEMA_DIALECT, type: "object" });
    // The host trims the dialect from what a model is sent; MCP names it (SEP-1613).
    assert.equal(toMcpTool(info, "d", { type: "object" }).inputSchema.$schema, SCHEMA_DIALECT);
  });

  it("answers text, images and structured data, and never details or logs", () => {
    const ok: ToolResult = {
      ok: true, tool: "t", callId: "c", metrics: METRICS, output: "two rows", structured: { rows: 2 }, details: { secret: 1 }, logs: ["debug line"],
      images: [{ mimeType: "image/png", data: "iVBORw0KGgo=" }],
    };
    assert.deepEqual(toCallToolResult(ok), {
      content: [{ type: "text", text: "two rows" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
      structuredContent: { rows: 2 },
    });
    const list: ToolResult = { ok: true, tool: "t", callId: "c", metrics: METRICS, output: "[1,2]", structured: [1, 2] };
    assert.deepEqual(toCallToolResult(list), { content: [{ type: "text", text: "[1,2]" }] }, "MCP carries only objects as structuredContent");
    const failed: ToolResult = { ok: false, tool: "t", callId: "c", metrics: METRICS, error: { kind: "timeout", message: "ran past 1000 ms", stack: "at secret.ts:1" } };
    assert.deepEqual(toCallToolResult(failed), { content: [{ type: "text", text: "timeout: ran past 1000 ms" }], isError: true });
  });

  it("answers audio, embedded resources and resource links after text and images, in that order", () => {
    const rich: ToolResult = {
      ok: true, tool: "t", callId: "c", metrics: METRICS, output: "",
      audio: [{ mimeType: "audio/wav", data: "UklGRg==" }],
      resources: [{ uri: "test://r", mimeType: "text/plain", text: "body" }, { uri: "test://b", blob: "AAEC" }],
      links: [{ uri: "https://example.com/c", name: "c" }],
    };
    assert.deepEqual(toCallToolResult(rich), {
      content: [
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "test://r", mimeType: "text/plain", text: "body" } },
        { type: "resource", resource: { uri: "test://b", blob: "AAEC" } },
        { type: "resource_link", uri: "https://example.com/c", name: "c" },
      ],
    });
  });
});
