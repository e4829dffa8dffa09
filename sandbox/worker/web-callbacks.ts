/**
 * @module sandbox/worker/web-callbacks
 * The callbacks a tool context's web globals need from the worker, lent
 * before the guest runtime runs (which takes them off the global object):
 * - `__corral_random(count)`: bytes from this process's CSPRNG, as a binary
 *   string (crypto.getRandomValues, randomUUID); at most 64 KiB a call;
 * - `__corral_load_url()`: runs the URL script (whatwg-url) in this context
 *   and leaves its exports under `__corral_url_module` for the runtime to
 *   take, on a tool's first use of URL. It re-enters the isolate from inside
 *   the guest's own call (isolated-vm allows a nested sync run), under the
 *   isolate's memory limit; it has no timeout of its own, as the script is
 *   ours and runs no tool code.
 * - `__corral_load_streams()`: the same for the streams script
 *   (web-streams-polyfill), under `__corral_streams_module`, on a tool's
 *   first use of a stream class (or of a body's stream); and
 *   `__corral_load_web()` for the web globals built on first use (events,
 *   fetch's classes, Blob, crypto ...), under `__corral_lazy_module`.
 * - `__corral_encoding(label)` / `__corral_decode(...)`: TextDecoder's
 *   encodings beyond UTF-8, from this process's Node (./text-decode-bridge.ts).
 */
import { randomBytes } from "node:crypto";
import type IsolatedVM from "isolated-vm-types";
import { ivm } from "./load-isolated-vm.js";
import { compileLazyScript, compileStreamsScript, compileUrlScript } from "./runtime-script.js";
import { createDecodeCallbacks } from "./text-decode-bridge.js";

const MAX_RANDOM_BYTES = 65536;

export function lendWebCallbacks(isolate: IsolatedVM.Isolate, context: IsolatedVM.Context): void {
  const lend = (name: string, callback: IsolatedVM.Callback) => context.global.setSync(name, callback);
  lend(
    "__corral_random",
    new ivm.Callback((count: unknown) => randomBytes(Math.min(Math.max(1, Number(count) | 0), MAX_RANDOM_BYTES)).toString("latin1")),
  );
  const decoding = createDecodeCallbacks();
  lend("__corral_encoding", new ivm.Callback(decoding.encoding));
  lend("__corral_decode", new ivm.Callback(decoding.decode));
  lend("__corral_load_url", scriptLoader(isolate, context, compileUrlScript, "__corral_url_module"));
  lend("__corral_load_streams", scriptLoader(isolate, context, compileStreamsScript, "__corral_streams_module"));
  lend("__corral_load_web", scriptLoader(isolate, context, compileLazyScript, "__corral_lazy_module"));
}

/** A callback that runs one of our scripts in `context` once, leaving its exports under `slot` for the runtime to take. */
function scriptLoader(isolate: IsolatedVM.Isolate, context: IsolatedVM.Context, compile: (isolate: IsolatedVM.Isolate) => IsolatedVM.Script, slot: string): IsolatedVM.Callback {
  let loaded = false;
  return new ivm.Callback(() => {
    if (loaded) return;
    loaded = true;
    const script = compile(isolate);
    try {
      const exports = script.runSync(context, { reference: true }) as IsolatedVM.Reference<unknown>;
      context.global.setSync(slot, exports.derefInto());
      exports.release();
    } finally {
      script.release();
    }
  });
}
