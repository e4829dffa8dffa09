// The measuring harness: latency samples taken one by one, batches with a
// fixed number of calls in flight, percentiles from sorted samples, and
// rounds that let every contender run in turn (rotating who goes first), so
// that machine noise hits all contenders alike. Figures are the median over
// rounds of each round's figure.

/** Nearest-rank percentile of ascending `sorted` (p in 0..1). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1];
}

export function median(values) {
  const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** p50, p99, mean and max (all ms) of latency samples in ms. */
export function summarize(samplesMs) {
  const sorted = Float64Array.from(samplesMs).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: sum / sorted.length,
    max: sorted[sorted.length - 1],
  };
}

/** Times `n` calls of a synchronous `fn`, one by one, after `warmup` untimed ones. */
export function timeSync(fn, n, warmup = Math.min(200, n)) {
  for (let i = 0; i < warmup; i++) fn();
  const samples = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    fn();
    samples[i] = performance.now() - started;
  }
  return samples;
}

/**
 * Times `n` calls of an async `fn`, one in flight, after `warmup` untimed
 * ones; with `gapMs`, each timed call comes after that long with nothing
 * running (a sporadic caller), else right after the previous one.
 */
export async function timeSerial(fn, n, warmup = Math.min(50, n), gapMs = 0) {
  for (let i = 0; i < warmup; i++) await fn();
  const samples = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    const started = performance.now();
    await fn();
    samples[i] = performance.now() - started;
  }
  return samples;
}

/**
 * Runs `total` calls of `fn` with `inFlight` of them in flight at every
 * moment (closed loop). Answers each call's latency and the wall time.
 */
export async function timeConcurrent(fn, total, inFlight, warmup = inFlight * 4) {
  await runConcurrent(fn, warmup, inFlight);
  const samples = new Float64Array(total);
  let issued = 0;
  const started = performance.now();
  const lane = async () => {
    while (issued < total) {
      const index = issued++;
      const t0 = performance.now();
      await fn(index);
      samples[index] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const wallMs = performance.now() - started;
  return { samples, wallMs, callsPerS: (total * 1000) / wallMs };
}

async function runConcurrent(fn, total, inFlight) {
  let issued = 0;
  const lane = async () => {
    while (issued < total) {
      issued++;
      await fn(issued);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

/**
 * `rounds` rounds; in each, every contender's `batch()` runs once, in an
 * order rotated by one each round. Answers, per contender name, the list of
 * what its batches returned.
 */
export async function interleave(rounds, contenders, { onRound } = {}) {
  const results = Object.fromEntries(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(i + round) % contenders.length];
      results[contender.name].push(await contender.batch(round));
    }
    onRound?.(round);
  }
  return results;
}

/** Median over rounds of each numeric field of the per-round summaries. */
export function medianOfRounds(perRound) {
  const keys = Object.keys(perRound[0] ?? {}).filter((k) => typeof perRound[0][k] === "number");
  return Object.fromEntries(keys.map((k) => [k, median(perRound.map((r) => r[k]))]));
}
