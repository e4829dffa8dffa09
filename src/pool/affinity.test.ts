/**
 * @module src/pool/affinity.test
 * The routing rule on fake sessions: no workers, a clock of numbers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Reply } from "../../sandbox/shared/replies.js";
import { AffinityRouter } from "./affinity.js";
import { QUICK_STREAK } from "../../sandbox/shared/tuning.js";

type Fake = { name: string; ready: boolean; load: number };
const METRICS = { wallMs: 1, cpuMs: 1, heapBytes: 1 };

function setUp(pipelineDepth = 2, quickPipelineDepth = pipelineDepth) {
  let now = 0;
  const router = new AffinityRouter<Fake>({ pipelineDepth, quickPipelineDepth, stallMs: 50, now: () => now });
  const slow = new Map<Fake, boolean[]>();
  const a: Fake = { name: "a", ready: true, load: 0 };
  const b: Fake = { name: "b", ready: true, load: 0 };
  const sessions = [a, b];
  /** Routes a call of `key` as the pool does; answers the session or undefined. */
  const send = (key: string, waiting = 1): Fake | undefined => {
    const session = router.pick(sessions, key, { waiting });
    if (session === undefined) return undefined;
    const mayBeSlow = router.dispatched(session, key);
    slow.set(session, [...(slow.get(session) ?? []), mayBeSlow]);
    session.load++;
    return session;
  };
  const reply = (session: Fake, key: string, extra: Partial<Extract<Reply, { type: "call" }>> = {}) => {
    session.load--;
    const [mayBeSlow = true, ...rest] = slow.get(session) ?? [];
    slow.set(session, rest);
    router.settled(session, key, "call", mayBeSlow);
    router.replied(session, key, { type: "call", kind: "ok", metrics: METRICS, warm: true, ...extra });
    router.progressed(session);
  };
  return { router, a, b, sessions, send, reply, tick: (ms: number) => (now += ms) };
}

