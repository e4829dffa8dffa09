/**
 * @module test/hostile/async.test
 * Asynchronous abuse: promises that never settle, microtask floods, timer
 * storms and chains, hostile rejections, work left behind after returning.
 * The cases are test/hostile/cases/async-*.ts; see harness.ts for the header format.
 */
import { describeCategory } from "./harness.js";

describeCategory("async");
