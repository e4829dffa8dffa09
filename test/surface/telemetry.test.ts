/**
 * OpenTelemetry with the real SDK and its in-memory exporters: one
 * `corral.call` span per call with its outcome, a `corral.load` span per
 * load, nested calls as children of the context they are given, and the
 * metrics (calls by tool/source/outcome, durations, quarantined sources,
 * worker restarts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ROOT_CONTEXT, trace, SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { InMemoryMetricExporter, AggregationTemporality, MeterProvider, PeriodicExportingMetricReader, type MetricData } from "@opentelemetry/sdk-metrics";
import { SPAN_CALL, SPAN_LOAD, TELEMETRY_ATTRIBUTES as ATTR, TELEMETRY_METRICS as METRIC, type Host, type HostOptions } from "../../src/index.js";
import { childPids, toolSource, withHost } from "../helpers/host.js";

function sdk() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const collect = async (): Promise<MetricData[]> => {
    exporter.reset();
    await reader.forceFlush();
    return exporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
  };
  const shutdown = async () => {
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  };
  return { spans, tracerProvider, meterProvider, collect, shutdown };
}

/** Runs `fn` with a host whose telemetry goes to a fresh in-memory SDK. */
async function withTelemetry(fn: (host: Host, t: ReturnType<typeof sdk>) => Promise<void>, options: HostOptions = {}): Promise<void> {
  const t = sdk();
  try {
    await withHost((host) => fn(host, t), { ...options, telemetry: { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider } });
  } finally {
    await t.shutdown();
  }
}

const calls = (spans: ReadableSpan[]) => spans.filter((span) => span.name === SPAN_CALL);
const metric = (all: MetricData[], name: string) => all.find((m) => m.descriptor.name === name);

