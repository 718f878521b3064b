/**
 * The layering of STYLE.md and src/README.md holds (scripts/check-layers.mjs): imports flow one
 * way, each layer uses only the layers it is given, model/ and analyses/ stay pure, and the
 * analyses' folders stand on floors — and the check itself finds each kind of violation planted
 * in a small tree of its own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without type declarations
import { checkLayers } from '../../scripts/check-layers.mjs';

it('imports flow core → ingest → model → analyses → report → cli, and analyses/ folders only down their floors', () => {
  expect(checkLayers()).toEqual([]);
});

describe('the check finds what is planted', () => {
  const root = mkdtempSync(join(tmpdir(), 'kinetoscope-layers-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  // Allowed: each of these imports goes down a layer or a floor.
  write('core/json.ts', 'export type J = number;\n');
  write('ingest/read.ts', "import type { J } from '../core/json.js';\nexport const read = (j: J) => j;\n");
  write('model/model.ts', "import { read } from '../ingest/read.js';\nexport const model = read;\n");
  write('analyses/helpers/median.ts', 'export const median = 1;\n');
  write('analyses/facts/calls.ts', "import { median } from '../helpers/median.js';\nimport { model } from '../../model/model.js';\nexport const calls = [median, model];\n");
  write('analyses/steps/steps.ts', "import { launches } from '../host/launches.js';\nexport const steps = launches;\n");
  write('report/view.ts', "import { steps } from '../analyses/steps/steps.js';\nexport const view = steps;\n");
  write('analyses/gemm/gemm.test.ts', "import { view } from '../../report/view.js';\nexport const t = view;\n");
  // Planted.
  write('analyses/host/launches.ts', "import { steps } from '../steps/steps.js';\nexport const launches = 1;\nexport const s = steps;\n");
  write('analyses/ranks/collectives.ts', "import { kt } from '../breakdown/kernel-type.js';\nexport const c = kt;\n");
  write('analyses/breakdown/kernel-type.ts', 'export const kt = 1;\n');
  write('analyses/trace/crop.ts', "import { read } from '../../ingest/read.js';\nexport const crop = read;\n");
  write('analyses/facts/files.ts', "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n");
  write('analyses/questions/new.ts', "import { median } from '../helpers/median.js';\nexport const n = median;\n");
  write('model/upward.ts', "import { view } from '../report/view.js';\nexport const u = view;\n");

  it('an import up a floor, across one floor, into ingest, from Node, from a folder on no floor, up a layer', () => {
    expect([...checkLayers(root)].sort()).toEqual([
      'analyses/facts/files.ts: analyses/ must not import node:fs',
      'analyses/host/launches.ts: analyses/host imports ../steps/steps.js from analyses/steps, a higher floor',
      'analyses/questions/new.ts: analyses/questions is on no floor of ANALYSES_FLOORS (scripts/check-layers.mjs): put it on the lowest its imports allow',
      'analyses/ranks/collectives.ts: analyses/ranks imports ../breakdown/kernel-type.js from analyses/breakdown, on its own floor',
      'analyses/trace/crop.ts: analyses imports ../../ingest/read.js from ingest, which analyses/ does not use (it uses core, model)',
      'model/upward.ts: model imports ../report/view.js from the higher layer report',
    ]);
  });
});
