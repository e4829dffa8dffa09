// An esbuild plugin for the guest's lazy web script: event-target-shim makes
// every Event's `isTrusted` an own data property `false`, which nothing can
// change after. DOM says it is an own accessor ([LegacyUnforgeable]), shared
// by all events, and true for the events the platform itself dispatches (an
// AbortSignal's "abort", reportError's "error"). This rewrites that one
// statement of the pinned version to such a getter over a WeakSet, and adds
// `markTrusted(event)` for the runtime; a changed shim fails the build
// rather than silently keep untrusted platform events.
import { readFile } from "node:fs/promises";

const UNTRUSTED = /Object\.defineProperty\(this, "isTrusted", \{\s*value: false,\s*enumerable: true,\s*\}\);/;
const TRUSTED_SLOT = `Object.defineProperty(this, "isTrusted", __corralIsTrusted);`;
const HELPERS = `
const __corralTrusted = new WeakSet();
const __corralIsTrusted = { __proto__: null, get: Object.getOwnPropertyDescriptor({ get isTrusted() { return __corralTrusted.has(this); } }, "isTrusted").get, enumerable: true, configurable: false };
export function markTrusted(event) { __corralTrusted.add(event); return event; }
`;

export const trustedEvents = {
  name: "trusted-events",
  setup(build) {
    build.onLoad({ filter: /event-target-shim[\\/]index\.m?js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!UNTRUSTED.test(source)) {
        return { errors: [{ text: `event-target-shim's Event constructor changed (${args.path}): update scripts/trusted-events.mjs` }] };
      }
      return { contents: HELPERS + source.replace(UNTRUSTED, TRUSTED_SLOT), loader: "js" };
    });
  },
};
