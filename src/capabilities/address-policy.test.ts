/**
 * @module src/capabilities/address-policy.test
 * Which addresses a fetch may reach, in every form an address can take.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { privateRange, refuseAddress } from "./address-policy.js";
import { parseAllowEntry, matchAllowEntry, type AllowEntry } from "./net-allow.js";

const entry = (text: string) => parseAllowEntry(text) as AllowEntry;

describe("address policy", () => {
  it("names the range of every non-public address, in any form", () => {
    const cases: [string, string | undefined][] = [
      ["93.184.216.34", undefined],
      ["2606:4700::6810:84e5", undefined],
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["10.1.2.3", "private"],
      ["172.16.0.1", "private"],
      ["192.168.1.1", "private"],
      ["169.254.169.254", "linkLocal"],
      ["100.64.0.1", "carrierGradeNat"],
      ["0.0.0.0", "unspecified"],
      ["255.255.255.255", "broadcast"],
      ["224.0.0.1", "multicast"],
      ["::1", "loopback"],
      ["::", "unspecified"],
      ["fe80::1", "linkLocal"],
      ["fd00:ec2::254", "uniqueLocal"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:a9fe:a9fe", "linkLocal"],
      ["2002:7f00:1::", "loopback"],
      ["64:ff9b::a00:1", "private"],
      ["[::1]", "loopback"],
      ["not-an-ip", "not an IP address"],
    ];
    for (const [address, range] of cases) assert.equal(privateRange(address), range, address);
  });

  it("lets an entry that names an address reach it, and nothing else private", () => {
    assert.equal(refuseAddress("127.0.0.1", entry("http://127.0.0.1:8080")), undefined);
    assert.equal(refuseAddress("::ffff:127.0.0.1", entry("http://127.0.0.1:8080")), undefined);
    assert.match(refuseAddress("127.0.0.2", entry("http://127.0.0.1:8080")) ?? "", /loopback address/);
    assert.equal(refuseAddress("::1", entry("http://localhost:3000")), undefined);
    assert.match(refuseAddress("10.0.0.1", entry("http://localhost:3000")) ?? "", /private/);
    assert.match(refuseAddress("169.254.169.254", entry("https://api.example.com")) ?? "", /linkLocal/);
    assert.equal(refuseAddress("93.184.216.34", entry("https://api.example.com")), undefined);
  });
});

describe("allow-list entries", () => {
  it("parses schemes, ports, wildcards and address forms", () => {
    assert.deepEqual(
      ["api.example.com", "http://A.Example.com:8080", "*.example.com", "http://2130706433:81", "http://[::1]:9"].map((text) => {
        const parsed = entry(text);
        return [parsed.scheme, parsed.host, parsed.port, parsed.wildcard, parsed.listsAddress];
      }),
      [
        ["https:", "api.example.com", "443", false, false],
        ["http:", "a.example.com", "8080", false, false],
        ["https:", "example.com", "443", true, false],
        ["http:", "127.0.0.1", "81", false, true],
        ["http:", "[::1]", "9", false, true],
      ],
    );
  });

  it("refuses what is not an origin", () => {
    for (const text of ["ftp://a.b", "https://u:p@a.b", "https://a.b/path", "*.127.0.0.1", "http://"]) {
      assert.equal(typeof parseAllowEntry(text), "string", text);
    }
  });

  it("matches exact hosts, subdomains for wildcards, scheme and port", () => {
    const entries = ["https://api.example.com", "*.cdn.example", "http://127.0.0.1:8080"].map(entry);
    const admitted = (url: string) => matchAllowEntry(entries, new URL(url))?.text;
    assert.equal(admitted("https://API.example.com/x"), "https://api.example.com");
    assert.equal(admitted("https://api.example.com:443/"), "https://api.example.com");
    assert.equal(admitted("http://api.example.com/"), undefined);
    assert.equal(admitted("https://api.example.com:8443/"), undefined);
    assert.equal(admitted("https://evil-api.example.com/"), undefined);
    assert.equal(admitted("https://a.b.cdn.example/"), "*.cdn.example");
    assert.equal(admitted("https://cdn.example/"), undefined);
    assert.equal(admitted("https://xcdn.example/"), undefined);
    assert.equal(admitted("http://2130706433:8080/"), "http://127.0.0.1:8080");
  });
});
