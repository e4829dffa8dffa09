/**
 * @module src/capabilities/address-policy
 * Which IP addresses a fetch may connect to. Only ordinary public unicast
 * addresses, unless the allow-list entry that admitted the URL names the
 * address itself (an IP literal) or is `localhost` (loopback only). Refused
 * otherwise: private (10/8, 172.16/12, 192.168/16), loopback, link-local
 * (169.254/16, where cloud metadata lives, fe80::/10), unique-local
 * (fc00::/7), CGNAT, multicast, broadcast, unspecified and reserved ranges,
 * and the IPv6 forms that embed an IPv4 address (mapped, 6to4, Teredo,
 * NAT64) are judged by the address inside. Judged on the address actually
 * connected to, after DNS, so a name that resolves (or re-resolves) to a
 * private address is refused.
 */
import ipaddr from "ipaddr.js";
import type { AllowEntry } from "./net-allow.js";

/** The address in its plain form: an IPv4-mapped IPv6 address becomes IPv4. */
function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return ipaddr.process(address.replace(/^\[|\]$/g, ""));
  } catch {
    return undefined;
  }
}

/** The IPv4 address an IPv6 transition form carries (6to4, Teredo, NAT64), if any. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = address.range();
  const bytes = address.toByteArray();
  if (range === "6to4") return new ipaddr.IPv4(bytes.slice(2, 6));
  if (range === "rfc6052" || range === "rfc6145") return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === "teredo") return new ipaddr.IPv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff));
  return undefined;
}

/** Why `address` is not public, or undefined when it is. */
export function privateRange(address: string): string | undefined {
  const parsed = normalise(address);
  if (parsed === undefined) return "not an IP address";
  if (parsed.kind() === "ipv6") {
    const inner = embeddedIpv4(parsed as ipaddr.IPv6);
    if (inner !== undefined) return privateRange(inner.toString());
  }
  const range = parsed.range();
  return range === "unicast" ? undefined : range;
}

/** Undefined when the fetch admitted by `entry` may connect to `address`; else why not. */
export function refuseAddress(address: string, entry: AllowEntry): string | undefined {
  const range = privateRange(address);
  if (range === undefined) return undefined;
  if (entry.listsAddress) {
    const parsed = normalise(address);
    if (entry.host === "localhost" && range === "loopback") return undefined;
    const listed = normalise(entry.host);
    if (parsed !== undefined && listed !== undefined && parsed.kind() === listed.kind() && parsed.toNormalizedString() === listed.toNormalizedString()) {
      return undefined;
    }
  }
  return `${address} is a ${range} address, and no allow-list entry names it`;
}
