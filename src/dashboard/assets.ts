/**
 * @module src/dashboard/assets
 * The page's files: plain HTML, CSS and JavaScript shipped in the package
 * (copied to dist/ by the build), read once when the dashboard starts and
 * served from memory. Only these names are served: no path from a request
 * ever reaches the file system.
 */
import { readFileSync } from "node:fs";

const FILES = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/chart.js": { file: "chart.js", type: "text/javascript; charset=utf-8" },
  "/dom.js": { file: "dom.js", type: "text/javascript; charset=utf-8" },
  "/source.js": { file: "source.js", type: "text/javascript; charset=utf-8" },
  "/library.js": { file: "library.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
  "/favicon.svg": { file: "favicon.svg", type: "image/svg+xml" },
} as const;

export type Asset = { type: string; body: Buffer };

export function loadAssets(): Map<string, Asset> {
  const dir = new URL("./assets/", import.meta.url);
  return new Map(Object.entries(FILES).map(([path, { file, type }]) => [path, { type, body: readFileSync(new URL(file, dir)) }]));
}
