/**
 * @module src/ledger/testing/record-loop
 * A child process for the durability tests: opens the ledger named by
 * argv[2] (a SQLite file or a postgres:// URL), quarantines HELD_SOURCE by hand, then records loopCall(i) for
 * ever, writing "recorded <i>" to stdout only after record() has returned,
 * until the parent kills it with SIGKILL. On Linux a write to a pipe is
 * synchronous, so a line the parent reads is a record that was committed.
 */
import { Ledger } from "../ledger.js";
import { HELD_REASON, HELD_SOURCE, loopCall } from "./loop-calls.js";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: record-loop.js <ledger.db | postgres://…>");

const ledger = new Ledger({ store: path });
await ledger.quarantine(HELD_SOURCE, { reason: HELD_REASON, actor: "durability-test" });
process.stdout.write("quarantined\n");
for (let index = 0; ; index++) {
  await ledger.record(loopCall(index, Date.now()));
  process.stdout.write(`recorded ${index}\n`);
}
