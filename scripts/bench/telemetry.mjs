// What corral's OpenTelemetry hooks cost a call: a host's Telemetry starting
// and ending a call's span (and counting it) the way runCall does, with no
// SDK registered (the API's no-ops, what every user without one pays), and
// with the real SDK and in-memory exporters for contrast. Measured in the
// bench process alone: the hooks run on the host, beside a call of ~0.3 ms.
import { distUrl } from "./dist.mjs";

const RESULT = {
  ok: true,
  tool: "word_count",
  callId: "bench-call",
  source: "agent:bench",
  version: "a".repeat(64),
  metrics: { wallMs: 0.31, cpuMs: 0.12, heapBytes: 1_200_000 },
  warm: true,
  output: "2",
};

function perCallNs(telemetry, calls) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const span = telemetry.startCall("word_count", "bench-call", undefined);
    span.gateWaitMs = 0.01;
    span.end(RESULT);
  }
  return Number(process.hrtime.bigint() - started) / calls;
}

/** The same loop without telemetry: what the loop itself costs, taken off both figures. */
function loopNs(calls) {
  const started = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < calls; i++) sink += RESULT.metrics.wallMs;
  if (sink < 0) console.log(sink);
  return Number(process.hrtime.bigint() - started) / calls;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureTelemetry({ calls, rounds }) {
  const { Telemetry } = await import(distUrl("src/telemetry/index.js"));
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const { MeterProvider, InMemoryMetricExporter, PeriodicExportingMetricReader, AggregationTemporality } = await import("@opentelemetry/sdk-metrics");
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })] });
  const noSdk = new Telemetry({}, () => 0);
  const withSdk = new Telemetry({ tracerProvider, meterProvider }, () => 0);
  const figures = { noSdk: [], withSdk: [], loop: [] };
  // Warm-up: the first calls compile the path.
  perCallNs(noSdk, calls / 10);
  perCallNs(withSdk, calls / 10);
  spans.reset();
  for (let round = 0; round < rounds; round++) {
    figures.loop.push(loopNs(calls));
    figures.noSdk.push(perCallNs(noSdk, calls));
    figures.withSdk.push(perCallNs(withSdk, calls / 10));
    spans.reset();
  }
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  const loop = median(figures.loop);
  return { calls, rounds, noSdkNs: Math.max(0, median(figures.noSdk) - loop), withSdkNs: Math.max(0, median(figures.withSdk) - loop) };
}
