/**
 * @module test/hostile/escape.test
 * Escape attempts: each tool looks for a way out of its isolate (process,
 * require, the host's globals, constructors, stack traces, Proxies, import(),
 * the input's prototypes, the vm2 family). A correct host answers the run
 * normally and the escape finds nothing, or the attempt throws (tool_error);
 * each case's header says which.
 * The cases are test/hostile/cases/escape-*.ts; see harness.ts for the header format.
 */
import { describeCategory } from "./harness.js";

describeCategory("escape");
