/**
 * @module sandbox/guest/web/tr46-ascii
 * Stands in for tr46 inside the URL script (scripts/build.mjs redirects
 * whatwg-url's `require("tr46")` here). UTS #46 processing of an all-ASCII
 * domain with no `xn--` label, under the non-strict options the URL parser
 * uses, is lower-casing (checked for every ASCII code point against tr46
 * itself, and by the conformance test against Node). tr46's mapping table
 * costs ~2 MB of heap and several ms to build, so it is loaded only for a
 * host that needs it: non-ASCII, punycode, or strict options.
 */
type Tr46Options = {
  checkHyphens?: boolean;
  useSTD3ASCIIRules?: boolean;
  verifyDNSLength?: boolean;
  [option: string]: unknown;
};
type Tr46 = {
  toASCII(domain: string, options: Tr46Options): string | null;
  toUnicode(domain: string, options: Tr46Options): { domain: string; error: boolean };
};

let real: Tr46 | undefined;
function tr46(): Tr46 {
  real ??= require("tr46/index.js") as Tr46;
  return real;
}

function isPlainAscii(domain: string, options: Tr46Options): boolean {
  return (
    options.checkHyphens !== true &&
    options.useSTD3ASCIIRules !== true &&
    options.verifyDNSLength !== true &&
    /^[\x00-\x7f]*$/.test(domain) &&
    !/(?:^|\.)xn--/i.test(domain)
  );
}

export function toASCII(domain: string, options: Tr46Options): string | null {
  return isPlainAscii(domain, options) ? domain.toLowerCase() : tr46().toASCII(domain, options);
}

export function toUnicode(domain: string, options: Tr46Options): { domain: string; error: boolean } {
  return tr46().toUnicode(domain, options);
}
