/**
 * @module src/telemetry
 * OpenTelemetry spans and metrics of a host (names.ts lists them).
 */
export { CallSpan, Telemetry, type LoadSummary, type TelemetryProviders } from "./telemetry.js";
export { ATTR as TELEMETRY_ATTRIBUTES, METRIC as TELEMETRY_METRICS, SPAN_CALL, SPAN_LOAD } from "./names.js";
