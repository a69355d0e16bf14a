/** Pieces the Developers pages share: a JSON block, a duration in words. */

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json-block" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** The sentence for a duration in milliseconds (24 hours, 90 s). */
export function describeMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} s`;
}
