/**
 * @module sandbox/shared/tool-vocabulary
 * The words a tool may declare about itself, which both sides read: the
 * effects it has and how it is exposed. Enums only, so the host can import
 * them without pulling in anything of the worker.
 */
import { z } from "zod";

export const EFFECTS = ["read", "fs_write", "exec", "net_read", "net_write", "state_write", "ask_user", "sample_model"] as const;
export const Effect = z.enum(EFFECTS);
export type Effect = z.infer<typeof Effect>;

export const EXPOSURES = ["direct", "model_only", "codemode", "deferred", "hidden"] as const;
export const Exposure = z.enum(EXPOSURES);
export type Exposure = z.infer<typeof Exposure>;
