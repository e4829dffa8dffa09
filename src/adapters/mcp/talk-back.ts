/**
 * @module src/adapters/mcp/talk-back
 * A tools/call request's talk-back handlers (CallOptions), made from its MCP
 * client: what a tool says goes on the request's own stream (over HTTP, to
 * the client that made the call), as the specification's utilities say.
 *
 * ```
 * ctx.progress ─▶ notifications/progress { progressToken, progress, total?, message? }   when the request had a progressToken
 *                 (a heartbeat every progressIntervalMs until the tool's first report; progress only ever increases)
 * ctx.log      ─▶ notifications/message { level, logger?, data }   at or above the level (logging/setLevel; default info)
 * console      ─▶ notifications/message { logger: "console" }      the call's lines, once the client set a level
 * ctx.elicit   ─▶ elicitation/create (form)      a client with the elicitation capability; else refused
 * ctx.sample   ─▶ sampling/createMessage          a client with the sampling capability; else refused
 * ```
 *
 * The question a tool asks names it and its source: the client shows it as
 * this server's, and its user should know which tool wants to know.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CreateMessageResultSchema, ElicitResultSchema, McpError, ErrorCode, SetLevelRequestSchema, type LoggingLevel, type ServerNotification, type ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { LOG_LEVELS, type LogLevel } from "../../../sandbox/shared/talk-back.js";
import type { TalkBack } from "../../capabilities/index.js";
import { canElicit } from "./elicit.js";

export type Notify = (notification: ServerNotification) => Promise<void>;
/** The tools/call handler's own `sendRequest`: a request sent on that call's stream. */
export type SendRequest = <S extends z.ZodType<object>>(request: ServerRequest, schema: S, options: { signal?: AbortSignal; timeout: number }) => Promise<z.infer<S>>;

const SEVERITY = new Map<string, number>(LOG_LEVELS.map((level, index) => [level, index]));

/** The session's logging level: `info` until the client sets one, and whether it did. */
export class LogLevels {
  #level: LogLevel = "info";
  #set = false;

  /** logging/setLevel's params, checked as the SDK's schema says; a bad level is -32602. */
  set(params: unknown): Record<string, never> {
    const parsed = SetLevelRequestSchema.shape.params.safeParse(params);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `logging/setLevel takes { level }: one of ${LOG_LEVELS.join(", ")}`);
    this.#level = parsed.data.level;
    this.#set = true;
    return {};
  }

  /** Whether a message at `level` is sent. */
  passes(level: string): boolean {
    return (SEVERITY.get(level) ?? 0) >= (SEVERITY.get(this.#level) ?? 0);
  }

  /** Console lines are sent only to a client that asked for log messages. */
  get asked(): boolean {
    return this.#set;
  }
}

type CallExtra = { signal: AbortSignal; sendNotification: Notify; sendRequest: SendRequest };

export type CallTalkBack = {
  options: TalkBack;
  /** Sends the call's console lines (result.logs) as log messages, when the client asked for them. */
  consoleLines(lines: readonly string[] | undefined): Promise<void>;
  stop(): void;
};

/** `[warn] text` (the guest console's lines) as a level and text. */
function consoleLevel(line: string): { level: LoggingLevel; text: string } {
  const match = /^\[(log|info|debug|warn|error|trace|corral)\] /.exec(line);
  const tag = match?.[1];
  const level: LoggingLevel = tag === "warn" ? "warning" : tag === "error" ? "error" : tag === "debug" || tag === "trace" ? "debug" : "info";
  return { level, text: match === null ? line : line.slice(match[0].length) };
}

export function talkBackFor(
  server: Server,
  extra: CallExtra,
  call: { name: string; progressToken: string | number | undefined; heartbeatMs: number; levels: LogLevels; timeoutMs: number },
): CallTalkBack {
  const send = (notification: ServerNotification) =>
    extra.sendNotification(notification).catch(() => {
      // The client is gone; the call's own signal says so.
    });
  const { progressToken } = call;
  let last = Number.NEGATIVE_INFINITY;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const progress = (value: number, total?: number, message?: string) => {
    // The specification: progress MUST increase with each notification.
    if (progressToken === undefined || !(value > last)) return;
    last = value;
    void send({ method: "notifications/progress", params: { progressToken, progress: value, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) } });
  };
  if (progressToken !== undefined) {
    const started = Date.now();
    let ticks = 0;
    heartbeat = setInterval(() => progress(++ticks, undefined, `${call.name} running for ${Math.round((Date.now() - started) / 1000)} s`), call.heartbeatMs);
  }
  const options: TalkBack = {
    onProgress: (reported) => {
      if (heartbeat !== undefined) clearInterval(heartbeat);
      heartbeat = undefined;
      progress(reported.progress, reported.total, reported.message);
    },
    onLog: (log) => {
      if (call.levels.passes(log.level)) void send({ method: "notifications/message", params: { level: log.level, data: log.data, ...(log.logger !== undefined ? { logger: log.logger } : {}) } });
    },
  };
  if (canElicit(server)) {
    options.elicitUser = async (question, context) => {
      const message = `The tool "${context.tool}" (source ${context.source}) asks: ${question.message}`;
      const answer = await extra.sendRequest(
        { method: "elicitation/create", params: { message, requestedSchema: question.requestedSchema as never } },
        ElicitResultSchema,
        { timeout: call.timeoutMs, ...(context.signal !== undefined ? { signal: context.signal } : {}) },
      );
      return answer.action === "accept" ? { action: "accept", content: answer.content ?? {} } : { action: answer.action };
    };
  }
  if (server.getClientCapabilities()?.sampling !== undefined) {
    options.sampleModel = async (request, context) => {
      const answer = await extra.sendRequest(
        { method: "sampling/createMessage", params: request as never },
        CreateMessageResultSchema,
        { timeout: call.timeoutMs, ...(context.signal !== undefined ? { signal: context.signal } : {}) },
      );
      return answer as never;
    };
  }
  return {
    options,
    async consoleLines(lines) {
      if (!call.levels.asked) return;
      for (const line of lines ?? []) {
        const { level, text } = consoleLevel(line);
        if (call.levels.passes(level)) await send({ method: "notifications/message", params: { level, logger: "console", data: text } });
      }
    },
    stop() {
      if (heartbeat !== undefined) clearInterval(heartbeat);
    },
  };
}
