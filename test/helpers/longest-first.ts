/**
 * The order test files start in: the longest first, so that the files still running at the end
 * are short ones and every worker stays busy to the end. vitest orders files by the durations
 * of its previous run when it has them (its cache under node_modules/.vite); a fresh clone has
 * none, and vitest then starts them in glob order — alphabetical, which put the 40–50 s files
 * of a loaded two-core machine last. SLOWEST names the files that took 25 s or more in either of
 * the last two fresh-clone runs of `npm test` on the two-core machine with both cores busy
 * (docs/performance.md), longest first; with a cache, vitest's own order stands.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOWEST = [
  // (a Dask cluster of two workers and some 150 kinetoscope processes: ~125 s alone, loaded)
  'test/cli/dask.test.ts',
  'test/cli/native-reader.test.ts',
  'test/model/columnar.test.ts',
  'test/model/parallel-read.test.ts',
  'test/cli/report-html.test.ts',
  'test/cli/cli.test.ts',
  'test/model/model.test.ts',
  'test/cli/limits.test.ts',
  'test/cli/fuzz.test.ts',
  'test/cli/schema.test.ts',
  'test/ingest/oracle.test.ts',
  'test/cli/every-command.test.ts',
  'test/cli/mcp.test.ts',
  'test/cli/check.test.ts',
  'test/cli/step-breakdown.test.ts',
  'test/analyses/host/scopes.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const cached = sorted.some((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`) !== undefined);
    if (cached) return sorted;
    const rank = (f: TestSpecification) => {
      const k = SLOWEST.indexOf(relative(this.ctx.config.root, f.moduleId));
      return k < 0 ? SLOWEST.length : k;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
