/**
 * @module test/hostile/cpu.test
 * CPU abuse: loops in run, in getters, in timers, at top level and inside
 * builtins' callbacks; catastrophic regexps; runaway recursion.
 * The cases are test/hostile/cases/cpu-*.ts; see harness.ts for the header format.
 */
import { describeCategory } from "./harness.js";

describeCategory("cpu");
