/**
 * @module src/capabilities/fs-root.test
 * ctx.fs on a real temporary workspace: what the grant allows works; every
 * escape (.., absolute paths, NUL bytes, links out, a link swapped in after
 * the check, devices, FIFOs, hard links, oversize files) is refused and
 * nothing outside the root is touched.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performFs, type FsRequest } from "./fs-root.js";
import { CapabilityError } from "./capability-error.js";
import type { FsPolicy } from "./options.js";

let base: string;
let root: string;
let outside: string;
let policy: FsPolicy;

before(() => {
  base = mkdtempSync(join(tmpdir(), "corral-fs-"));
  root = join(base, "workspace");
  outside = join(base, "outside");
  mkdirSync(join(root, "docs"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "docs", "a.txt"), "alpha");
  writeFileSync(join(outside, "secret.txt"), "secret");
  symlinkSync(outside, join(root, "link-out"));
  symlinkSync(join(outside, "secret.txt"), join(root, "secret-link"));
  policy = { root, maxFileBytes: 1024, maxDirEntries: 100 };
});
after(() => rmSync(base, { recursive: true, force: true }));

async function refusal(request: FsRequest, code: string, pattern: RegExp, hooks = {}): Promise<void> {
  await assert.rejects(performFs(request, policy, hooks), (error: unknown) => {
    assert.ok(error instanceof CapabilityError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("ctx.fs confinement", { timeout: 30_000 }, () => {
  it("reads, lists, stats, writes, makes and removes inside the root", async () => {
    assert.equal(Buffer.from((await performFs({ op: "readFile", path: "docs/a.txt" }, policy)) as Uint8Array).toString(), "alpha");
    assert.deepEqual(await performFs({ op: "readdir", path: "docs" }, policy), [{ name: "a.txt", type: "file" }]);
    const listing = (await performFs({ op: "readdir", path: "" }, policy)) as { name: string; type: string }[];
    assert.deepEqual(listing.map((entry) => `${entry.name}:${entry.type}`), ["docs:directory", "link-out:symlink", "secret-link:symlink"]);
    assert.equal(((await performFs({ op: "stat", path: "./docs/a.txt" }, policy)) as { size: number }).size, 5);
    await performFs({ op: "mkdir", path: "out/deep/er", recursive: true }, policy);
    await performFs({ op: "writeFile", path: "out/deep/er/b.txt", data: new TextEncoder().encode("bravo") }, policy);
    assert.equal(readFileSync(join(root, "out/deep/er/b.txt"), "utf8"), "bravo");
    await performFs({ op: "writeFile", path: "out/deep/er/b.txt", data: new TextEncoder().encode("c") }, policy);
    assert.equal(readFileSync(join(root, "out/deep/er/b.txt"), "utf8"), "c");
    await refusal({ op: "rm", path: "out" }, "failed", /is a directory/);
    await performFs({ op: "rm", path: "out", recursive: true }, policy);
    assert.equal(existsSync(join(root, "out")), false);
  });

  it("refuses .., absolute paths and NUL bytes before touching anything", async () => {
    await refusal({ op: "readFile", path: "../outside/secret.txt" }, "refused", /"\.\." may not leave/);
    await refusal({ op: "readFile", path: "docs/../../outside/secret.txt" }, "refused", /"\.\." may not leave/);
    await refusal({ op: "readFile", path: join(outside, "secret.txt") }, "refused", /absolute path/);
    await refusal({ op: "writeFile", path: "docs/a.txt\0.png", data: new Uint8Array(1) }, "refused", /NUL byte/);
    await refusal({ op: "rm", path: "", recursive: true }, "refused", /workspace root itself/);
  });

  it("never follows a symbolic link, in the middle or at the end", async () => {
    await refusal({ op: "readFile", path: "link-out/secret.txt" }, "refused", /symbolic link/);
    await refusal({ op: "readFile", path: "secret-link" }, "refused", /not a regular file \(symlink\)/);
    await refusal({ op: "writeFile", path: "secret-link", data: new TextEncoder().encode("pwned") }, "refused", /symbolic link/);
    await refusal({ op: "readdir", path: "link-out" }, "refused", /symbolic link/);
    await refusal({ op: "mkdir", path: "link-out/new", recursive: true }, "refused", /symbolic link/);
    await performFs({ op: "rm", path: "link-out" }, policy).catch(() => undefined);
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "secret");
    assert.equal(existsSync(join(outside, "new")), false);
    symlinkSync(outside, join(root, "link-out"), "dir");
  });

  it("refuses a link swapped in between the check and the open", async () => {
    writeFileSync(join(root, "swap.txt"), "fine");
    const swap = (target: string) => {
      unlinkSync(target);
      symlinkSync(join(outside, "secret.txt"), target);
    };
    await refusal({ op: "readFile", path: "swap.txt" }, "refused", /symbolic link/, { afterCheck: swap });
    unlinkSync(join(root, "swap.txt"));
  });

  it("refuses FIFOs, hard links for writing, and oversize files", async () => {
    execFileSync("mkfifo", [join(root, "pipe")]);
    await refusal({ op: "readFile", path: "pipe" }, "refused", /not a regular file \(other\)/);
    await refusal({ op: "writeFile", path: "pipe", data: new Uint8Array(1) }, "failed", /"pipe"/);
    linkSync(join(outside, "secret.txt"), join(root, "hard.txt"));
    await refusal({ op: "writeFile", path: "hard.txt", data: new TextEncoder().encode("pwned") }, "refused", /hard links/);
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "secret");
    writeFileSync(join(root, "big.bin"), Buffer.alloc(2048));
    await refusal({ op: "readFile", path: "big.bin" }, "too_large", /2048 bytes, more than the 1024/);
    await refusal({ op: "writeFile", path: "new.bin", data: new Uint8Array(4096) }, "too_large", /4096 bytes/);
    assert.equal(existsSync(join(root, "new.bin")), false);
  });

  it("refuses device files", async () => {
    // A device node cannot be made without privileges everywhere; /dev/null reached through the root's own path is refused as absolute, and a
    // workspace whose root is /dev still reads only regular files.
    await assert.rejects(performFs({ op: "readFile", path: "null" }, { ...policy, root: "/dev" }), /not a regular file \(other\)/);
  });
});
