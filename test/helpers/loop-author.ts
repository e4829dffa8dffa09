/**
 * @module test/helpers/loop-author
 * A program whose agent writes a tool through the Anthropic loop, in a
 * process of its own so that a test can kill it with SIGKILL: a host on the
 * ledger file argv[2] with create_tool offered to its models, one
 * runConversation against the scripted Messages API at argv[3] (the real
 * Anthropic SDK), then `authored <json of the tool call's result>` and it
 * waits to be killed.
 */
import Anthropic from "@anthropic-ai/sdk";
import { join, dirname } from "node:path";
import { createHost } from "../../src/index.js";
import { anthropicModel, runConversation } from "../../src/loop/index.js";

const [ledger, baseURL] = process.argv.slice(2);
if (ledger === undefined || baseURL === undefined) throw new Error("usage: loop-author.js <ledger file> <messages api url>");
const host = createHost({ workers: 1, cacheDir: join(dirname(ledger), "cache"), ledger: { store: ledger }, createTool: { agent: "looper", exposure: "direct" } });
const result = await runConversation(anthropicModel(new Anthropic({ apiKey: "test", baseURL, maxRetries: 0 })), { model: "claude-test", max_tokens: 1024, messages: [{ role: "user", content: "Write yourself a tool." }] }, { host });
const call = result.toolCalls.find((record) => record.name === "create_tool");
process.stdout.write(`authored ${JSON.stringify(call?.result.ok === true ? call.result.structured : call?.result)}\n`);
// Killed here, with SIGKILL: nothing is closed, flushed or said goodbye to.
setInterval(() => undefined, 1_000);
