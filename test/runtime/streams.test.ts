/**
 * @module test/runtime/streams.test
 * Streams, Blob, File, FormData, TextEncoderStream/TextDecoderStream and
 * bodies inside a real tool answer as Node 20's do (./streams.cases.ts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withHost } from "../helpers/host.js";
import { answersInNode, answersInTool, differences } from "./run-cases.js";
import { STREAM_CASES } from "./streams.cases.js";

describe("runtime: streams, blobs and bodies", { timeout: 120_000 }, () => {
  it("answers every case as Node does", async () => {
    const expected = await answersInNode(STREAM_CASES);
    await withHost(async (host) => {
      const actual = await answersInTool(host, "runtime_streams", STREAM_CASES);
      assert.deepEqual(differences(actual, expected), []);
    });
  });
});
