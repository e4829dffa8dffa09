/**
 * @module sandbox/guest/web/idl-attributes
 * WebIDL's attributes are enumerable accessors on the interface's
 * prototype; a class's getters are not enumerable, so the classes that
 * stand for interfaces turn theirs so once, when they are defined.
 */
import { intrinsics as I } from "../intrinsics.js";

/** Makes each of `keys`, an accessor of `prototype`, enumerable. */
export function enumerableAttributes(prototype: object, keys: readonly string[]): void {
  for (const key of keys) {
    const descriptor = I.ObjectGetOwnPropertyDescriptor(prototype, key) as PropertyDescriptor;
    I.ObjectDefineProperty(prototype, key, { ...descriptor, enumerable: true });
  }
}
