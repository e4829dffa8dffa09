/**
 * @module src/capabilities/net-allow
 * The net allow-list: which origins a source's tools may fetch. An entry is
 * `[scheme://]host[:port]`: scheme `http` or `https` (https when left out),
 * the scheme's default port when the port is left out, and a host that is
 * an exact name, `*.name` (any subdomain of name, not name itself), or an IP
 * literal. Names are compared after the WHATWG URL parser's normalisation
 * (lower case, punycode, IPv4 forms such as `2130706433` made dotted).
 *
 * Private addresses: an entry whose host is an IP literal, or `localhost`,
 * *lists* that address (or loopback); only such an entry lets a fetch reach
 * a private, loopback, link-local or metadata address (see address-policy).
 */

export type AllowEntry = {
  text: string;
  scheme: "http:" | "https:";
  /** Lower-case host as the URL parser writes it; for a wildcard, the suffix after `*.`. */
  host: string;
  wildcard: boolean;
  port: string;
  /** The entry names an address (IP literal or localhost): it may reach that address even when private. */
  listsAddress: boolean;
};

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** The entry, or why it is not one. */
export function parseAllowEntry(text: string): AllowEntry | string {
  const trimmed = text.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  const wildcard = /^[a-z]+:\/\/\*\./i.test(withScheme);
  let url: URL;
  try {
    url = new URL(wildcard ? withScheme.replace("*.", "") : withScheme);
  } catch {
    return "is not an origin: write [http(s)://]host[:port], e.g. https://api.example.com or *.example.com";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https";
  if (url.username !== "" || url.password !== "") return "must not hold credentials";
  if ((url.pathname !== "/" && url.pathname !== "") || url.search !== "" || url.hash !== "") return "must be an origin only, with no path, query or fragment";
  const host = url.hostname;
  const isAddress = /^[0-9.]+$/.test(host) || host.startsWith("[");
  if (wildcard && isAddress) return "cannot put a wildcard on an IP address";
  return {
    text,
    scheme: url.protocol,
    host,
    wildcard,
    port: url.port === "" ? (DEFAULT_PORTS[url.protocol] as string) : url.port,
    listsAddress: !wildcard && (isAddress || host === "localhost"),
  };
}

/** The entry that admits `url` (already parsed by the URL parser), if any. */
export function matchAllowEntry(entries: readonly AllowEntry[], url: URL): AllowEntry | undefined {
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : url.port;
  const host = url.hostname;
  return entries.find(
    (entry) =>
      entry.scheme === url.protocol &&
      entry.port === port &&
      (entry.wildcard ? host.endsWith(`.${entry.host}`) && host.length > entry.host.length + 1 : host === entry.host),
  );
}