describe("telemetry", { timeout: 90_000 }, () => {
  it("makes one span per call with its outcome, and counts calls by tool, source and outcome", async () => {
    await withTelemetry(
      async (host, t) => {
        const loaded = await host.author({ agent: "otel", code: toolSource({ name: "echo", run: "return 'hi';" }) });
        assert.ok(loaded.ok);
        const failing = await host.author({ agent: "otel-bad", code: toolSource({ name: "boom", run: "throw new Error('no way');" }) });
        assert.ok(failing.ok);
        assert.equal((await host.call("echo", {})).ok, true);
        assert.equal((await host.call("echo", {})).ok, true);
        const bad = await host.call("boom", {});
        assert.equal(bad.ok, false);
        await host.call("no_such_tool", {});

        const spans = calls(t.spans.getFinishedSpans());
        assert.equal(spans.length, 4, "one span per call");
        const [first, , boom, unknown] = spans as [ReadableSpan, ReadableSpan, ReadableSpan, ReadableSpan];
        assert.equal(first.attributes["gen_ai.operation.name"], "execute_tool");
        assert.equal(first.attributes["gen_ai.tool.name"], "echo");
        assert.equal(typeof first.attributes["gen_ai.tool.call.id"], "string");
        assert.equal(first.attributes[ATTR.source], "agent:otel");
        assert.equal(first.attributes[ATTR.version], loaded.version);
        assert.equal(first.attributes[ATTR.outcome], "ok");
        assert.equal(typeof first.attributes[ATTR.warm], "boolean");
        assert.ok((first.attributes[ATTR.wallMs] as number) > 0);
        assert.equal(typeof first.attributes[ATTR.cpuMs], "number");
        assert.equal(typeof first.attributes[ATTR.heapBytes], "number");
        assert.equal(typeof first.attributes[ATTR.gateWaitMs], "number");
        assert.equal(first.status.code, SpanStatusCode.UNSET);
        assert.equal(boom.attributes[ATTR.outcome], "tool_error");
        assert.equal(boom.attributes["error.type"], "tool_error");
        assert.equal(boom.status.code, SpanStatusCode.ERROR);
        assert.match(boom.status.message ?? "", /no way/);
        assert.equal(unknown.attributes[ATTR.outcome], "unknown_tool");
        assert.equal(unknown.status.code, SpanStatusCode.ERROR);

        const loads = t.spans.getFinishedSpans().filter((span) => span.name === SPAN_LOAD);
        assert.equal(loads.length, 2);
        assert.equal(loads[0]?.attributes[ATTR.source], "agent:otel");
        assert.equal(loads[0]?.attributes[ATTR.tools], 1);

        const metrics = await t.collect();
        const counter = metric(metrics, METRIC.calls);
        const points = counter?.dataPoints ?? [];
        const count = (tool: string, outcome: string) => points.find((p) => p.attributes["gen_ai.tool.name"] === tool && p.attributes[ATTR.outcome] === outcome)?.value;
        assert.equal(count("echo", "ok"), 2);
        assert.equal(count("boom", "tool_error"), 1);
        // A name that is no tool does not make a series of its own.
        assert.equal(count("(unknown)", "unknown_tool"), 1);
        assert.equal(points.some((p) => p.attributes["gen_ai.tool.name"] === "no_such_tool"), false);
        const histogram = metric(metrics, METRIC.duration);
        assert.equal(histogram?.descriptor.unit, "s");
        const okDurations = histogram?.dataPoints.find((p) => p.attributes["gen_ai.tool.name"] === "echo");
        assert.equal((okDurations?.value as { count: number }).count, 2);
      },
    );
  });

  it("sets the gate's wait, times strikes out as errors, reports quarantined sources and worker restarts", async () => {
    await withTelemetry(
      async (host, t) => {
        assert.ok((await host.author({ agent: "spin", code: toolSource({ name: "spin", run: "for (;;) {}" }) })).ok);
        for (let i = 0; i < 3; i++) assert.equal((await host.call("spin", {}, { timeoutMs: 50 })).ok, false);
        const refused = await host.call("spin", {});
        assert.equal(refused.ok ? "ok" : refused.error.kind, "quarantined");
        const spans = calls(t.spans.getFinishedSpans());
        assert.deepEqual(spans.map((s) => s.attributes[ATTR.outcome]), ["timeout", "timeout", "timeout", "quarantined"]);
        assert.ok(spans.every((s) => s.status.code === SpanStatusCode.ERROR));
        assert.ok((spans[0]?.attributes[ATTR.gateWaitMs] as number) >= 25, "the gate waited 30 ms");

        let metrics = await t.collect();
        assert.equal(metric(metrics, METRIC.quarantined)?.dataPoints[0]?.value, 1);

        // A worker that dies is replaced: one restart.
        const before = new Set(childPids());
        const victim = childPids()[0];
        assert.ok(victim !== undefined);
        process.kill(victim, "SIGKILL");
        const deadline = Date.now() + 20_000;
        let restarts = 0;
        while (restarts === 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          metrics = await t.collect();
          restarts = Number(metric(metrics, METRIC.workerRestarts)?.dataPoints[0]?.value ?? 0);
        }
        assert.ok(restarts >= 1, `restarts ${restarts} (workers before: ${[...before].join(",")})`);
      },
      {
        beforeToolCall: async () => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return { action: "allow" };
        },
      },
    );
  });

  it("makes a call a child of the context it is given (a Code Mode script's nested call)", async () => {
    await withTelemetry(
      async (host, t) => {
        assert.ok((await host.author({ agent: "nest", code: toolSource({ name: "inner", run: "return 'in';" }) })).ok);
        const tracer = t.tracerProvider.getTracer("test");
        const script = tracer.startSpan("script");
        await host.call("inner", {}, { traceContext: trace.setSpan(ROOT_CONTEXT, script) });
        await host.call("inner", {});
        script.end();
        const [nested, alone] = calls(t.spans.getFinishedSpans());
        assert.equal(nested?.parentSpanContext?.spanId, script.spanContext().spanId);
        assert.equal(nested?.spanContext().traceId, script.spanContext().traceId);
        assert.equal(alone?.parentSpanContext, undefined);
      },
    );
  });
});
