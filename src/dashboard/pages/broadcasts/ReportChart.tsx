/**
 * The report's chart: recipients by status as horizontal bars, drawn by Chart.js on a canvas (loaded
 * with the broadcast page only: its own chunk). The canvas is an image named by a sentence of the
 * counts; the table beside it (BroadcastPage) carries the same numbers for anyone who cannot see it.
 */
import { useEffect, useRef } from 'react';
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';
import type { Tone } from '../../format.ts';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export type ChartRow = { label: string; value: number; tone: Tone };

const TONE_VARIABLE: Record<Tone, string> = { ok: '--ok', bad: '--danger', warn: '--warn', neutral: '--accent' };

function toneColor(tone: Tone): string {
  return getComputedStyle(document.documentElement).getPropertyValue(TONE_VARIABLE[tone]).trim() || '#5d6778';
}

export default function ReportChart({ rows, label }: { rows: ChartRow[]; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'bar'> | null>(null);

  useEffect(() => {
    if (!canvas.current) return;
    chart.current = new Chart(canvas.current, {
      type: 'bar',
      data: { labels: [], datasets: [{ label: 'Recipients', data: [], backgroundColor: [] }] },
      options: {
        indexAxis: 'y',
        responsive: true,
        maintainAspectRatio: false,
        // Live numbers change every few seconds: no motion for each.
        animation: false,
        scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.data.labels = rows.map((r) => r.label);
    c.data.datasets[0]!.data = rows.map((r) => r.value);
    c.data.datasets[0]!.backgroundColor = rows.map((r) => toneColor(r.tone));
    c.update();
  }, [rows]);

  return (
    <div className="report-chart">
      <canvas ref={canvas} role="img" aria-label={label}>
        {label}
      </canvas>
    </div>
  );
}
