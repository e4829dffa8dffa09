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
 * tool lets it through, never a strike). `compileStreaming` and
 * `instantiateStreaming` do not exist in an isolate (V8 defines them only
 * for an embedder that streams), and are not added.
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
  const operations = {
    compile(bytes: unknown): Promise<object> {
      const options: unknown = arguments[1];
      return new I.Promise<object>((resolve) => resolve(new FERAL_MODULE(bytes, options)));
    },
    instantiate(source: unknown): Promise<object> {
      const imports: unknown = arguments[1];
      const options: unknown = arguments[2];
      return new I.Promise<object>((resolve) => {
        if (isModule(source)) {
          resolve(new FERAL_INSTANCE(source as object, imports));
          return;
        }
        const module = new FERAL_MODULE(source, options);
        // Created as data properties: a setter a tool put on Object.prototype is not run.
        resolve({ module, instance: new FERAL_INSTANCE(module, imports) });
      });
    },
  };
  for (const name of ["compile", "instantiate"] as const) {
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
