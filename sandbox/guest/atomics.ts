/**
 * @module sandbox/guest/atomics
 * Takes `Atomics.waitAsync` off a tool's global object before any tool
 * runs. V8 settles its promise from a task posted to the isolate's task
 * runner, like the engine's async WebAssembly (./wasm.ts): a wait that a
 * notify ends waited, unsettled, for the call's time limit (a timeout
 * strike), and a wait with a timeout posts a non-nestable delayed task,
 * which isolated-vm's runner answers with std::terminate (TaskRunner in
 * src/isolate/platform_delegate.h): the worker process aborted, a crash
 * strike, and every warm isolate in it went too. One isolate has one
 * thread, so an async wait could only ever be ended by the tool itself; a
 * tool that looks for waitAsync finds none, one that calls it gets a
 * TypeError (a tool_error, never a strike).
 */
export function removeWaitAsync(global: Record<string, unknown>): void {
  const atomics = global.Atomics as Record<string, unknown> | undefined;
  if (typeof atomics === "object" && atomics !== null) delete atomics.waitAsync;
}
