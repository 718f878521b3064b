/** The layering of STYLE.md holds: imports flow one way, model/ and analyses/ stay pure. */
import { expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without type declarations
import { checkLayers } from '../scripts/check-layers.mjs';

it('imports flow core → ingest → model → analyses → report → cli', () => {
  expect(checkLayers()).toEqual([]);
});
