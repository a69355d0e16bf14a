/** Time series of one measure (RSS over a soak): growth from the first to the last quarter, and the slope of a linear fit. */
import { median } from '../bench-report.ts';

export type Sample = { minutes: number; value: number };

export type Growth = { firstQuartile: number; lastQuartile: number; growth: number; slopePerMinute: number; max: number };

/** Median of the first quarter of the samples against the median of the last quarter; least-squares slope per minute; max. */
export function growthOf(samples: Sample[]): Growth {
  if (samples.length === 0) return { firstQuartile: NaN, lastQuartile: NaN, growth: NaN, slopePerMinute: NaN, max: NaN };
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const firstQuartile = median(samples.slice(0, quarter).map((s) => s.value));
  const lastQuartile = median(samples.slice(-quarter).map((s) => s.value));
  return {
    firstQuartile,
    lastQuartile,
    growth: (lastQuartile - firstQuartile) / firstQuartile,
    slopePerMinute: slopeOf(samples),
    max: Math.max(...samples.map((s) => s.value)),
  };
}

/** Least-squares slope of value over minutes (0 with fewer than two distinct times). */
export function slopeOf(samples: Sample[]): number {
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.minutes, 0) / n;
  const my = samples.reduce((a, s) => a + s.value, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.minutes - mx) * (s.value - my);
    den += (s.minutes - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
