/**
 * @module test/hostile/shared-host
 * One real host for a whole describe block: opened with withHost (so its
 * private cache and the no-worker-left check come with it) in `before`, and
 * closed in `after`. Used by the hostile runners and by src/host.test.ts.
 */
import assert from "node:assert/strict";
import type { Host, HostOptions } from "../../src/index.js";
import { childPids, withHost } from "../helpers/host.js";

export function sharedHost(options: HostOptions = {}) {
  let host: Host | undefined;
  let release: () => void = () => {};
  let finished: Promise<void> | undefined;
  let baseline: number[] = [];
  return {
    options,
    get host(): Host {
      assert.ok(host !== undefined, "the shared host is not open");
      return host;
    },
    /** Worker processes of this host alive now (pids not alive before it opened). */
    workerPids(): number[] {
      return childPids().filter((pid) => !baseline.includes(pid));
    },
    start(): Promise<void> {
      baseline = childPids();
      return new Promise<void>((ready, fail) => {
        finished = withHost(async (opened) => {
          host = opened;
          ready();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }, options);
        finished.catch(fail);
      });
    },
    async stop(): Promise<void> {
      release();
      await finished;
      host = undefined;
    },
  };
}
export type SharedHost = ReturnType<typeof sharedHost>;
