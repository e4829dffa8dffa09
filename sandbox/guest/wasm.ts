/**
 * @module sandbox/guest/wasm
 * `WebAssembly.compile` and `WebAssembly.instantiate` that settle inside a
 * tool's isolate: they build the module and the instance with the
 * synchronous constructors, captured when the runtime starts, and answer a
 * promise settled from that.
 *
 * Why: V8 finishes the engine's own async compile and instantiate in a
 * foreground task it posts to the isolate's task runner. isolated-vm's
 * runner (IsolateTaskRunner::PostTask, src/isolate/holder.cc, the same in
 * 5.0.4, 6.x and 7.x; laverdet/isolated-vm#308) queues the task without
 * waking the isolate, and runs queued tasks only in an asynchronous entry.
 * A call waiting on promises gets only synchronous entries from the worker,
 * so the engine's promise never settled and the call ran into its time
 * limit: a timeout strike for a tool that did nothing wrong. Pumping the
 * queue from the worker would need polling entries (a background compile
 * posts its task with no signal), so the work is done here instead.
 *
 * What that means: the compile runs in the tool's own entry, under the
 * call's time and memory limits, like `new WebAssembly.Module`; the
 * promise settles at the next microtask checkpoint; a bad module rejects
 * with the engine's CompileError/LinkError/TypeError (a tool_error when the
 * tool lets it through, never a strike). V8 defines `compileStreaming` and
 * `instantiateStreaming` only for an embedder that streams; they are added
 * here after the WebAssembly Web API: the Response is checked (an `ok`
 * `application/wasm` response whose body is unread), read whole, then
 * compiled as above.
 */
import { intrinsics as I } from "./intrinsics.js";

type Wasm = {
  Module: new (bytes: unknown, options?: unknown) => object;
  Instance: new (module: object, imports?: unknown) => object;
};

/** Replaces `compile` and `instantiate` on this context's WebAssembly namespace (call before any tool code). */
export function installWasm(global: Record<string, unknown>): void {
  const wasm = global.WebAssembly as (Wasm & { Module: { customSections(module: unknown, name: string): unknown } }) | undefined;
  if (typeof wasm !== "object" || wasm === null) return;
  const FERAL_MODULE = wasm.Module;
  const FERAL_INSTANCE = wasm.Instance;
  // A brand check: Module.customSections throws a TypeError for anything but a real Module (instanceof can be lied to);
  // asked for a name no section has, it answers an empty array whatever the module's size (exports would list them all).
  const FERAL_MODULE_CUSTOM_SECTIONS = wasm.Module.customSections;

  function isModule(value: unknown): boolean {
    if (typeof value !== "object" || value === null) return false;
    try {
      I.apply(FERAL_MODULE_CUSTOM_SECTIONS, FERAL_MODULE, [value, "corral: a brand check"]);
      return true;
    } catch {
      return false;
    }
  }

  // Method shorthand: named "compile" and "instantiate", length 1, not constructors (as WebIDL's operations).
  // The optional arguments are read from `arguments`: a rest parameter's spread would run a tool's Array iterator.
  // WebAssembly Web API, "compile a potential WebAssembly response": a Response
  // (or a promise of one) of type application/wasm, ok, body not yet read.
  async function bytesOfResponse(source: unknown): Promise<ArrayBuffer> {
    const response = (await source) as { headers: { get(name: string): string | null }; ok: boolean; bodyUsed: boolean; status: number; arrayBuffer(): Promise<ArrayBuffer> };
    const ResponseClass = global.Response as (new () => object) | undefined;
    if (typeof ResponseClass !== "function" || !(response instanceof ResponseClass)) throw new TypeError("WebAssembly: the argument is not a Response");
    const type = response.headers.get("content-type");
    // Plain methods: what runs here is the tool's own Response, in its own isolate, on its behalf.
    const essence = type === null ? "" : (type.split(";")[0] ?? "").trim().toLowerCase();
    if (essence !== "application/wasm") throw new TypeError(`WebAssembly: the Response's MIME type is ${type === null ? "missing" : JSON.stringify(type)}, not "application/wasm"`);
    if (!response.ok) throw new TypeError(`WebAssembly: the Response's status is ${response.status}, not ok`);
    if (response.bodyUsed) throw new TypeError("WebAssembly: the Response's body was already read");
    return response.arrayBuffer();
  }

  const operations = {
    compile(bytes: unknown): Promise<object> {
      const options: unknown = arguments[1];
      return new I.Promise<object>((resolve) => resolve(new FERAL_MODULE(bytes, options)));
    },
    instantiate(source: unknown): Promise<object> {
      const imports: unknown = arguments[1];
      const options: unknown = arguments[2];
      return new I.Promise<object>((resolve, reject) => {
        if (isModule(source)) {
          resolve(new FERAL_INSTANCE(source as object, imports));
          return;
        }
        const module = new FERAL_MODULE(source, options);
        // The imports are read once the module is compiled, a turn later (WPT's "Synchronous options handling"),
        // as the engine's asynchronous instantiate does. Created as data properties: a setter a tool put on Object.prototype is not run.
        const compiled = I.ownPromise<void>((settle) => settle());
        I.ownThen(
          compiled,
          () => {
            try {
              resolve({ module, instance: new FERAL_INSTANCE(module, imports) });
            } catch (error) {
              reject(error);
            }
          },
          reject,
        );
      });
    },
    compileStreaming(source: unknown): Promise<object> {
      const options: unknown = arguments[1];
      return bytesOfResponse(source).then((bytes) => I.apply(operations.compile, operations, [bytes, options]) as Promise<object>);
    },
    instantiateStreaming(source: unknown): Promise<object> {
      const imports: unknown = arguments[1];
      const options: unknown = arguments[2];
      return bytesOfResponse(source).then((bytes) => I.apply(operations.instantiate, operations, [bytes, imports, options]) as Promise<object>);
    },
  };
  for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"] as const) {
    const was = I.ObjectGetOwnPropertyDescriptor(wasm, name);
    I.ObjectDefineProperty(wasm, name, {
      __proto__: null,
      value: operations[name],
      writable: was?.writable ?? true,
      enumerable: was?.enumerable ?? true,
      configurable: was?.configurable ?? true,
    } as PropertyDescriptor);
  }
}
