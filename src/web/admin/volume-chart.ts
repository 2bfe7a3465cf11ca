import { Decimal } from '../../domain/money.js';
import type { DailyVolumeRow } from '../../use-cases/dashboard.js';
import { html, type SafeHtml } from '../html.js';

const WIDTH = 600;
const HEIGHT = 120;
/** Room under the bars for the date axis. */
const AXIS = 20;
/** A dated tick every week, counted back from today so the last bar always has its date. */
const TICK_DAYS = 7;
/** Half the width of a YYYY-MM-DD label at the axis's 11px font. */
const HALF_LABEL = 33;
export const CHART_DAYS = 30;

/** The last `CHART_DAYS` UTC days up to `now`, oldest first, as YYYY-MM-DD. */
export function chartDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: CHART_DAYS }, (_, i) => new Date(today - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/**
 * One bar chart per asset (amounts of different assets do not share a scale), drawn as SVG on the server.
 * Each chart has a text alternative, and the numbers are in a table beside it for screen readers and copying.
 */
export function volumeCharts(rows: DailyVolumeRow[], days: string[]): SafeHtml {
  const assets = [...new Set(rows.map((r) => r.asset))].sort();
  if (assets.length === 0) return html`<p>No confirmed deposits in the last ${CHART_DAYS} days.</p>`;
  return html`${assets.map((asset) => {
    const byDay = new Map(rows.filter((r) => r.asset === asset).map((r) => [r.day, new Decimal(r.amount)]));
    const amounts = days.map((day) => byDay.get(day) ?? new Decimal(0));
    const max = Decimal.max(...amounts);
    const total = amounts.reduce((sum, a) => sum.plus(a), new Decimal(0));
    const barWidth = WIDTH / days.length;
    return html`<figure class="chart">
  <figcaption>${asset}: ${total.toFixed()} received over ${CHART_DAYS} days (highest day ${max.toFixed()})</figcaption>
  <svg viewBox="0 0 ${WIDTH} ${HEIGHT + AXIS}" role="img" aria-label="Daily ${asset} deposits, ${days[0]} to ${days.at(-1)}: total ${total.toFixed()}">
    ${amounts.map((amount, i) => {
      // Pixel geometry only: the amounts themselves stay exact decimals.
      const height = max.isZero() ? 0 : amount.div(max).times(HEIGHT - 4).toNumber();
      return html`<rect class="bar" x="${(i * barWidth + 1).toFixed(1)}" y="${(HEIGHT - height).toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${height.toFixed(1)}"><title>${days[i]}: ${amount.toFixed()} ${asset}</title></rect>`;
    })}
    <line class="axis" x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}"/>
    ${days.map((day, i) => {
      if ((days.length - 1 - i) % TICK_DAYS !== 0) return null;
      // Under its bar, but kept whole inside the chart at either edge.
      const x = Math.min(Math.max((i + 0.5) * barWidth, HALF_LABEL), WIDTH - HALF_LABEL);
      return html`<text class="tick" x="${x.toFixed(1)}" y="${HEIGHT + AXIS - 5}" text-anchor="middle">${day}</text>`;
    })}
  </svg>
  <details><summary>Numbers</summary>
    <table><thead><tr><th scope="col">Day (UTC)</th><th scope="col">${asset}</th></tr></thead>
    <tbody>${days.map((day, i) => html`<tr><td>${day}</td><td class="num">${amounts[i]!.toFixed()}</td></tr>`)}</tbody></table>
  </details>
</figure>`;
  })}`;
}
