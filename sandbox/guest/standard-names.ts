/**
 * @module sandbox/guest/standard-names
 * Gives the runtime's globals their standard `name`. The runtime bundle is
 * minified, so a class or function keeps the short name esbuild gave it
 * (`URL.name` read "r", `TextEncoder.name` "Zu"), and tools and their logs
 * see it in `constructor.name`. esbuild's keepNames would instead insert a
 * `__name(fn, "…")` call beside every function, run each time a closure is
 * made (on warm calls too) and defining through a plain object descriptor,
 * which a tool's `Object.prototype.get` turns into a throw. Here each global
 * is named once, when it is installed (a lazy global when it is built),
 * with intrinsics captured before any tool code and a descriptor that has
 * no prototype, so nothing a tool did can change what it does.
 */

const FERAL_DEFINE_PROPERTY = Object.defineProperty;
const FERAL_GET_OWN_PROPERTY_DESCRIPTOR = Object.getOwnPropertyDescriptor;
const FERAL_OWN_KEYS = Reflect.ownKeys;

/** Sets `fn.name` to `name` (as V8 has it: not writable, not enumerable, configurable); anything but a function is left alone. */
export function nameFunction<T>(fn: T, name: string): T {
  if (typeof fn !== "function") return fn;
  const was = FERAL_GET_OWN_PROPERTY_DESCRIPTOR(fn, "name");
  if (was !== undefined && was.value === name) return fn;
  FERAL_DEFINE_PROPERTY(fn, "name", { __proto__: null, value: name, writable: false, enumerable: false, configurable: true } as PropertyDescriptor);
  return fn;
}

/** Names each function-valued own data property of `object` after its key (a namespace like console). */
export function nameMembers<T extends object>(object: T): T {
  const keys = FERAL_OWN_KEYS(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== "string") continue;
    const descriptor = FERAL_GET_OWN_PROPERTY_DESCRIPTOR(object, key);
    if (descriptor !== undefined && "value" in descriptor) nameFunction(descriptor.value as unknown, key);
  }
  return object;
}
