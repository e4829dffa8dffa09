/**
 * @module src/telemetry/telemetry
 * Telemetry: a host's spans and metrics, through `@opentelemetry/api` only.
 * The user brings the SDK and its exporters; corral never depends on one.
 *
 * ```
 * host.call ─▶ startCall ─▶ span `corral.call` (parent: the call's traceContext, else the active context)
 *   gate ─▶ CallSpan.gateWaitMs
 *   result ─▶ CallSpan.end ─▶ attributes, status ─▶ span.end
 *                           └▶ corral.calls +1, corral.call.duration
 * host.load ─▶ traceLoad ─▶ span `corral.load`
 * pool replaces a worker ─▶ corral.worker.restarts +1
 * collection ─▶ corral.sources.quarantined (the host's quarantine view)
 * ```
 *
 * With no SDK registered the API hands out no-op tracers and meters: a call
 * then costs one non-recording span and no attribute work (checked with
 * isRecording()), which the bench measures. A tracer from the API's global
 * follows an SDK registered later; a meter does not (the metrics API has no
 * proxy), so the instruments are made again whenever the global meter
 * provider has changed since they were made.
 */
import {
  context,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type MeterProvider,
  type Span,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import type { ToolResult } from "../result.js";
import {
  ATTR,
  DURATION_BUCKETS_S,
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_NAME,
  GEN_AI_TOOL_TYPE,
  INSTRUMENTATION_SCOPE,
  METRIC,
  SPAN_CALL,
  SPAN_LOAD,
  UNKNOWN_TOOL,
} from "./names.js";

export type TelemetryProviders = {
  /** @default the API's global tracer provider (a no-op until an SDK registers one) */
  tracerProvider?: TracerProvider;
  /** @default the API's global meter provider (a no-op until an SDK registers one) */
  meterProvider?: MeterProvider;
};

/** What a load span records once the load is over. */
export type LoadSummary = { ok: boolean; source: string; version?: string; kind?: string; message?: string; tools?: number; cached?: boolean; manifestsFrom?: string };

type Instruments = { provider: MeterProvider; calls: Counter; duration: Histogram; restarts: Counter };

export class Telemetry {
  readonly #tracer: Tracer;
  readonly #meterProvider: MeterProvider | undefined;
  readonly #quarantined: () => number;
  #instruments: Instruments | undefined;

  /** `quarantined`: how many sources are quarantined now, read when a metric reader collects. */
  constructor(providers: TelemetryProviders, quarantined: () => number) {
    this.#tracer = (providers.tracerProvider ?? trace).getTracer(INSTRUMENTATION_SCOPE);
    this.#meterProvider = providers.meterProvider;
    this.#quarantined = quarantined;
  }

  #metrics(): Instruments {
    const provider = this.#meterProvider ?? metrics.getMeterProvider();
    if (this.#instruments?.provider === provider) return this.#instruments;
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    meter
      .createObservableGauge(METRIC.quarantined, { description: "Sources quarantined now, as this host's ledger view knows them", unit: "{source}" })
      .addCallback((result) => result.observe(this.#quarantined()));
    this.#instruments = {
      provider,
      calls: meter.createCounter(METRIC.calls, { description: "Tool calls by tool, source and outcome kind", unit: "{call}" }),
      duration: meter.createHistogram(METRIC.duration, {
        description: "Wall time of tool calls, from the call to its result",
        unit: "s",
        advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
      }),
      restarts: meter.createCounter(METRIC.workerRestarts, { description: "Sandbox worker processes replaced after one ended", unit: "{restart}" }),
    };
    return this.#instruments;
  }

  /**
   * Starts a call's span. `parent`: the context whose span the call belongs
   * to (a Code Mode script's call, for one); else the active context.
   */
  startCall(tool: string, callId: string, parent: Context | undefined): CallSpan {
    const within = parent ?? context.active();
    const span = this.#tracer.startSpan(
      SPAN_CALL,
      {
        kind: SpanKind.INTERNAL,
        attributes: { [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL, [GEN_AI_TOOL_NAME]: tool, [GEN_AI_TOOL_CALL_ID]: callId, [GEN_AI_TOOL_TYPE]: "function" },
      },
      within,
    );
    return new CallSpan(span, within, (result, attributes) => {
      const instruments = this.#metrics();
      instruments.calls.add(1, attributes);
      instruments.duration.record(result.metrics.wallMs / 1000, attributes);
    });
  }

  /** Runs a load inside its `corral.load` span. */
  async traceLoad<T>(work: () => Promise<T>, summarize: (result: T) => LoadSummary): Promise<T> {
    const span = this.#tracer.startSpan(SPAN_LOAD, { kind: SpanKind.INTERNAL }, context.active());
    try {
      const result = await work();
      if (span.isRecording()) endLoad(span, summarize(result));
      return result;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  }

  workerRestarted(): void {
    this.#metrics().restarts.add(1);
  }
}

/** One call's span, from the start of the call to its result. */
export class CallSpan {
  readonly #span: Span;
  readonly #parent: Context;
  readonly #count: (result: ToolResult, attributes: Attributes) => void;
  /** How long the gate took to decide, in ms; 0 when the call never reached it. */
  gateWaitMs = 0;

  constructor(span: Span, parent: Context, count: (result: ToolResult, attributes: Attributes) => void) {
    this.#span = span;
    this.#parent = parent;
    this.#count = count;
  }

  /**
   * The context with this call's span: pass it as a nested call's
   * `traceContext`. Made when asked (a context is a copied map): most calls
   * have no nested calls.
   */
  get context(): Context {
    return trace.setSpan(this.#parent, this.#span);
  }

  end(result: ToolResult): void {
    const outcome = result.ok ? "ok" : result.error.kind;
    const tool = outcome === "unknown_tool" ? UNKNOWN_TOOL : result.tool;
    this.#count(result, { [GEN_AI_TOOL_NAME]: tool, [ATTR.source]: result.source ?? "", [ATTR.outcome]: outcome });
    const span = this.#span;
    if (span.isRecording()) {
      span.setAttributes({
        [ATTR.outcome]: outcome,
        [ATTR.wallMs]: result.metrics.wallMs,
        [ATTR.cpuMs]: result.metrics.cpuMs,
        [ATTR.heapBytes]: result.metrics.heapBytes,
        [ATTR.gateWaitMs]: this.gateWaitMs,
      });
      if (result.source !== undefined) span.setAttribute(ATTR.source, result.source);
      if (result.version !== undefined) span.setAttribute(ATTR.version, result.version);
      if (result.warm !== undefined) span.setAttribute(ATTR.warm, result.warm);
      if (!result.ok) {
        span.setAttribute(ERROR_TYPE, outcome);
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.message });
      }
    }
    span.end();
  }
}

function endLoad(span: Span, summary: LoadSummary): void {
  span.setAttribute(ATTR.source, summary.source);
  if (summary.version !== undefined) span.setAttribute(ATTR.version, summary.version);
  if (summary.tools !== undefined) span.setAttribute(ATTR.tools, summary.tools);
  if (summary.cached !== undefined) span.setAttribute(ATTR.cached, summary.cached);
  if (summary.manifestsFrom !== undefined) span.setAttribute(ATTR.manifestsFrom, summary.manifestsFrom);
  span.setAttribute(ATTR.outcome, summary.ok ? "ok" : (summary.kind ?? "error"));
  if (!summary.ok) {
    span.setAttribute(ERROR_TYPE, summary.kind ?? "error");
    span.setStatus({ code: SpanStatusCode.ERROR, message: summary.message ?? "the load failed" });
  }
}
