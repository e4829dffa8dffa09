/**
 * @module test/hostile/crash-worker.test
 * Attempts to crash the sandbox worker process from inside an isolate: stack
 * overflows in odd places (getters, the runtime's own code, describe, Wasm),
 * natively expensive work that does not check for termination (huge regexp
 * compiles, typed array sorts, Atomics.wait), lying comparators, fatal
 * out-of-memory requests, values structured clone chokes on. A correct host
 * answers one exact kind (timeout, memory, crash or tool_error, or ok when
 * the attempt fails harmlessly) and the next call works.
 * The cases are test/hostile/cases/crash-*.ts.
 */
import { describeCategory } from "./harness.js";

describeCategory("crash");
