/**
 * The wave-3 captures (workloads/capture_wave3.sh; test/fixtures/traces/h100-torch2.11): every
 * capture loads and `summary` equals torch's own key_averages written beside it (counts exact,
 * times within 1% or 0.5 µs: test/oracle-parity.ts). (The captures with an execution trace, and
 * the test of their rf_ids, are on branch `cap-h100`: the folder's README.)
 *
 * The folder was made on the GPU machine by `bash workloads/capture_wave3.sh OUT` (its README says
 * how and with what).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { computeProfilerTable } from '../../src/analyses/torch-table/profiler-table.js';
import { loadTrace } from '../../src/load-trace.js';
import { loadRawJson, type Oracle } from '../fixtures.js';
import { parityProblems } from '../oracle-parity.js';
import { TEST_DIR } from '../helpers/paths.js';

const FOLDER = join(TEST_DIR, 'fixtures/traces/h100-torch2.11');
const HAS_WAVE3 = existsSync(FOLDER);
if (!HAS_WAVE3) console.warn(`wave-3 captures not found at ${FOLDER} (workloads/capture_wave3.sh makes them): their tests are skipped.`);
const trace = (name: string) => join(FOLDER, `${name}.pt.trace.json.gz`);
const gunzipJson = (path: string): unknown => JSON.parse(gunzipSync(readFileSync(path)).toString('utf8'));
const oracleOf = (name: string) => gunzipJson(join(FOLDER, `${name}.oracle.json.gz`)) as Oracle;

const CAPTURES = [
  'attention_float_mask',
  'bert_train_compile_ro',
  'flex_attention',
  'gpt2_infer',
  'gpt2_infer_compile_cg',
  'gpt2_train_ckpt',
  'gradscaler_train',
  'graph_break',
  'llama_gqa_train',
  'moe_train',
  'moe_train_grouped',
  'resnet18_train',
  'resnet18_train_cl',
];

type Ev = Record<string, unknown> & { name: string; ph?: string; cat?: string; ts?: number; dur?: number; tid?: unknown; args?: Record<string, unknown> };
const events = (name: string) => loadRawJson(trace(name)).traceEvents as Ev[];

describe.skipIf(!HAS_WAVE3)('the wave-3 captures', () => {
  it('hold the set capture_wave3.sh makes, each with its oracle and torch’s table, within 20 MB', () => {
    const files = readdirSync(FOLDER);
    const names = files.filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => f.replace('.pt.trace.json.gz', ''));
    expect(names.sort()).toEqual(CAPTURES);
    for (const name of CAPTURES) {
      expect(files).toContain(`${name}.oracle.json.gz`);
      expect(files).toContain(`${name}.table.txt`);
      expect(oracleOf(name).workload).toBe(name);
    }
    const bytes = files.reduce((s, f) => s + statSync(join(FOLDER, f)).size, 0);
    expect(bytes).toBeLessThanOrEqual(20 * 1024 * 1024);
  });

  for (const name of CAPTURES) {
    it(`${name}: summary equals torch key_averages`, async () => {
      const table = computeProfilerTable(await loadTrace(trace(name)));
      // CUPTI's overhead events, named from the raw JSON: torch credits them with their op's kernels (its id collision)
      const overhead = new Set(events(name).filter((e) => e.cat === 'overhead').map((e) => String(e.name)));
      expect(parityProblems(table, oracleOf(name), overhead)).toEqual([]);
    });
  }
});
