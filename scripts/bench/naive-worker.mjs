// The naive pool's worker (tinypool child process, --no-node-snapshot): one
// warm isolate holding the raw word_count script, entered with applySync per
// task. isolated-vm is loaded the way corral's worker loads it.
import { readFileSync } from "node:fs";
import { importIvm } from "./dist.mjs";

const ivm = await importIvm();

const code = readFileSync(process.env.BENCH_RAW_SCRIPT, "utf8");
const isolate = new ivm.Isolate({ memoryLimit: 64 });
const context = isolate.createContextSync();
const call = isolate.compileScriptSync(code).runSync(context, { reference: true });

export default function run(inputJson) {
  return call.applySync(undefined, [inputJson], { arguments: { copy: true }, result: { copy: true } });
}
