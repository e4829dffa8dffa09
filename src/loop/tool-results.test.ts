/**
 * @module src/loop/tool-results.test
 * What the model reads of a ToolResult: text and images on success,
 * `kind: message` on failure, never details.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ToolResult } from "../result.js";
import { toToolResultBlock } from "./tool-results.js";

const METRICS = { wallMs: 1, cpuMs: 1, heapBytes: 0 };

function success(output: string, extra: Partial<Extract<ToolResult, { ok: true }>> = {}): ToolResult {
  return { ok: true, tool: "t", callId: "c", metrics: METRICS, output, ...extra };
}

function failure(error: Extract<ToolResult, { ok: false }>["error"]): ToolResult {
  return { ok: false, tool: "t", callId: "c", metrics: METRICS, error };
}

describe("toToolResultBlock", () => {
  it("sends the output text and nothing of details, structured or logs", () => {
    const block = toToolResultBlock("toolu_1", success("42", { details: { secret: 1 }, structured: { n: 42 }, logs: ["log line"] }));
    assert.deepEqual(block, { type: "tool_result", tool_use_id: "toolu_1", is_error: false, content: "42" });
  });

  it("leaves content out when the tool answered no text, since the API refuses empty text", () => {
    assert.deepEqual(toToolResultBlock("toolu_1", success("")), { type: "tool_result", tool_use_id: "toolu_1", is_error: false });
    const onlyImage = toToolResultBlock("toolu_2", success("", { images: [{ mimeType: "image/gif", data: "R0lG" }] }));
    assert.deepEqual(onlyImage.content, [{ type: "image", source: { type: "base64", media_type: "image/gif", data: "R0lG" } }]);
  });

  it("replaces an image type the API cannot take with a note, instead of failing the request", () => {
    const block = toToolResultBlock("toolu_1", success("a chart", { images: [{ mimeType: "image/svg+xml", data: "PHN2Zy8+" }, { mimeType: "image/webp", data: "UklG" }] }));
    const content = block.content as Array<{ type: string; text?: string }>;
    assert.deepEqual(content.map((c) => c.type), ["text", "text", "image"]);
    assert.match(content[1]?.text ?? "", /"image\/svg\+xml" was left out/);
  });

  it("answers a failure as `kind: message` with is_error", () => {
    const block = toToolResultBlock("toolu_1", failure({ kind: "quarantined", message: "the source is quarantined", stack: "at secret.ts:1" }));
    assert.deepEqual(block, { type: "tool_result", tool_use_id: "toolu_1", is_error: true, content: "quarantined: the source is quarantined" });
  });

  it("lists the invalid_input issues the message does not already say", () => {
    const block = toToolResultBlock(
      "toolu_1",
      failure({
        kind: "invalid_input",
        message: "the input does not match the tool's schema: a: expected number",
        issues: [
          { path: ["a"], message: "expected number", code: "invalid_type" },
          { path: [], message: "unrecognized key: c", code: "unrecognized_keys" },
        ],
      }),
    );
    assert.equal(block.content, "invalid_input: the input does not match the tool's schema: a: expected number\n- (root): unrecognized key: c");
  });

  it("caps the listed issues and counts the rest", () => {
    const issues = Array.from({ length: 13 }, (_, i) => ({ path: [`f${i}`], message: "required", code: "invalid_type" }));
    const content = String(toToolResultBlock("toolu_1", failure({ kind: "invalid_input", message: "bad input", issues })).content);
    assert.equal(content.split("\n- ").length - 1, 11);
    assert.match(content, /… and 3 more$/);
  });
});
