/**
 * @module src/host/arguments
 * What each public method of the Host accepts, as zod schemas, and the one
 * call per method that checks it (src/arguments/check.ts): a wrong argument
 * is a CorralError (`invalid_argument`) that says what was expected, never a
 * TypeError from inside. The obvious short form is accepted where there is
 * one: `host.load("./tool.ts")` loads a path.
 */
import { statSync } from "node:fs";
import { z } from "zod";
import type { Context } from "@opentelemetry/api";
import { Scope } from "../../sandbox/shared/task-parts.js";
import { checkArgument, checkOptionalArgument } from "../arguments/check.js";
import type { HostEventListener } from "../events.js";
import type { AskUser } from "../gate/index.js";
import { TalkBackOptions } from "../capabilities/talk-back.js";
import { Caller } from "../registry/caller.js";
import type { AuthorRequest, CallOptions, DeclarationOptions, LoadRequest } from "./types.js";

const Text = z.string();
const Path = z.string().min(1, "a path is not empty");
const Positive = z.number().positive().finite();

const Folder = Path.refine((path) => !path.includes("\0") && statSync(path, { throwIfNoEntry: false })?.isDirectory() === true, "no folder is at this path");

const LoadRequestSchema = z.union([
  Path.transform((path) => ({ path })),
  z.strictObject({ source: Text, code: Text }),
  z.strictObject({ path: Path, source: Text.optional() }),
]);

const AuthorRequestSchema = z.strictObject({ agent: Text, code: Text });

const AbortSignalSchema = z.custom<AbortSignal>((value) => value instanceof AbortSignal, "an AbortSignal");
const CallerSchema = z.custom<Caller>((value) => value instanceof Caller, "a Caller (createCaller())");
// An OpenTelemetry Context is an interface (getValue, setValue, deleteValue), not a class.
const ContextSchema = z.custom<Context>(
  (value) => typeof value === "object" && value !== null && typeof (value as { getValue?: unknown }).getValue === "function",
  "an OpenTelemetry Context",
);
export const CallOptionsSchema = z.strictObject({
  signal: AbortSignalSchema.optional(),
  scope: Scope.optional(),
  caller: CallerSchema.optional(),
  askUser: z.custom<AskUser>((value) => typeof value === "function", "a function (call, signal) => Promise<GateDecision>").optional(),
  timeoutMs: Positive.optional(),
  memoryMb: Positive.optional(),
  traceContext: ContextSchema.optional(),
  ...TalkBackOptions,
});

const IterableOfNames = z.custom<Iterable<string>>(
  (value) => typeof value === "string" || (typeof value === "object" && value !== null && typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function"),
  "an iterable of tool names",
);
const DeclarationsOptions = z.strictObject({ caller: CallerSchema.optional(), activated: IterableOfNames.optional() });

const QuarantineOptions = z.strictObject({
  reason: Text,
  until: z.number().nullable().optional(),
  actor: Text.optional(),
});
const ReleaseOptions = z.strictObject({ reason: Text.optional(), actor: Text.optional() });

const Listener = z.custom<HostEventListener>((value) => typeof value === "function", "a function");

const LOAD_EXPECTED = "a path, { path, source? } or { source, code }";

export const hostArguments = {
  load(request: unknown): LoadRequest {
    return checkArgument("host.load(request)", "request", LoadRequestSchema, request, LOAD_EXPECTED) as LoadRequest;
  },
  loadDirectory(dir: unknown): string {
    return checkArgument("host.loadDirectory(dir)", "dir", Folder, dir, "the path of a folder that exists");
  },
  author(request: unknown): AuthorRequest {
    return checkArgument("host.author(request)", "request", AuthorRequestSchema, request, "{ agent, code } with two strings");
  },
  call(name: unknown, options: unknown): CallOptions {
    checkArgument("host.call(name, input, options)", "name", Text, name, "a tool's name");
    return checkOptionalArgument("host.call(name, input, options)", "options", CallOptionsSchema, options, "{ signal?, scope?, caller?, askUser?, timeoutMs?, memoryMb?, traceContext?, onProgress?, onLog?, elicitUser?, sampleModel? }") ?? {};
  },
  declarations(options: unknown): DeclarationOptions {
    const parsed = checkOptionalArgument("host.declarations(options)", "options", DeclarationsOptions, options, "{ caller?, activated?: an iterable of tool names }") ?? {};
    const declared: DeclarationOptions = {};
    if (parsed.caller !== undefined) declared.caller = parsed.caller;
    if (parsed.activated !== undefined) declared.activated = parsed.activated;
    return declared;
  },
  on(listener: unknown): HostEventListener {
    return checkArgument("host.on(listener)", "listener", Listener, listener, "a function");
  },
  quarantine(options: unknown): z.infer<typeof QuarantineOptions> {
    return checkArgument("host.quarantine(source, options)", "options", QuarantineOptions, options, "{ reason, until?, actor? }");
  },
  release(options: unknown): z.infer<typeof ReleaseOptions> {
    return checkOptionalArgument("host.release(source, options)", "options", ReleaseOptions, options, "{ reason?, actor? }") ?? {};
  },
};
