/**
 * @module test/hostile/verdict.test
 * The second set: tools aimed at the runtime, the serializer, the console,
 * timers, load-versus-call limits and warm reuse. Each must get the right
 * kind and no false strike (every expectation here that is not a limit is
 * a tool's own outcome). The cases are test/hostile/cases/verdict-*.ts.
 */
import { describeCategory } from "./harness.js";

describeCategory("verdict");
