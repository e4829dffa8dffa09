/**
 * The text that runs one Web Platform Test file, the same in a corral tool
 * and, for reference, in a Node worker thread: it sets up what the WPT
 * server and a browser's window would give (a `location`, `fetch` of the
 * test's own resource files, `importScripts`), evaluates the scripts at
 * global scope (WPT files are classic scripts: top-level declarations are
 * globals), and answers testharness.js's results when it completes or when
 * the file's time is up.
 *
 * Both sides get exactly this shim and nothing else, so a difference in
 * results is a difference of the runtimes. `fetch` is replaced because the
 * tests read their data files through it (a corral tool with no effects
 * has no network; Node would need the WPT server).
 */
export const RUN_WPT = String.raw`async function runWpt(input, load) {
  const g = globalThis;
  const base = "http://web-platform.test:8000/" + input.path + input.search;
  const origin = "http://web-platform.test:8000";
  const requested = [];
  const errors = [];
  const decoder = new TextDecoder();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) + "…" : s);
  if (!("self" in g)) g.self = g;
  g.GLOBAL = { isWindow: () => false, isWorker: () => false, isShadowRealm: () => false };
  g.location = new URL(base);
  g.META_TITLE = input.path;
  const read = (url) => {
    const u = new URL(String(url), base);
    if (u.origin !== origin) return undefined;
    const path = decodeURIComponent(u.pathname.slice(1));
    if (!requested.includes(path)) requested.push(path);
    return load(path);
  };
  const types = { json: "application/json", js: "text/javascript", idl: "text/plain", txt: "text/plain", html: "text/html", wasm: "application/wasm" };
  g.fetch = async (resource) => {
    const url = typeof resource === "object" && resource !== null && "url" in resource ? resource.url : String(resource);
    const bytes = read(url);
    if (bytes === undefined) throw new TypeError("wpt: not served here: " + url);
    const ext = new URL(url, base).pathname.split(".").pop();
    return new Response(bytes, { headers: { "content-type": types[ext] || "application/octet-stream" } });
  };
  const evaluate = (text, name) => {
    try {
      (0, eval)(text + "\n//# sourceURL=" + name);
    } catch (e) {
      errors.push(cut(name + ": " + String((e && e.stack) || e), 400));
    }
  };
  let harnessLoaded = false;
  g.importScripts = (...urls) => {
    for (const url of urls) {
      if (harnessLoaded && /\/testharness(report)?\.js$/.test(url)) continue;
      const bytes = read(url);
      if (bytes === undefined) throw new TypeError("wpt: not served here: " + url);
      evaluate(decoder.decode(bytes), url);
    }
  };
  const results = [];
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const [harness, ...rest] = input.scripts;
  evaluate(harness.text, harness.name);
  harnessLoaded = true;
  const entry = (t) => ({ name: cut(String(t.name), 300), status: t.status, message: t.message ? cut(String(t.message), 200) : null });
  g.add_result_callback((t) => results.push(entry(t)));
  g.add_completion_callback((tests, status) =>
    finish({ tests: tests.map(entry), harness: { status: status.status, message: status.message ? cut(String(status.message), 300) : null } }),
  );
  // One evaluation for the META scripts and the test: a classic script's
  // top-level const and class are seen by the scripts after it, which
  // separate indirect evals would not give.
  evaluate(rest.map((script) => script.text).join("\n;\n"), input.path);
  // The harness's own timeout first (tests still running are TIMEOUT), then
  // a backstop for a harness that never completes even so.
  const soft = setTimeout(() => { try { g.timeout(); } catch (e) { errors.push("timeout(): " + e); } }, input.timeoutMs);
  let hard;
  const backstop = new Promise((resolve) => (hard = setTimeout(() => resolve({ tests: results, harness: { status: 2, message: "never completed" } }), input.timeoutMs + 3000)));
  const answer = await Promise.race([finished, backstop]);
  clearTimeout(soft);
  clearTimeout(hard);
  return { ...answer, errors, requested };
}`;

/** testharness.js's status codes, by number. */
export const TEST_STATUS = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];
