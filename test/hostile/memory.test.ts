/**
 * @module test/hostile/memory.test
 * Memory abuse: heap growth through arrays, maps and strings, memory outside
 * the heap (ArrayBuffers, typed arrays, WebAssembly memory), results that
 * expand when written, and growth at module top level.
 * The cases are test/hostile/cases/memory-*.ts; see harness.ts for the header format.
 */
import { describeCategory } from "./harness.js";

describeCategory("memory");
