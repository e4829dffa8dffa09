/**
 * @module sandbox/guest/web/navigator
 * `navigator` as WinterTC's Minimum Common API has it: `userAgent` only,
 * naming the runtime (WinterTC's "Runtime-Name/version" form). It says
 * nothing of the host, its machine or its operator.
 */
import { intrinsics as I } from "../intrinsics.js";

export const USER_AGENT = "corral";

export class Navigator {
  constructor() {
    throw new TypeError("Illegal constructor");
  }
  get userAgent(): string {
    return USER_AGENT;
  }
}
I.ObjectDefineProperty(Navigator.prototype, Symbol.toStringTag, { __proto__: null, value: "Navigator", configurable: true } as PropertyDescriptor);

export function createNavigator(): Navigator {
  return I.ObjectCreate(Navigator.prototype) as Navigator;
}
