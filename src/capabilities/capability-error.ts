/**
 * @module src/capabilities/capability-error
 * Why a capability request failed, as data: the relay hands it to the tool
 * as an error it can catch (its message names what was refused and why) and
 * the audit records its `code`. Never thrown past the capability layer.
 *
 * - `refused`: the grant or the policy does not allow it (an origin off the
 *   allow-list, a private address, a path outside the root, a quota);
 * - `too_large`: a body, file or value past its cap;
 * - `failed`: it was allowed but did not work (DNS, a reset, no such file);
 * - `timeout`: the call's time ran out while it was being performed.
 */
import { CapabilityError } from "../../sandbox/shared/capability-error.js";

export { CapabilityError };

export const refused = (message: string) => new CapabilityError("refused", message);
export const tooLarge = (message: string) => new CapabilityError("too_large", message);
export const failed = (message: string) => new CapabilityError("failed", message);
