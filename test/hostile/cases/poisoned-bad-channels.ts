// attempts: a toolResult whose images and control channels have the wrong
// shape (numbers for strings, a string for a list).
// expect: tool_error
// expect-message: invalid shape
// A correct host checks the envelope with zod and refuses it.
import { defineTool, toolResult } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-bad-channels",
  description: "hostile case: malformed result channels",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    return toolResult({
      text: "looks fine",
      images: [{ mimeType: 42, data: null }] as unknown as { mimeType: string; data: string }[],
      control: { add_tools: "everything" } as unknown as { add_tools: string[] },
    });
  },
});
