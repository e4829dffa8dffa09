// Typings for the pure-JS packages bundled into the guest runtime that ship none.
declare module "whatwg-url" {
  export const URL: unknown;
  export const URLSearchParams: unknown;
}
// event-target-shim ships typings its package.json "exports" does not reach under NodeNext.
declare module "event-target-shim" {
  export const Event: typeof globalThis.Event;
  export type Event = globalThis.Event;
  export const EventTarget: typeof globalThis.EventTarget;
  export type EventTarget = globalThis.EventTarget;
  export function setErrorHandler(handler: ((error: Error) => void) | undefined): void;
  export function getEventAttributeValue(target: object, type: string): unknown;
  export function setEventAttributeValue(target: object, type: string, callback: unknown): void;
  /** Added at build time (scripts/trusted-events.mjs): makes `event.isTrusted` true, for the events the platform dispatches. */
  export function markTrusted<T extends object>(event: T): T;
}