describe("AffinityRouter", { timeout: 60_000 }, () => {
  it("spreads new keys over workers by their count of homes, then keeps each key on its home", () => {
    const { router, a, b, send, reply } = setUp();
    for (const key of ["k1", "k2", "k3", "k4"]) reply(send(key) as Fake, key);
    assert.equal(router.homeCount(a), 2);
    assert.equal(router.homeCount(b), 2);
    for (let round = 0; round < 3; round++) {
      for (const key of ["k1", "k2", "k3", "k4"]) {
        const session = send(key) as Fake;
        assert.equal(session, router.home(key), `${key} went to its home`);
        reply(session, key);
      }
    }
  });

  it("a tie in homes goes to the worker that least recently became a home: a home nobody calls cannot make the other worker thrash", () => {
    const { router, a, b, send, reply } = setUp();
    // a is home to k1 and k2; b to "stale" (never called again) and k3.
    for (const [key, session] of [["k1", a], ["stale", b], ["k2", a], ["k3", b]] as const) {
      assert.equal(send(key), session, `${key} placed as planned`);
      reply(session, key);
    }
    // A new key, two homes each: a became a home less recently than b, so a
    // takes it, and its cache (two isolates) drops k1.
    assert.equal(send("k4"), a);
    reply(a, "k4", { evicted: ["k1"] });
    assert.equal(router.home("k1"), undefined);
    assert.equal(router.homeCount(a), router.homeCount(b));
    // k1 again, two homes each: a took the last key, so b, whose cache then
    // drops "stale" rather than a key that is called (always the first
    // worker would have a evict k2 for k1, then k4 for k2, and so on).
    assert.equal(send("k1"), b);
  });

  it("a warm-up homes its key as it is sent: the first call goes behind it, not cold to the idle worker; a warm-up that built nothing leaves no home", () => {
    const { router, a, b } = setUp();
    const warmUp = router.pick([a, b], "k", { isolate: true }) as Fake;
    const mayBeSlow = router.dispatched(warmUp, "k", "warm");
    warmUp.load++;
    assert.equal(mayBeSlow, true);
    assert.equal(router.home("k"), warmUp);
    const idle = warmUp === a ? b : a;
    assert.equal(idle.load, 0);
    assert.equal(router.pick([a, b], "k", { isolate: true, waiting: 1 }), warmUp, "not hot: a call behind its own warm-up");
    warmUp.load--;
    router.settled(warmUp, "k", "warm", mayBeSlow);
    router.replied(warmUp, "k", { type: "warm", kind: "compile_error", message: "x", metrics: METRICS });
    assert.equal(router.home("k"), undefined);
    assert.equal(router.isWarm(warmUp, "k"), false);
  });

  it("sends ahead to a busy home while no other worker is idle, and makes a key wait when its home is full", () => {
    const { router, a, b, send } = setUp();
    send("ka");
    send("kb");
    assert.equal(router.home("ka"), a);
    assert.equal(router.home("kb"), b);
    assert.equal(send("ka"), a, "a has room, b is not idle");
    assert.equal(send("ka"), undefined, "a is full, b is busy and cold for ka: wait");
    assert.equal(send("kb"), b);
  });

  it("a key's lone call never goes cold to an idle worker: it waits for its home (no thrash)", () => {
    const { router, a, b, send } = setUp();
    for (const kept of ["k2", "k3", "k4"]) router.replied(a, "describe:x", { type: "describe", kind: "ok", metrics: METRICS, kept });
    assert.equal(send("k1"), b, "homeless: b has fewer homes");
    assert.equal(send("k2"), a);
    assert.equal(b.load, 1);
    b.load = 0; // b answered
    assert.equal(send("k3"), a, "b is idle but cold for k3, and k3 has no other call: sent ahead to its home");
    assert.equal(send("k4"), undefined, "home full, b idle but cold: wait");
    assert.equal(router.isWarm(b, "k4"), false);
  });

  it("two calls of one tool at once run at once: the second spills to the idle worker", () => {
    const { a, b, send } = setUp();
    assert.equal(send("k1"), a);
    assert.equal(send("k1"), b);
  });

  it("a hot key (two or more waiting) spills to an idle worker, then b's warm copy takes what a has no room for", () => {
    const { router, a, b, send } = setUp();
    assert.equal(send("hot", 4), a);
    assert.equal(send("hot", 3), b, "b is idle and hot has calls waiting: spill");
    assert.equal(router.home("hot"), a, "the home stays");
    assert.equal(send("hot", 2), a);
    assert.equal(send("hot", 1), b, "a is full; hot is warm on b");
    assert.equal(send("hot", 1), undefined, "both full");
  });

  it("head of line: a home running a slow call takes nothing ahead once it has stalled; its keys go to a worker with room", () => {
    const { router, a, b, send, reply, tick } = setUp(4);
    assert.equal(send("slow"), a);
    router.replied(a, "describe:x", { type: "describe", kind: "ok", metrics: METRICS, kept: "a2" });
    assert.equal(router.home("a2"), a);
    assert.equal(send("b1"), b);
    assert.equal(send("a2"), a, "a has room and has not stalled, b is busy: sent ahead");
    tick(60);
    reply(b, "b1");
    assert.equal(send("b1"), b);
    assert.equal(send("a2"), b, "a has run its head for 60 ms: stalled; b has room and is not stalled");
    assert.equal(router.home("a2"), a, "a spill does not move the home");
  });

  it("a home that evicts its key, or ends, is home no more", () => {
    const { router, a, b, send, reply } = setUp();
    send("k1");
    send("k2");
    reply(a, "k1");
    reply(b, "k2");
    assert.equal(router.home("k1"), a);
    send("k2");
    reply(b, "k2", { evicted: ["k1"] }); // b never had k1: a's home stands
    assert.equal(router.home("k1"), a);
    assert.equal(send("k1"), a);
    reply(a, "k1", { evicted: ["k1"] });
    assert.equal(router.home("k1"), undefined);
    assert.equal(router.isWarm(a, "k1"), false);
    router.forget(b);
    assert.equal(router.home("k2"), undefined);
    assert.equal(router.homeCount(b), 0);
  });

  it("a call's own key stays warm unless its reply names it dropped", () => {
    const { router, a, send, reply } = setUp();
    assert.equal(send("k1"), a);
    assert.notEqual(send("k1", 2), a, "spilled to the idle worker");
    reply(a, "k1", { evicted: ["k1"], kind: "memory" });
    assert.equal(router.isWarm(a, "k1"), false);
    assert.equal(router.home("k1"), undefined);
    assert.equal(router.pick([a], "k1"), a, "homeless again: any worker with room");
  });

  it("a load's kept key makes its worker the home; loads themselves go where homes are fewest", () => {
    const { router, a, b, sessions } = setUp();
    router.replied(a, "describe:x", { type: "describe", kind: "ok", metrics: METRICS, kept: "x" });
    assert.equal(router.home("x"), a);
    assert.equal(router.pick(sessions, "describe:y", { isolate: false }), b);
    assert.equal(router.home("describe:y"), undefined);
  });

  it("sends known-quick calls deeper, and no deeper than pipelineDepth behind one that may be slow", () => {
    const { a, b, send, reply } = setUp(2, 8);
    const QUICK = { metrics: { wallMs: 0.2, cpuMs: 0.1, heapBytes: 1 } };
    for (let i = 0; i < QUICK_STREAK; i++) reply(send("q") as Fake, "q", QUICK);
    assert.equal(send("s"), b); // a new key goes to the worker with fewer homes; b stays busy
    for (let i = 0; i < 8; i++) assert.equal(send("q", 8 - i), a, `quick call ${i}`);
    assert.equal(send("q"), undefined, "a is eight deep, b is not warm for q and not idle");
    for (let i = 0; i < 8; i++) reply(a, "q", QUICK);
    assert.equal(send("t"), a); // unknown, so it may be slow
    assert.equal(send("q"), a); // within pipelineDepth
    assert.equal(send("q"), undefined, "behind a call that may be slow, the ordinary depth holds");
  });

  it("counts a key quick only after a streak of quick calls; one slow call starts it again", () => {
    const { a, b, send, reply } = setUp(2, 8);
    const QUICK = { metrics: { wallMs: 0.2, cpuMs: 0.1, heapBytes: 1 } };
    for (let i = 0; i < QUICK_STREAK - 1; i++) reply(send("q") as Fake, "q", QUICK);
    assert.equal(send("s"), b); // b stays busy
    assert.equal(send("q", 3), a);
    assert.equal(send("q", 2), a);
    assert.equal(send("q"), undefined, `${QUICK_STREAK - 1} quick calls are not a streak yet`);
    reply(a, "q", QUICK);
    reply(a, "q", { metrics: { wallMs: 30, cpuMs: 30, heapBytes: 1 } });
    for (let i = 0; i < QUICK_STREAK - 1; i++) reply(send("q") as Fake, "q", QUICK);
    assert.equal(send("q", 3), a);
    assert.equal(send("q", 2), a);
    assert.equal(send("q"), undefined, "the slow call started the count again");
  });
});

