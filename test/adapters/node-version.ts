/**
 * @module test/adapters/node-version
 * The newest `ai` (7.x) and `openai` (7.x) need Node 22 or later: their tests
 * run under Node 22+ (CI runs the suite again on Node 26) and are skipped,
 * with this reason printed, on older Node.
 */
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

export function skipBelowNode22(sdk: string): string | false {
  return NODE_MAJOR >= 22 ? false : `${sdk} needs Node 22 or later; this is Node ${process.versions.node} (CI runs them on Node 26)`;
}
