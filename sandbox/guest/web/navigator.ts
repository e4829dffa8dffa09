/**
 * @module sandbox/guest/web/navigator
 * `navigator` as WinterTC's Minimum Common API has it: `userAgent`, naming
 * the runtime (WinterTC's "Runtime-Name/version" form), and HTML's
 * `platform` as the empty string, which HTML allows. Neither says anything
 * of the host, its machine or its operator.
 */
import { intrinsics as I } from "../intrinsics.js";
import { enumerableAttributes } from "./idl-attributes.js";

export const USER_AGENT = "corral";

export class Navigator {
  constructor() {
    throw new TypeError("Illegal constructor");
  }
  get userAgent(): string {
    return USER_AGENT;
  }
  get platform(): string {
    return "";
  }
}
enumerableAttributes(Navigator.prototype, ["userAgent", "platform"]);
I.ObjectDefineProperty(Navigator.prototype, Symbol.toStringTag, { __proto__: null, value: "Navigator", configurable: true } as PropertyDescriptor);

export function createNavigator(): Navigator {
  return I.ObjectCreate(Navigator.prototype) as Navigator;
}
