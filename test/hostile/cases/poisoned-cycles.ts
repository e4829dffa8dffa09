// attempts: return cyclic data: an object that contains itself, an array
// that contains itself, and a Map that holds itself as a value.
// expect: ok
// expect-output: {"name":"root","self":"[Circular]","list":[1,"[Circular]"],"map":[["me","[Circular]"]]}
import { defineTool } from "corral";
import { z } from "zod";

export default defineTool({
  name: "poisoned-cycles",
  description: "hostile case: cycles",
  input: z.object({}),
  effects: [],
  limits: { timeoutMs: 1000, memoryMb: 32 },
  run() {
    const root: Record<string, unknown> = { name: "root" };
    root.self = root;
    const list: unknown[] = [1];
    list.push(list);
    root.list = list;
    const map = new Map<string, unknown>();
    map.set("me", map);
    root.map = map;
    return root;
  },
});
