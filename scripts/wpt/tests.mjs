/**
 * Which Web Platform Test files to run, and what each one needs: its
 * `// META:` lines (scripts, timeout, variants) as WPT's own runner reads
 * them. Files that need a document (`.html`) are not run: neither a tool nor
 * Node has a DOM. `.any.js` and `.worker.js` are the runtime's tests;
 * `.window.js` files run too, and count only where Node passes them.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, dirname, posix } from "node:path";

/** The WPT folders that test WinterTC's Minimum Common API. */
export const AREAS = [
  "url", "encoding", "streams", "FileAPI", "xhr/formdata", "fetch/api", "html/webappapis",
  "dom/abort", "dom/events", "webidl", "WebCryptoAPI", "compression", "hr-time", "user-timing",
  "console", "urlpattern", "wasm/jsapi",
];

const KINDS = [".any.js", ".worker.js", ".window.js"];

function* walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "resources" && name !== "support") yield* walk(path);
    } else if (KINDS.some((kind) => name.endsWith(kind))) yield path;
  }
}

/** The META lines of a test file: `{ script: [...], timeout, variant: [...], global }`. */
export function readMeta(text) {
  const meta = { script: [], variant: [], timeout: "normal", global: null };
  for (const line of text.split("\n")) {
    const match = /^\/\/ META: *([a-z]+)=(.*)$/.exec(line.trim());
    if (!match) {
      if (line.trim() !== "" && !line.startsWith("//")) break;
      continue;
    }
    const [, key, value] = match;
    if (key === "script") meta.script.push(value.trim());
    else if (key === "variant") meta.variant.push(value.trim());
    else if (key === "timeout") meta.timeout = value.trim();
    else if (key === "global") meta.global = value.trim();
  }
  return meta;
}

/** Every test (a file, once per variant) under `areas`, with its path relative to `wpt`. */
export function listTests(wpt, areas = AREAS) {
  const tests = [];
  for (const area of areas) {
    for (const file of walk(join(wpt, area))) {
      const path = relative(wpt, file).split("\\").join("/");
      const meta = readMeta(readFileSync(file, "utf8"));
      const variants = meta.variant.length > 0 ? meta.variant : [""];
      for (const search of variants) tests.push({ id: path + search, path, search, area, meta });
    }
  }
  return tests;
}

/** A script URL of a META line, resolved to a path inside `wpt`. */
const resolveScript = (testPath, src) =>
  src.startsWith("/") ? src.slice(1) : posix.normalize(posix.join(dirname(testPath), src));

/** The scripts of one test, in order: testharness.js, the META scripts, the test itself. */
export function scriptsOf(wpt, test) {
  // A META script missing from the checkout fails the file the same way on both sides.
  const read = (path) => {
    try {
      return { name: "/" + path, text: readFileSync(join(wpt, path), "utf8") };
    } catch {
      return { name: "/" + path, text: `throw new Error("wpt: no such script in the checkout: /${path}");` };
    }
  };
  const scripts = [read("resources/testharness.js")];
  for (const src of test.meta.script) scripts.push(read(resolveScript(test.path, src)));
  scripts.push(read(test.path));
  return scripts;
}

/** The file's time in ms: WPT gives 10 s to a normal test and 60 s to a long one; a tool's limit is 60 s. */
export const timeoutOf = (test) => (test.meta.timeout === "long" ? 45_000 : 15_000);
