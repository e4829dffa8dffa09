/**
 * @module src/capabilities
 * Capabilities: what a tool may reach beyond computing (fetch, ctx.fs,
 * ctx.state) and what it may say to its caller (progress, log, elicit,
 * sample), judged and performed by the host.
 */
export { CapabilitiesOptions, CapabilityGrant, CAPABILITY_DEFAULTS, createGrantResolver, type SourceGrant } from "./options.js";
export { CapabilityBroker, undeclaredMessage, type OpenCall } from "./broker.js";
export { createHostCapabilities, capabilityStoreFor, type HostCapabilities } from "./host-capabilities.js";
export type { CapabilityStore, CapabilityUse, CapabilityUses, CapabilityCounter, CapabilityOutcome, StateLimits, StateUsage } from "./capability-store.js";
export { LATEST_USES_SHOWN } from "./capability-store.js";
export { MemoryCapabilityStore } from "./memory-capability-store.js";
export { SqliteCapabilityStore } from "./sqlite-capability-store.js";
export { PostgresCapabilityStore } from "./postgres-capability-store.js";
export { talkBackOf, type TalkBack, type TalkBackCall, type ToolProgress, type ToolLog, type ElicitQuestion, type SampleParams } from "./talk-back.js";
