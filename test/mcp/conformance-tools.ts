/**
 * @module test/mcp/conformance-tools
 * The MCP conformance suite's fixture tools (@modelcontextprotocol/conformance
 * 0.1.16, its server scenarios' "Server Implementation Requirements"),
 * written as corral tools: one plugin module, as a user would write it,
 * using ctx.progress, ctx.log, ctx.elicit, ctx.sample and toolResult's
 * media and resources. Nothing here knows the suite beyond what each
 * scenario says its tool must do.
 */

/** A 1x1 red PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/** A WAV header and no samples: a minimal audio file. */
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

export const CONFORMANCE_TOOLS = `import { defineTool, toolResult } from "corral";
import { z } from "zod";

const none = z.object({});
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const simpleText = defineTool({
  name: "test_simple_text", description: "Returns simple text", input: none, effects: [],
  run: () => "This is a simple text response for testing.",
});

export const image = defineTool({
  name: "test_image_content", description: "Returns an image", input: none, effects: [],
  run: () => toolResult({ images: [{ mimeType: "image/png", data: "${PNG}" }] }),
});

export const audio = defineTool({
  name: "test_audio_content", description: "Returns audio", input: none, effects: [],
  run: () => toolResult({ audio: [{ mimeType: "audio/wav", data: "${WAV}" }] }),
});

export const embedded = defineTool({
  name: "test_embedded_resource", description: "Returns an embedded resource", input: none, effects: [],
  run: () => toolResult({ resources: [{ uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." }] }),
});

export const mixed = defineTool({
  name: "test_multiple_content_types", description: "Returns text, an image and a resource", input: none, effects: [],
  run: () => toolResult({
    text: "Multiple content types test:",
    images: [{ mimeType: "image/png", data: "${PNG}" }],
    resources: [{ uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) }],
  }),
});

export const logging = defineTool({
  name: "test_tool_with_logging", description: "Sends three log messages as it runs", input: none, effects: [],
  async run(_input, ctx) {
    await ctx.log("info", "Tool execution started");
    await wait(50);
    await ctx.log("info", "Tool processing data");
    await wait(50);
    await ctx.log("info", "Tool execution completed");
    return "Logging test completed";
  },
});

export const failing = defineTool({
  name: "test_error_handling", description: "Always fails", input: none, effects: [],
  run() {
    throw new Error("This tool intentionally returns an error for testing");
  },
});

export const progress = defineTool({
  name: "test_tool_with_progress", description: "Reports progress 0, 50, 100 of 100", input: none, effects: [],
  async run(_input, ctx) {
    await ctx.progress(0, 100);
    await wait(50);
    await ctx.progress(50, 100);
    await wait(50);
    await ctx.progress(100, 100);
    return "Progress test completed";
  },
});

export const sampling = defineTool({
  name: "test_sampling", description: "Asks the client's model", input: z.object({ prompt: z.string() }), effects: ["sample_model"],
  async run({ prompt }, ctx) {
    const answer = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 });
    return "LLM response: " + (answer.content.type === "text" ? answer.content.text : "[" + answer.content.type + "]");
  },
});

export const elicitation = defineTool({
  name: "test_elicitation", description: "Asks the client's user", input: z.object({ message: z.string() }), effects: ["ask_user"],
  async run({ message }, ctx) {
    const answer = await ctx.elicit(message, {
      type: "object",
      properties: { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } },
      required: ["username", "email"],
    });
    return "User response: " + JSON.stringify(answer);
  },
});

export const defaults = defineTool({
  name: "test_elicitation_sep1034_defaults", description: "Asks with defaults for every primitive", input: none, effects: ["ask_user"],
  async run(_input, ctx) {
    const answer = await ctx.elicit("Please review your details", z.object({
      name: z.string().default("John Doe"),
      age: z.number().int().default(30),
      score: z.number().default(95.5),
      status: z.enum(["active", "inactive", "pending"]).default("active"),
      verified: z.boolean().default(true),
    }));
    return "Elicitation completed: action=" + answer.action + ", content=" + JSON.stringify(answer.content ?? {});
  },
});

export const enums = defineTool({
  name: "test_elicitation_sep1330_enums", description: "Asks with every kind of enum", input: none, effects: ["ask_user"],
  async run(_input, ctx) {
    const answer = await ctx.elicit("Pick your options", {
      type: "object",
      properties: {
        untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
        titledSingle: { type: "string", oneOf: [{ const: "value1", title: "First Option" }, { const: "value2", title: "Second Option" }, { const: "value3", title: "Third Option" }] },
        legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
        untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
        titledMulti: { type: "array", items: { anyOf: [{ const: "value1", title: "First Choice" }, { const: "value2", title: "Second Choice" }, { const: "value3", title: "Third Choice" }] } },
      },
    });
    return "Elicitation completed: action=" + answer.action + ", content=" + JSON.stringify(answer.content ?? {});
  },
});

const address = z.object({ street: z.string(), city: z.string() }).meta({ id: "address" });
export const jsonSchema = defineTool({
  name: "json_schema_2020_12_tool", description: "Tool with JSON Schema 2020-12 features",
  input: z.strictObject({ name: z.string().optional(), address: address.optional() }), effects: [],
  run: (input) => "Received " + JSON.stringify(input),
});
`;
