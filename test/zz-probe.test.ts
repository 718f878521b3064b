import { it } from 'vitest';
import fs from 'node:fs'; import zlib from 'node:zlib'; import path from 'node:path';
import { deriveOpOutputs, hasOutputRule } from '../src/analyses/facts/op-shapes.js';
it('probe', () => {
  const files: string[] = [];
  const walk = (d: string) => { for (const f of fs.readdirSync(d)) { const p = path.join(d, f); if (fs.statSync(p).isDirectory()) walk(p); else if (p.endsWith('.pt.trace.json.gz')) files.push(p); } };
  walk('/work/wt/links/test/fixtures/traces');
  const seen = new Set<string>(); const byOp = new Map<string, [number, number]>();
  const want = new RegExp(process.env.OPS ?? '^$');
  for (const f of files) {
    const j = JSON.parse(zlib.gunzipSync(fs.readFileSync(f)).toString());
    for (const e of j.traceEvents) {
      if (e.cat !== 'cpu_op' || !e.name.startsWith('aten::')) continue;
      const k = JSON.stringify([e.name, e.args['Input Dims'], e.args['Input type'], e.args['Concrete Inputs']]);
      if (seen.has(k)) continue; seen.add(k);
      const out = deriveOpOutputs(e.name, e.args);
      const c = byOp.get(e.name) ?? [0, 0]; c[0]++; if (out) c[1]++; byOp.set(e.name, c);
      if (want.test(e.name)) console.log(e.name, JSON.stringify(e.args['Input Dims']), JSON.stringify(e.args['Concrete Inputs']), '=>', JSON.stringify(out));
    }
  }
  const rows = [...byOp].sort((a, b) => b[1][0] - a[1][0]);
  console.log(rows.filter(([, c]) => c[1] < c[0]).map(([n, c]) => `${n} ${c[1]}/${c[0]}${hasOutputRule(n) ? '' : ' (no rule)'}`).join('\n'));
  const tot = rows.reduce((s, [, c]) => [s[0] + c[0], s[1] + c[1]], [0, 0]); console.log('total', tot);
});
