// Not a case: a helper the contamination cases import (a relative file inside
// the cases folder), and the body of the probe tool in _probe-tool.ts. It
// checks the built-ins a tool could have polluted and answers "clean" or the
// list of what it found changed.

// Captured when the module loads, before any pollution, so the report can
// still be written in a context whose Array.prototype was replaced.
const FERAL_APPLY = Reflect.apply;
const FERAL_PUSH = Array.prototype.push;
const FERAL_JOIN = Array.prototype.join;

export function environmentReport(): string {
  const wrong: string[] = [];
  const note = (label: string) => FERAL_APPLY(FERAL_PUSH, wrong, [label]);
  const check = (label: string, test: () => boolean) => {
    try {
      if (!test()) note(label);
    } catch {
      note(`${label} (threw)`);
    }
  };
  const g = globalThis as Record<string, unknown>;
  check("Object.prototype has no enumerable keys", () => {
    for (const _key in {}) return false;
    return true;
  });
  check("no polluted property", () => !("polluted" in {}) && !("isAdmin" in {}));
  check("Object.prototype.toString", () => Object.prototype.toString.call([]) === "[object Array]");
  check("Object.prototype is extensible", () => Object.isExtensible(Object.prototype));
  check("Array.prototype.push", () => {
    const a: number[] = [];
    a.push(1, 2);
    return a.length === 2 && a[1] === 2;
  });
  check("Array.prototype.map/join", () => [1, 2].map((x) => x * 2).join("|") === "2|4");
  check("array iteration", () => [...[1, 2, 3]].length === 3);
  check("JSON.stringify", () => JSON.stringify({ a: [1] }) === '{"a":[1]}');
  check("JSON.parse", () => (JSON.parse('{"b":2}') as { b: number }).b === 2);
  check("Function.prototype.call/apply", () => Math.max.apply(null, [1, 3]) === 3 && Math.max.call(null, 4, 5) === 5);
  check("Reflect.apply", () => Reflect.apply(Math.min, null, [1, 2]) === 1);
  check("Promise.prototype.then", () => typeof Promise.prototype.then === "function" && Promise.prototype.then.name === "then");
  check("no leaked global", () => g.leaked === undefined && g.sharedSecret === undefined);
  check("setTimeout is the runtime's", () => typeof setTimeout === "function" && setTimeout.name !== "hijacked");
  check("String.prototype", () => "a-b".split("-").length === 2 && "abc".slice(1) === "bc");
  return wrong.length === 0 ? "clean" : (FERAL_APPLY(FERAL_JOIN, wrong, ["; "]) as string);
}
