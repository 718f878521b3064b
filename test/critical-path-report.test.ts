/** The report's critical-path parts: the table beside the step table, and the path drawn on the timeline. */
import { describe, expect, it } from 'vitest';
import { loadTrace } from '../src/load-trace.js';
import { buildReportData } from '../src/report/html/report-data.js';
import { renderReportHtml } from '../src/report/html/render-report.js';
import { h200Trace, loadRawJson } from './fixtures.js';

describe('report: critical path', () => {
  it('cnn_train: a row per step with its span from the raw events, a toggle, and path points in time order', async () => {
    const file = h200Trace('cnn_train');
    const model = await loadTrace(file);
    const data = buildReportData(model, { tracePath: 'cnn_train.pt.trace.json.gz', generator: 'kinetoscope test' });
    const html = renderReportHtml(data);
    expect(data.criticalPath.ok).toBe(true);
    const raw = loadRawJson(file).traceEvents as { cat?: string; name?: string }[];
    const steps = raw.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name!)).map((e) => e.name!);
    const table = html.slice(html.indexOf('id="critical-path-table"'), html.indexOf('</table>', html.indexOf('id="critical-path-table"')));
    expect((table.match(/<tr>/g) ?? []).length).toBe(steps.length + 1);
    for (const s of steps) expect(table).toContain(`<td>${s}</td>`);
    expect(html).toContain('id="tl-critical"');
    expect(html).toContain('href="#critical-path"');
    // the embedded path: node times never go back within a step
    if (!data.timeline.ok) throw new Error(data.timeline.error);
    const { timeline: t, embed } = data.timeline.value;
    const cp = embed.cpath!;
    expect(cp.length).toBeGreaterThan(0);
    let prev = -Infinity;
    for (let q = 0; q < cp.length; q += 2) {
      if (cp[q]! < 0) {
        prev = -Infinity;
        continue;
      }
      const j = cp[q]!;
      const ts = t.slices.startNs[j]! + (cp[q + 1] ? t.slices.durNs[j]! : 0);
      expect(ts).toBeGreaterThanOrEqual(prev);
      prev = ts;
    }
  });
});
