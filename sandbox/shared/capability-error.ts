/**
 * @module sandbox/shared/capability-error
 * The error a capability request fails with, on both sides: the host's
 * capability layer makes one when it refuses or fails (never thrown past
 * it: it travels as `{ code, message }`), and the guest rejects the tool's
 * promise with one rebuilt from that answer. `code` is one of
 * CAPABILITY_ERROR_CODES (docs/api.md lists them).
 */
import type { CapabilityErrorCode } from "./capability-messages.js";

export class CapabilityError extends Error {
  override name = "CapabilityError";
  constructor(
    readonly code: CapabilityErrorCode,
    message: string,
  ) {
    super(message);
  }
}
