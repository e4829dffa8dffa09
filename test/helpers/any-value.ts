/**
 * @module test/helpers/any-value
 * fast-check's `anything` with every kind of value it can make switched on
 * (BigInts, boxed values, Dates, Maps, Sets, null prototypes, sparse and
 * typed arrays, Unicode text): what a tool may return or throw. Shared by the
 * result writer's properties (sandbox/guest/serialize.test.ts) and the
 * hostile thrown values (test/hostile/thrown-values.ts).
 */
import fc from "fast-check";

/** How deep and how wide the values go; fast-check's defaults where left out. */
export type AnyValueLimits = { maxDepth: number; maxKeys?: number };

export function anyValue(limits: AnyValueLimits): fc.Arbitrary<unknown> {
  return fc.anything({
    ...limits,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    withUnicodeString: true,
  });
}
