/**
 * @module src/cli/format-scripts.test
 * The Code Mode lines of `corral audit <source>`: a script source's tools
 * (strike kinds first, the ones left out counted), and the one line of
 * script sources that called a tool's source (cut to the width, its count
 * and the number left out kept).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scriptCallersLines, scriptToolsLines } from "./format-scripts.js";

const AT = Date.UTC(2026, 0, 1);

describe("corral audit: Code Mode lines", () => {
  it("lists a script source's tools with their strikes by kind first, and counts those past the limit", () => {
    const lines = scriptToolsLines(
      {
        script: "code:conv-1",
        total: 3,
        rows: [
          { source: "agent:spin", tool: "spin", calls: 3, strikes: 2, outcomes: { ok: 1, timeout: 1, crash: 1 }, lastAt: AT },
          { source: "agent:math", tool: "add", calls: 12, strikes: 0, outcomes: { ok: 11, tool_error: 1 }, lastAt: AT },
        ],
      },
      160,
    );
    assert.deepEqual(lines, [
      "",
      "tools its scripts called (3)",
      "  TOOL  SOURCE      CALLS  STRIKES  OUTCOMES",
      "  spin  agent:spin      3        2  timeout 1, crash 1, ok 1",
      "  add   agent:math     12        0  ok 11, tool_error 1",
      "  … and 1 more tool (corral audit code:conv-1 --json lists the first 2 too)",
    ]);
    assert.deepEqual(scriptToolsLines({ script: "code:x", total: 0, rows: [] }, 160), ["", "tools its scripts called (0)", "  none"]);
  });

  it("names the script sources that called a source in one line that keeps its count and what it left out", () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ script: `code:conversation-${i}`, calls: 40 - i, strikes: i === 0 ? 1 : 0, lastAt: AT }));
    const [blank, line] = scriptCallersLines({ source: "agent:math", total: 45, rows }, 120);
    assert.equal(blank, "");
    assert.ok(line !== undefined && line.length <= 120, line);
    // Whole names only, as many as fit; the rest (of the 45, not of the 40 read) counted.
    assert.match(line, /^called by 45 script sources: code:conversation-0 \(40 calls, 1 strike\), code:conversation-1 \(39 calls\) and 43 more$/);
    // At least one name, however narrow the terminal.
    assert.equal(scriptCallersLines({ source: "agent:math", total: 45, rows }, 30)[1], "called by 45 script sources: code:conversation-0 (40 calls, 1 strike) and 44 more");
    assert.deepEqual(scriptCallersLines({ source: "agent:math", total: 1, rows: [{ script: "code:a", calls: 1, strikes: 0, lastAt: AT }] }, 120), ["", "called by 1 script source: code:a (1 call)"]);
    assert.deepEqual(scriptCallersLines({ source: "agent:math", total: 0, rows: [] }, 120), ["", "called by scripts: none"]);
  });
});
