/**
 * @module sandbox/guest/zod-locales
 * Stands in for zod's `locales` namespace inside isolates. zod ships every
 * language (over half of the guest runtime's size); every new isolate would
 * parse and initialise them all. Tools get English messages; `z.locales.en`
 * still works.
 */
export { default as en } from "zod/v4/locales/en.js";
