/**
 * @module src/dashboard
 * The audit dashboard: createDashboard and its options.
 */
export { createDashboard, type Dashboard } from "./server.js";
export { DASHBOARD_DEFAULTS, DashboardOptions } from "./options.js";
export { CONTENT_SECURITY_POLICY } from "./guard.js";
